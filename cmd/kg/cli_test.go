package main

import (
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every command has --help: exit 0, its usage on stdout.
func TestEveryCommandHasHelp(t *testing.T) {
	t.Parallel()
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				walk(sub, append(append([]string(nil), path...), sub.Name()))
			}
		}
	}
	walk(newRoot(env{}), nil)
	if len(paths) < 14 {
		t.Fatalf("%d commands found: %q", len(paths), paths)
	}
	for _, p := range paths {
		var out, errs strings.Builder
		e := env{stdout: &out, stderr: &errs, getenv: func(string) string { return "" }, home: fakeHome}
		if code := run(context.Background(), e, append(p, "--help")); code != exitOK || !strings.Contains(out.String(), "Usage:\n  kg") {
			t.Errorf("kg %s --help: exit %d\n%s%s", strings.Join(p, " "), code, out.String(), errs.String())
		}
	}
}
