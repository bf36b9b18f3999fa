// Command kg is the knowledge-graph memory server for coding agents.
//
// `kg serve` (or plain `kg`) runs the server in the foreground; `kg
// version` prints the version. operations.md lists every command.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// Exit statuses (operations.md).
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// env is what a command may read from the process: its streams and its
// environment. main fills it from os; tests fill it by hand.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	home           func() (string, error)
}

// command is one entry of the dispatch table.
type command struct {
	summary string
	run     func(ctx context.Context, e env, args []string) int
}

// commands is the dispatch table. Later subcommands (mcp, status, compact,
// export, import, migrate, project, doctor) each add one line here.
func commands() map[string]command {
	return map[string]command{
		"serve":   {summary: "run the server in the foreground (the default)", run: serve},
		"version": {summary: "print the version and build info", run: printVersion},
	}
}

func main() {
	e := env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, home: os.UserHomeDir}
	os.Exit(run(context.Background(), e, os.Args[1:]))
}

// run dispatches args to a command and returns the exit status.
func run(ctx context.Context, e env, args []string) int {
	cmds := commands()
	if len(args) == 0 {
		return cmds["serve"].run(ctx, e, nil)
	}
	switch a := args[0]; {
	case a == "-h" || a == "-help" || a == "--help" || a == "help":
		usage(e.stdout, cmds)
		return exitOK
	case a == "-version" || a == "--version":
		return cmds["version"].run(ctx, e, args[1:])
	case strings.HasPrefix(a, "-"):
		// Plain `kg --port 9000` is `kg serve --port 9000`.
		return cmds["serve"].run(ctx, e, args)
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(e.stderr, "kg: unknown command %q; commands: %s (see kg --help)\n", args[0], strings.Join(names(cmds), ", "))
		return exitUsage
	}
	return c.run(ctx, e, args[1:])
}

func names(cmds map[string]command) []string {
	var ns []string
	for n := range cmds {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintf(w, "kg — knowledge-graph memory server for coding agents\n\nUsage: kg [command] [flags]\n\nCommands:\n")
	for _, n := range names(cmds) {
		fmt.Fprintf(w, "  %-8s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintf(w, "\nRun `kg <command> --help` for the flags of a command.\n")
}
