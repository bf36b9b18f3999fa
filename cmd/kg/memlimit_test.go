package main

import (
	"log/slog"
	"math"
	"runtime/debug"
	"testing"

	"github.com/kg-memory/kg/cmd/kg/internal/config"
)

// The soft memory limit: auto gives a team server 256 MiB unless GOMEMLIMIT
// is set, and nothing to a server of one person; a number is taken as it
// is; 0 leaves the runtime's limit alone. Not parallel: the limit is the
// process's.
func TestSetMemoryLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	quiet := slog.New(slog.DiscardHandler)
	noEnv := func(string) string { return "" }
	withEnv := func(k string) string {
		if k == "GOMEMLIMIT" {
			return "1GiB"
		}
		return ""
	}
	for _, tt := range []struct {
		name   string
		cfg    config.Config
		getenv func(string) string
		want   int64
	}{
		{"auto, team", config.Config{Storage: "postgres", MemoryLimitMiB: -1}, noEnv, 256 << 20},
		{"auto, team, GOMEMLIMIT set", config.Config{Storage: "postgres", MemoryLimitMiB: -1}, withEnv, math.MaxInt64},
		{"auto, one person", config.Config{Storage: "json", MemoryLimitMiB: -1}, noEnv, math.MaxInt64},
		{"given", config.Config{Storage: "bolt", MemoryLimitMiB: 512}, noEnv, 512 << 20},
		{"none", config.Config{Storage: "postgres", MemoryLimitMiB: 0}, noEnv, math.MaxInt64},
	} {
		debug.SetMemoryLimit(math.MaxInt64)
		setMemoryLimit(tt.cfg, tt.getenv, quiet)
		if got := debug.SetMemoryLimit(-1); got != tt.want {
			t.Errorf("%s: limit %d, want %d", tt.name, got, tt.want)
		}
	}
}
