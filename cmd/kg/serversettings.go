package main

// A command that goes through a running server runs with the server's
// settings, not its own. A setting it was given (as a flag or in the
// environment) that the server runs with otherwise would be ignored; it is
// refused instead, naming both values (docs/design/operations.md#commands).

import (
	"fmt"
	"os"
	"slices"
	"strings"

	khttp "github.com/kg-memory/kg/adapters/http"
	"github.com/kg-memory/kg/cmd/kg/internal/apiclient"
)

// compactionSettings are what a compaction run reads: a command that
// compacts (kg compact, kg import) gets them from the server that runs it.
var compactionSettings = []string{"max-tokens", "estimate-notes", "grace-days", "orphan-grace-days", "scoring"}

// bridgeOwnSettings are the settings kg mcp uses itself when a server
// already runs: where to find it and how to talk to it, and its own log.
// Every other setting is the server's.
var bridgeOwnSettings = []string{"host", "port", "storage-root", "auth-token", "log-level", "log-format"}

// serverSettings are the settings cfg runs a server with, flag → value as
// show writes it: what /health reports. The token is never reported.
func serverSettings(cfg Config) map[string]string {
	out := map[string]string{}
	for _, s := range settings(os.UserHomeDir) {
		if s.show != nil {
			out[s.flag] = s.show(cfg)
		}
	}
	return out
}

// givenSetting says how a setting was given: "--max-tokens 200" or
// "KG_MAX_TOKENS=200"; ok is false when it was left to its default.
func (b *settingsFlags) givenSetting(flag string, getenv func(string) string) (how string, ok bool) {
	for i, s := range b.table {
		if s.flag != flag {
			continue
		}
		switch {
		case b.values[i].set:
			return "--" + s.flag + " " + b.values[i].v, true
		case getenv(s.env) != "":
			return s.env + "=" + getenv(s.env), true
		}
	}
	return "", false
}

// checkServerRunsWith refuses what a command was given among flags that
// the server it goes through runs with otherwise: the command would
// silently run with the server's values. cfg is the command's own reading
// of its settings; h the server's /health, which lists the server's.
func (b *settingsFlags) checkServerRunsWith(srv *apiclient.Client, h khttp.Health, cfg Config, getenv func(string) string, flags []string) error {
	var differ []string
	for _, s := range b.table {
		if s.show == nil || !slices.Contains(flags, s.flag) {
			continue
		}
		how, ok := b.givenSetting(s.flag, getenv)
		if !ok {
			continue
		}
		theirs, known := h.Settings[s.flag]
		switch {
		case !known:
			differ = append(differ, how+" (it does not say what it runs with)")
		case theirs != s.show(cfg):
			differ = append(differ, fmt.Sprintf("%s (it runs with %s)", how, quoteEmpty(theirs)))
		}
	}
	if len(differ) == 0 {
		return nil
	}
	return fmt.Errorf("the kg server at %s runs with other settings than those given: %s; "+
		"a command that goes through a server uses the server's settings, so restart the server with these, "+
		"or leave them out", srv.URL(), strings.Join(differ, ", "))
}

// serverFlags are the settings a running server applies and a command
// only passes to a server it starts: every setting but those of except.
func serverFlags(except []string) []string {
	var out []string
	for _, s := range settings(os.UserHomeDir) {
		if !slices.Contains(except, s.flag) {
			out = append(out, s.flag)
		}
	}
	return out
}

// quoteEmpty shows an empty value as "none".
func quoteEmpty(v string) string {
	if v == "" {
		return "none"
	}
	return v
}
