package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	khttp "github.com/kg-memory/kg/adapters/http"
	"github.com/kg-memory/kg/adapters/rootdir"
	"github.com/kg-memory/kg/cmd/kg/internal/apiclient"
	"github.com/kg-memory/kg/cmd/kg/internal/config"
)

// newStatusCommand is `kg status`.
func newStatusCommand(e env) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "status",
		Short: "whether a server answers: its version, storage, sessions, graphs (exit 1 if none, or degraded)",
		Long: "Asks the server that holds the storage root (found through the root's lock file), or else the one\n" +
			"at --host/--port, how it is. Exits 1 when none answers, and when it answers degraded (a graph that\n" +
			"cannot be loaded or saved), after printing its problems.",
		Args: noArgs,
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the server's /health answer and its URL as JSON")
	settings := bindSettings(c.Flags(), e.home)
	c.RunE = func(c *cobra.Command, _ []string) error {
		cfg, err := commandConfig(e, settings)
		if err != nil {
			return err
		}
		if cfg.Storage == "postgres" {
			return teamStatus(c, e, cfg)
		}
		client, h, holds, err := answeringServer(c.Context(), e, cfg)
		if err != nil {
			return err
		}
		if asJSON {
			out := struct {
				URL         string `json:"url"`
				ServesRoot  bool   `json:"serves_root"`
				StorageRoot string `json:"storage_root"`
				PID         int    `json:"pid,omitempty"`
				khttp.Health
			}{URL: client.URL(), ServesRoot: holds, StorageRoot: cfg.Root, Health: h}
			if holds {
				out.PID = rootdir.ReadHolder(cfg.Root).PID
			}
			if err := printJSON(e.stdout, out); err != nil {
				return err
			}
			return degraded(e, h)
		}
		printStatus(e, cfg, client, h, holds)
		return degraded(e, h)
	}
	return c
}

// teamStatus reports on a team database: its problems on stderr, and exit
// 1 when there are any.
func teamStatus(c *cobra.Command, e env, cfg config.Config) error {
	problems, err := teamReport(c, e, cfg)
	if err != nil {
		return err
	}
	for _, p := range problems {
		fmt.Fprintln(e.stderr, p)
	}
	if len(problems) > 0 {
		return &exitError{code: exitFailure}
	}
	return nil
}

// answeringServer finds the server that holds the root (holds), else the
// one at the configured address, and its health; with neither it says so
// and exits 1.
func answeringServer(ctx context.Context, e env, cfg config.Config) (client *apiclient.Client, h khttp.Health, holds bool, err error) {
	client, h, err = apiclient.RootServer(ctx, cfg.Root, cfg.AuthToken)
	if err != nil || client != nil {
		return client, h, client != nil, err
	}
	// No server holds this root; one may still answer at the configured
	// address or URL, serving another root.
	client = apiclient.New(cfg.Addr(), cfg.AuthToken)
	if cfg.ServerURL != "" {
		client = apiclient.NewURL(cfg.ServerURL, cfg.AuthToken)
	}
	if h, err = client.Health(ctx); err != nil {
		var ae *apiclient.Error
		if errors.As(err, &ae) {
			return nil, h, false, err
		}
		if cfg.ServerURL != "" {
			fmt.Fprintf(e.stderr, "no kg server answers: none holds %s, and %v\n", cfg.Root, remoteSilent(cfg, err))
			return nil, h, false, &exitError{code: exitFailure}
		}
		fmt.Fprintf(e.stderr, "no kg server answers: none holds %s, and nothing answers at %s; start one with `kg serve`\n",
			cfg.Root, client.URL())
		return nil, h, false, &exitError{code: exitFailure}
	}
	return client, h, false, nil
}

// printStatus writes the server's health as lines for a person.
func printStatus(e env, cfg config.Config, client *apiclient.Client, h khttp.Health, holds bool) {
	fmt.Fprintf(e.stdout, "kg %s answers at %s\n", h.Version, client.URL())
	fmt.Fprintf(e.stdout, "status    %s\n", h.Status)
	for _, p := range h.Problems {
		fmt.Fprintf(e.stdout, "problem   %s\n", p)
	}
	if holds {
		fmt.Fprintf(e.stdout, "root      %s (pid %d)\n", cfg.Root, rootdir.ReadHolder(cfg.Root).PID)
	} else {
		fmt.Fprintf(e.stdout, "root      another one: no server holds %s\n", cfg.Root)
	}
	fmt.Fprintf(e.stdout, "storage   %s\n", h.Storage)
	fmt.Fprintf(e.stdout, "sessions  %d active\n", h.ActiveSessions)
	fmt.Fprintf(e.stdout, "graphs    %d loaded\n", h.LoadedGraphs)
	fmt.Fprintf(e.stdout, "uptime    %s\n", time.Duration(h.UptimeS)*time.Second)
}

// degraded ends kg status with exit 1 when the server is not ok, saying so
// on stderr with its problems, so that a script or a monitor that checks
// the exit status learns of a graph that does not load or save.
func degraded(e env, h khttp.Health) error {
	if h.Status == "ok" {
		return nil
	}
	fmt.Fprintf(e.stderr, "kg status: the server is %s: %s\n", h.Status, strings.Join(h.Problems, "; "))
	return &exitError{code: exitFailure}
}
