package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/cmd/kg/internal/apiclient"
	"github.com/kg-memory/kg/cmd/kg/internal/config"
	"github.com/kg-memory/kg/cmd/kg/internal/project"
	"github.com/kg-memory/kg/cmd/kg/internal/store"
)

// newProjectCommand is `kg project list`, `kg project mv` and `kg project rm`.
func newProjectCommand(e env) *cobra.Command {
	c := &cobra.Command{
		Use:   "project",
		Short: "list the projects with memory, move a project's memory to a new path, or remove it",
		Args:  cobra.ArbitraryArgs,
		RunE:  wantSubcommand,
	}
	c.AddCommand(newProjectListCommand(e), newProjectMvCommand(e), newProjectRmCommand(e))
	return c
}

func newProjectRmCommand(e env) *cobra.Command {
	var force bool
	c := &cobra.Command{
		Use:   "rm PATH [--force]",
		Short: "remove a project's memory (an empty one, or any with --force)",
		Long: "Removes the memory stored for the project at PATH: its folder (json) or bucket (bolt), so that it is no\n" +
			"longer listed and its folder name is free. A project that holds anything (a node, an edge, a\n" +
			"tombstone, a progress state) is refused unless --force: `kg export --project PATH -o FILE` keeps a\n" +
			"copy first. Through the running server when one holds the root (DELETE /api/projects), which tells\n" +
			"the live clients; else on the files, under the root's lock.",
		Args: exactArgs("PATH"),
	}
	c.Flags().BoolVar(&force, "force", false, "remove the project even if it holds memory")
	settings := bindSettings(c.Flags(), e.home)
	c.RunE = func(c *cobra.Command, args []string) error {
		cfg, err := commandConfig(e, settings)
		if err != nil {
			return err
		}
		path, err := project.Path("PATH", args[0])
		if err != nil {
			return err
		}
		ctx := c.Context()
		var out struct {
			Removed string `json:"removed"`
			Nodes   int    `json:"nodes"`
			Edges   int    `json:"edges"`
			Stored  bool   `json:"stored"`
		}
		srv, _, err := apiclient.RootServer(ctx, cfg.Root, cfg.AuthToken)
		switch {
		case err != nil:
			return err
		case srv != nil:
			q := url.Values{"project_path": {path}}
			if force {
				q.Set("force", "true")
			}
			err = srv.Call(ctx, "DELETE", "/api/projects", q, nil, &out)
		default:
			var r app.RemovedProject
			r, err = removeOffline(ctx, e, cfg, path, force)
			out.Removed, out.Nodes, out.Edges, out.Stored = r.ProjectPath, r.Nodes, r.Edges, r.Stored
		}
		if err != nil {
			return err
		}
		if out.Nodes > 0 || out.Edges > 0 {
			printf(c, "removed the memory of %s: %d node(s), %d edge(s)\n", out.Removed, out.Nodes, out.Edges)
		} else {
			printf(c, "removed %s: it held no memory\n", out.Removed)
		}
		return nil
	}
	return c
}

// removeOffline removes a project through the app, as the server does,
// on the files under the root's lock.
func removeOffline(ctx context.Context, e env, cfg config.Config, path string, force bool) (app.RemovedProject, error) {
	if err := store.RequireRoot(cfg.Root); err != nil {
		return app.RemovedProject{}, err
	}
	log := commandLogger(e, cfg)
	st, closeStorage, err := openOffline(ctx, cfg, log)
	if err != nil {
		return app.RemovedProject{}, err
	}
	defer closeStorage()
	svc, closeApp, err := initApp(ctx, cfg, st, log)
	if err != nil {
		return app.RemovedProject{}, err
	}
	defer closeApp()
	return svc.RemoveProject(ctx, path, force)
}

func newProjectListCommand(e env) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "list",
		Short: "list the projects that have memory, with their counts per tier",
		Long: "Lists every project graph of the storage root: its folder (slug), its path, its nodes per tier, its\n" +
			"edges and when it last changed. Through the running server when one holds the root (GET\n" +
			"/api/projects), else from the files.",
		Args: noArgs,
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON, as GET /api/projects answers")
	settings := bindSettings(c.Flags(), e.home)
	c.RunE = func(c *cobra.Command, _ []string) error {
		cfg, err := commandConfig(e, settings)
		if err != nil {
			return err
		}
		ctx := c.Context()
		var out struct {
			Projects []apijson.Project `json:"projects"`
		}
		srv, _, err := apiclient.RootServer(ctx, cfg.Root, cfg.AuthToken)
		switch {
		case err != nil:
			return err
		case srv != nil:
			err = srv.Call(ctx, "GET", "/api/projects", nil, nil, &out)
		default:
			out.Projects, err = listOffline(ctx, e, cfg)
		}
		if err != nil {
			return err
		}
		if out.Projects == nil {
			out.Projects = []apijson.Project{}
		}
		if asJSON {
			return printJSON(c.OutOrStdout(), out)
		}
		if len(out.Projects) == 0 {
			printf(c, "no project has memory in %s\n", cfg.Root)
			return nil
		}
		w := tabwriter.NewWriter(c.OutOrStdout(), 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "SLUG\tPROJECT\tACTIVE\tARCHIVED\tORPHANED\tEDGES\tLAST CHANGE")
		for _, p := range out.Projects {
			last := "-"
			if p.LastChangeTS > 0 {
				last = time.UnixMicro(int64(p.LastChangeTS * 1e6)).Local().Format("2006-01-02 15:04")
			}
			fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%d\t%d\t%s\n", p.Slug, p.ProjectPath, p.Active, p.Archived, p.Orphaned, p.Edges, last)
		}
		return w.Flush()
	}
	return c
}

