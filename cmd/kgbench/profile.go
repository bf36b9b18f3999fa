package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
)

// startProfile starts a CPU profile written to dir/<phase>.pprof and
// returns what stops it and closes the file. With dir empty it does
// nothing. The profile covers the whole process: with --inproc that is the
// server's side of every call (HTTP, MCP, app, storage) and the mcp-go
// client's; `go tool pprof -focus 'net/http.\(\*conn\).serve'` keeps the
// server's.
func startProfile(dir, phase string) (stop func() error, err error) {
	if dir == "" {
		return func() error { return nil }, nil
	}
	path := filepath.Join(dir, phase+".pprof")
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile of %s: %w", phase, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("cpu profile of %s: %w", phase, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("cpu profile of %s: %w", phase, errors.Join(err, os.Remove(path)))
		}
		return nil
	}, nil
}
