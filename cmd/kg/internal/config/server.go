package config

// A command that goes through a running server runs with the server's
// settings, not its own. A setting it was given (as a flag or in the
// environment) that the server runs with otherwise would be ignored; it is
// refused instead, naming both values (docs/design/operations.md#commands).

import (
	"fmt"
	"slices"
	"strings"

	khttp "github.com/kg-memory/kg/adapters/http"
	"github.com/kg-memory/kg/cmd/kg/internal/apiclient"
)

// Shown are the settings of table cfg runs a server with, flag → value as
// Show writes it: what /health reports. The token is never reported.
func Shown(table []Setting, cfg Config) map[string]string {
	out := map[string]string{}
	for _, s := range table {
		if s.Show != nil {
			out[s.Flag] = s.Show(cfg)
		}
	}
	return out
}

// givenSetting says how a setting was given: "--max-tokens 200" or
// "KG_MAX_TOKENS=200"; ok is false when it was left to its default.
func (b *Flags) givenSetting(flag string, getenv func(string) string) (how string, ok bool) {
	for i, s := range b.table {
		if s.Flag != flag {
			continue
		}
		switch {
		case b.values[i].set:
			return "--" + s.Flag + " " + b.values[i].v, true
		case getenv(s.Env) != "":
			return s.Env + "=" + getenv(s.Env), true
		}
	}
	return "", false
}

// CheckServerRunsWith refuses what a command was given among flags that
// the server it goes through runs with otherwise: the command would
// silently run with the server's values. cfg is the command's own reading
// of its settings; h the server's /health, which lists the server's.
func (b *Flags) CheckServerRunsWith(srv *apiclient.Client, h khttp.Health, cfg Config, getenv func(string) string, flags []string) error {
	var differ []string
	for _, s := range b.table {
		if s.Show == nil || !slices.Contains(flags, s.Flag) {
			continue
		}
		how, ok := b.givenSetting(s.Flag, getenv)
		if !ok {
			continue
		}
		theirs, known := h.Settings[s.Flag]
		switch {
		case !known:
			differ = append(differ, how+" (it does not say what it runs with)")
		case theirs != s.Show(cfg):
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

// FlagsBut are the flags of table but those of except: the settings a
// running server applies and a command only passes to a server it starts.
func FlagsBut(table []Setting, except []string) []string {
	var out []string
	for _, s := range table {
		if !slices.Contains(except, s.Flag) {
			out = append(out, s.Flag)
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
