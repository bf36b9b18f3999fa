// Command kg is the knowledge-graph memory server for coding agents.
//
// `kg serve` (or plain `kg`) runs the server in the foreground; the other
// commands talk to it, or work on the storage root when none runs. `kg
// --help` lists them; docs/operations.md describes each.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"

	"github.com/kg-memory/kg/cmd/kg/internal/config"
)

// Exit statuses (docs/design/operations.md#exit-codes).
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// env is what a command may read from the process: its streams, its
// environment and its own executable. main fills it from os; tests fill it
// by hand.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	home           func() (string, error)
	// interactive says stderr is a terminal: long work then shows a
	// progress bar there.
	interactive bool
	// executable is the path of this binary, which `kg mcp` starts as the
	// server.
	executable func() (string, error)
}

func main() {
	e := env{
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		getenv: os.Getenv, home: os.UserHomeDir,
		interactive: term.IsTerminal(int(os.Stderr.Fd())),
		executable:  os.Executable,
	}
	os.Exit(run(context.Background(), e, os.Args[1:]))
}

// run runs the command named by args and returns the exit status: 0
// success, 1 failure, 2 bad usage. Errors are printed here, once, as one
// line that starts with the command.
func run(ctx context.Context, e env, args []string) int {
	root := newRoot(e)
	root.SetArgs(args)
	c, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	var done *exitError
	if errors.As(err, &done) {
		return done.code // the command said why
	}
	name := root.Name()
	if c != nil {
		name = c.CommandPath()
	}
	var ue *config.UsageError
	if errors.As(err, &ue) {
		fmt.Fprintf(e.stderr, "%s: %v (see %s --help)\n", name, err, name)
		return exitUsage
	}
	fmt.Fprintf(e.stderr, "%s: %v\n", name, err)
	return exitFailure
}

// exitError ends a command with code after the command has reported why.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }
