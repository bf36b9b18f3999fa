package main

// The settings table of internal/config, its --storage naming the backends
// of backends(), and the settings a command that goes through a running
// server compares with the server's (docs/design/operations.md#commands).

import (
	"os"

	"github.com/spf13/pflag"

	"github.com/kg-memory/kg/cmd/kg/internal/config"
)

// compactionSettings are what a compaction run reads: a command that
// compacts (kg compact, kg import) gets them from the server that runs it.
var compactionSettings = []string{"max-tokens", "estimate-notes", "grace-days", "orphan-grace-days", "scoring"}

// bridgeOwnSettings are the settings kg mcp uses itself when a server
// already runs: where to find it and how to talk to it, and its own log.
// Every other setting is the server's.
var bridgeOwnSettings = []string{"host", "port", "server-url", "storage-root", "auth-token", "log-level", "log-format"}

// settings is the settings table, its --storage naming backends().
func settings(home func() (string, error)) []config.Setting {
	var names []string
	for _, b := range backends() {
		names = append(names, b.Name)
	}
	return config.Settings(home, names)
}

// bindSettings adds a flag for each row of the settings table to fs.
func bindSettings(fs *pflag.FlagSet, home func() (string, error)) *config.Flags {
	return config.Bind(fs, settings(home))
}

// serverSettings are the settings cfg runs a server with: what /health
// reports.
func serverSettings(cfg config.Config) map[string]string {
	return config.Shown(settings(os.UserHomeDir), cfg)
}

// serverFlags are the settings a running server applies and a command
// only passes to a server it starts: every setting but those of except.
func serverFlags(except []string) []string {
	return config.FlagsBut(settings(os.UserHomeDir), except)
}
