package main

import (
	"context"
	"net/url"

	"github.com/spf13/cobra"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/cmd/kg/internal/apiclient"
	"github.com/kg-memory/kg/cmd/kg/internal/config"
	"github.com/kg-memory/kg/cmd/kg/internal/project"
	"github.com/kg-memory/kg/cmd/kg/internal/report"
	"github.com/kg-memory/kg/cmd/kg/internal/store"
	"github.com/kg-memory/kg/domain"
	graphcompaction "github.com/kg-memory/kg/domain/compaction" // its own compaction is what kg compact prints
	"github.com/kg-memory/kg/ports"
)

// graphFlags are the flags that name one graph: --level and --project.
type graphFlags struct {
	level, project string
}

func (g *graphFlags) bind(c *cobra.Command) {
	c.Flags().StringVar(&g.level, "level", "", "`level` of the graph: user or project (default project when --project is given, else user)")
	c.Flags().StringVar(&g.project, "project", "", "project `folder` whose graph to use (absolute or relative to here)")
}

// key returns the graph the flags name.
func (g *graphFlags) key() (domain.GraphKey, error) {
	level := g.level
	if level == "" {
		level = string(domain.LevelUser)
		if g.project != "" {
			level = string(domain.LevelProject)
		}
	}
	switch domain.Level(level) {
	case domain.LevelUser:
		if g.project != "" {
			return domain.GraphKey{}, config.Usagef("--level user takes no --project")
		}
		return domain.UserGraph, nil
	case domain.LevelProject:
		if g.project == "" {
			return domain.GraphKey{}, config.Usagef("--level project needs --project PATH")
		}
		p, err := project.Path("--project", g.project)
		if err != nil {
			return domain.GraphKey{}, err
		}
		return domain.ProjectGraph(p), nil
	}
	return domain.GraphKey{}, config.Usagef("invalid --level %q: want user or project", g.level)
}

// scopeQuery names a graph in the query of a REST request.
func scopeQuery(k domain.GraphKey) url.Values {
	q := url.Values{"level": {string(k.Level)}}
	if k.Project != "" {
		q.Set("project_path", k.Project)
	}
	return q
}

func newCompactCommand(e env) *cobra.Command {
	var dryRun, asJSON bool
	var graph graphFlags
	c := &cobra.Command{
		Use:   "compact",
		Short: "run compaction on one graph now, printing every move with its reason",
		Long: "Runs one compaction run of one graph now and prints every move with its reason (scores, budget).\n" +
			"--dry-run shows what a run would do and changes nothing. Through the running server when one holds\n" +
			"the root (POST /api/compaction/run, GET /api/compaction/plan), else on the files, under the root's lock.",
		Args: noArgs,
	}
	c.Flags().BoolVar(&dryRun, "dry-run", false, "show what a run would do, changing nothing")
	c.Flags().BoolVar(&asJSON, "json", false, "print the moves as JSON")
	graph.bind(c)
	settings := bindSettings(c.Flags(), e.home)
	c.RunE = func(c *cobra.Command, _ []string) error {
		key, err := graph.key()
		if err != nil {
			return err
		}
		cfg, err := commandConfig(e, settings)
		if err != nil {
			return err
		}
		ctx := c.Context()
		out := report.Compaction{Level: string(key.Level), DryRun: dryRun}
		if key.Project != "" {
			out.Project = &key.Project
		}
		srv, h, err := apiclient.RootServer(ctx, cfg.Root, cfg.AuthToken)
		if err == nil && srv != nil {
			err = settings.CheckServerRunsWith(srv, h, cfg, e.getenv, compactionSettings)
		}
		if err == nil && srv != nil && key.Level == domain.LevelProject {
			var known []string
			if known, err = project.OfServer(ctx, srv); err == nil {
				err = project.RequireKnown(key, cfg.Root, known)
			}
		}
		switch {
		case err != nil:
			return err
		case srv != nil && dryRun:
			err = srv.Call(ctx, "GET", "/api/compaction/plan", scopeQuery(key), nil, &out.Moves)
		case srv != nil:
			err = srv.Call(ctx, "POST", "/api/compaction/run", scopeQuery(key), nil, &out.Moves)
		default:
			var m graphcompaction.Moves
			m, err = compactOffline(ctx, e, cfg, key, dryRun)
			out.Moves = apijson.MovesOf(m)
		}
		if err != nil {
			return err
		}
		if asJSON {
			return printJSON(c.OutOrStdout(), out)
		}
		report.Moves(c.OutOrStdout(), key, out)
		return nil
	}
	return c
}

// compactOffline runs compaction on the stored graph as the server runs it
// when it loads a graph: restored above every session's watermark,
// compacted at the current time with the configured policy, and saved
// when anything moved. A dry run saves nothing.
func compactOffline(ctx context.Context, e env, cfg config.Config, key domain.GraphKey, dryRun bool) (graphcompaction.Moves, error) {
	if err := store.RequireRoot(cfg.Root); err != nil {
		return graphcompaction.Moves{}, err
	}
	open := openOffline
	if dryRun {
		open = store.OpenReadOnly // a dry run leaves the root as it found it
	}
	st, closeStorage, err := open(ctx, cfg, commandLogger(e, cfg))
	if err != nil {
		return graphcompaction.Moves{}, err
	}
	defer closeStorage()
	if err := project.RequireStored(ctx, st, key, cfg.Root); err != nil {
		return graphcompaction.Moves{}, err
	}
	g, data, err := loadGraph(ctx, st, key)
	if err != nil {
		return graphcompaction.Moves{}, err
	}
	now := clock.System{}.Now()
	if dryRun {
		return graphcompaction.Plan(g, now, cfg.App.Policy), nil
	}
	m := graphcompaction.Run(g, now, cfg.App.Policy)
	if !g.Pending().Empty() && !data.Empty() {
		if err := st.Graphs.Commit(ctx, key, g, g.Pending()); err != nil {
			return graphcompaction.Moves{}, err
		}
	}
	return m, nil
}

// loadGraph loads a stored graph as the server does: restored so that it
// hands out no seq a session has already seen.
func loadGraph(ctx context.Context, st store.Storage, key domain.GraphKey) (*domain.Graph, domain.GraphData, error) {
	sessions, err := st.Sessions.LoadSessions(ctx)
	if err != nil {
		return nil, domain.GraphData{}, err
	}
	data, err := st.Graphs.Load(ctx, key)
	if err != nil {
		return nil, domain.GraphData{}, err
	}
	g, _ := domain.Restore(key, data, domain.RestoreOptions{MinSeq: maxWatermark(sessions, key)})
	return g, data, nil
}

// maxWatermark is the highest seq of key any session has seen.
func maxWatermark(sessions map[string]ports.Session, key domain.GraphKey) uint64 {
	var m uint64
	for _, s := range sessions {
		m = max(m, s.Synced[key])
	}
	return m
}