// listOffline lists the projects from the files, reading each graph
// without changing anything in the root (store.OpenReadOnly).
func listOffline(ctx context.Context, e env, cfg config.Config) ([]apijson.Project, error) {
	if err := store.RequireRoot(cfg.Root); err != nil {
		return nil, err
	}
	log := commandLogger(e, cfg)
	st, closeStorage, err := store.OpenReadOnly(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	defer closeStorage()
	stored, err := st.Graphs.List(ctx)
	if err != nil {
		return nil, err
	}
	var out []apijson.Project
	for _, sg := range stored {
		p := app.ProjectInfo{Slug: sg.Slug, ProjectPath: sg.Key.Project}
		if sg.Summary != nil {
			// The repository's summary row: no graph read
			// (docs/design/team.md#scale).
			p = app.ProjectInfoOfSummary(cfg.App.Policy, sg.Slug, sg.Key, *sg.Summary)
		} else if d, err := st.Graphs.Load(ctx, sg.Key); err != nil {
			log.Warn("project listed without counts", "project", sg.Key.Project, "err", err)
		} else {
			p = app.ProjectInfoOf(cfg.App.Policy, sg.Slug, sg.Key, d)
		}
		out = append(out, apijson.ProjectOf(p))
	}
	return out, nil
}

func newProjectMvCommand(e env) *cobra.Command {
	c := &cobra.Command{
		Use:   "mv OLD_PATH NEW_PATH",
		Short: "move a project's memory to a new path (the project folder moved or was renamed)",
		Long: "Gives the memory stored for the project at OLD_PATH to the project at NEW_PATH: its folder (or bolt\n" +
			"bucket) takes the name NEW_PATH gets, its graph records NEW_PATH, and the sessions of OLD_PATH follow\n" +
			"it. NEW_PATH must have no memory yet. It refuses while a server runs on the root.",
		Args: exactArgs("OLD_PATH", "NEW_PATH"),
	}
	settings := bindSettings(c.Flags(), e.home)
	c.RunE = func(c *cobra.Command, args []string) error {
		cfg, err := commandConfig(e, settings)
		if err != nil {
			return err
		}
		from, to, err := project.MovePaths(args[0], args[1])
		if err != nil {
			return err
		}
		ctx := c.Context()
		if err := store.RequireRoot(cfg.Root); err != nil {
			return err
		}
		release, err := lockOffline(ctx, cfg, "kg project mv")
		if err != nil {
			return err
		}
		defer release()
		log := commandLogger(e, cfg)
		st, closeStorage, err := openLocked(ctx, cfg, log)
		if err != nil {
			return err
		}
		defer closeStorage()
		already, err := project.MoveGraph(ctx, st, cfg.Storage, from, to)
		if err != nil {
			return err
		}
		if !already {
			if err := project.LogMove(ctx, st, from, to); err != nil {
				fmt.Fprintf(c.ErrOrStderr(), "kg project mv: the memory moved, but its change log entry could not be written: %v\n", err)
			}
		}
		n, err := project.MoveSessions(ctx, st.Sessions, from, to)
		if err != nil {
			return fmt.Errorf("the memory moved, but its sessions did not follow: %w (run the same command again)", err)
		}
		if already {
			printf(c, "the memory of %s is already at %s", from, to)
		} else {
			printf(c, "moved the memory of %s to %s", from, to)
		}
		printf(c, "; %d session(s) follow it\n", n)
		return nil
	}
	return c
}

// openLocked opens the root's backend on a root whose lock this process
// already holds, checking its marker as the server does.
func openLocked(ctx context.Context, cfg config.Config, log *slog.Logger) (store.Storage, func(), error) {
	b, ok := backendNamed(cfg.Storage)
	if !ok {
		return store.Storage{}, nil, fmt.Errorf("storage %q is not a backend", cfg.Storage)
	}
	if err := store.CheckMarker(cfg.Root, b.Name); err != nil {
		return store.Storage{}, nil, err
	}
	return b.Open(ctx, store.LockedRoot(cfg.Root), log)
}
