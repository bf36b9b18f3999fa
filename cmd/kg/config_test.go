package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/kg-memory/kg/cmd/kg/internal/config"
)

func fakeHome() (string, error) { return "/home/ada", nil }

// parse reads the settings from args and envs as a command does, with the
// home folder at /home/ada.
func parse(args []string, envs map[string]string) (config.Config, error) {
	return parseWith(args, func(k string) string { return envs[k] }, fakeHome)
}

func parseWith(args []string, getenv func(string) string, home func() (string, error)) (config.Config, error) {
	fs := pflag.NewFlagSet("kg serve", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	s := bindSettings(fs, home)
	if err := fs.Parse(args); err != nil {
		return config.Config{}, err
	}
	return s.Config(getenv)
}

func TestServeHelp(t *testing.T) {
	t.Parallel()
	var out, errs strings.Builder
	e := env{stdout: &out, stderr: &errs, getenv: func(string) string { return "" }, home: fakeHome}
	if code := run(context.Background(), e, []string{"serve", "--help"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	for _, want := range []string{"Usage:\n  kg serve [flags]", "--storage-root folder", "KG_SAVE_INTERVAL",
		"default ~/.knowledge-graph", "--estimate-notes ", "Settings (a flag wins"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help does not mention %q:\n%s", want, out.String())
		}
	}
}
