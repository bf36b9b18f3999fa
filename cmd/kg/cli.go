package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kg-memory/kg/cmd/kg/internal/config"
)

// newRoot builds the command tree. Plain `kg` (with or without flags) is
// `kg serve`.
func newRoot(e env) *cobra.Command {
	root := &cobra.Command{
		Use:   "kg",
		Short: "kg — knowledge-graph memory server for coding agents",
		Long: "kg — knowledge-graph memory server for coding agents.\n\n" +
			"Plain kg (with or without settings) runs the server, as `kg serve` does. The other commands\n" +
			"talk to the running server when one holds the storage root, and work on the root's files\n" +
			"when none does.",
		Version:           readBuildInfo().Version,
		SilenceErrors:     true, // run prints the one line
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	serveOn(root, e)
	root.Args = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("unknown command %q; commands: %s", args[0], strings.Join(commandNames(c), ", "))
		if s := c.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return config.Usagef("%s", msg)
	}
	root.AddCommand(
		newServeCommand(e),
		newMCPCommand(e),
		newHookCommand(e),
		newInstallCommand(e),
		newCompactCommand(e),
		newHistoryCommand(e),
		newUndoCommand(e),
		newExportCommand(e),
		newImportCommand(e),
		newMigrateCommand(e),
		newProjectCommand(e),
		newDoctorCommand(e),
		newStatusCommand(e),
		newTokenCommand(e),
		newVersionCommand(e),
	)
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return config.Usagef("%v", err) })
	root.SetUsageFunc(usage)
	root.SetVersionTemplate(versionText(readBuildInfo()))
	return root
}

// commandNames lists the commands a person can run, sorted.
func commandNames(c *cobra.Command) []string {
	var ns []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			ns = append(ns, sub.Name())
		}
	}
	sort.Strings(ns)
	return ns
}

// usage prints how to call c: its usage lines, its subcommands, its own
// flags, then the settings (the configuration table) it reads.
func usage(c *cobra.Command) error {
	w := c.OutOrStderr()
	fmt.Fprintf(w, "Usage:\n")
	if c.Runnable() {
		fmt.Fprintf(w, "  %s\n", c.UseLine())
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "  %s <command>\n\nCommands:\n", c.CommandPath())
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				fmt.Fprintf(w, "  %-9s %s\n", sub.Name(), sub.Short)
			}
		}
	}
	own := pflag.NewFlagSet(c.Name(), pflag.ContinueOnError)
	set := pflag.NewFlagSet(c.Name(), pflag.ContinueOnError)
	own.SortFlags, set.SortFlags = false, false
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if _, ok := f.Annotations[config.Annotation]; ok {
			set.AddFlag(f)
		} else {
			own.AddFlag(f)
		}
	})
	if own.HasAvailableFlags() {
		fmt.Fprintf(w, "\nFlags:\n%s", own.FlagUsages())
	}
	if set.HasAvailableFlags() {
		fmt.Fprintf(w, "\nSettings (a flag wins over its environment variable, which wins over the default):\n%s", set.FlagUsages())
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\nRun `%s <command> --help` for the flags of a command.\n", c.CommandPath())
	}
	return nil
}

// noArgs refuses arguments with a usage error.
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return config.Usagef("unexpected argument %q", args[0])
	}
	return nil
}

// exactArgs wants one argument per name, and says which is missing.
func exactArgs(names ...string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		switch {
		case len(args) < len(names):
			return config.Usagef("missing %s", strings.Join(names[len(args):], " and "))
		case len(args) > len(names):
			return config.Usagef("unexpected argument %q", args[len(names)])
		}
		return nil
	}
}

// wantSubcommand is the RunE of a command that only groups others: called
// alone, or with a word that names none of them, it is bad usage.
func wantSubcommand(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return config.Usagef("unknown command %q; want %s", args[0], strings.Join(commandNames(c), " or "))
	}
	return config.Usagef("want a command: %s", strings.Join(commandNames(c), " or "))
}

// printJSON writes v for a program to read (a command's --json): indented by
// two spaces, one value per line.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
