package main

// kg history and kg undo (docs/operations.md#history-and-undo).

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/cmd/kg/internal/apiclient"
	"github.com/kg-memory/kg/cmd/kg/internal/config"
	"github.com/kg-memory/kg/cmd/kg/internal/project"
	"github.com/kg-memory/kg/cmd/kg/internal/report"
	"github.com/kg-memory/kg/cmd/kg/internal/store"
	"github.com/kg-memory/kg/domain"
)

// parseSince reads --since: a Go duration (90m, 2h30m) or a whole number
// of days (3d).
func parseSince(v string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(v, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 1 {
			return 0, config.Usagef("invalid --since %q: want a duration such as 90m, 2h or 3d", v)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, config.Usagef("invalid --since %q: want a duration such as 90m, 2h or 3d", v)
	}
	return d, nil
}

func newHistoryCommand(e env) *cobra.Command {
	var session, since string
	var limit int
	var asJSON bool
	var graph graphFlags
	c := &cobra.Command{
		Use:   "history [ID]",
		Short: "show a graph's change log, newest first, with what each change did",
		Long: "Shows the change log of one graph, newest first: each change's seq, time, session, what it did and a\n" +
			"readable diff of gist, notes, touches and edges. ID shows one node's changes (and its edges');\n" +
			"--session one session's; --since only the last DURATION (90m, 2h, 3d). The log keeps KG_HISTORY_DAYS\n" +
			"days. Through the running server when one holds the root (GET /api/history), else on the files.",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 1 {
				return config.Usagef("unexpected argument %q: kg history takes at most one node id", args[1])
			}
			return nil
		},
	}
	c.Flags().StringVar(&session, "session", "", "show only the changes of `session`")
	c.Flags().StringVar(&since, "since", "", "show only the changes of the last `duration` (90m, 2h, 3d)")
	c.Flags().IntVar(&limit, "limit", app.DefaultHistoryLimit, fmt.Sprintf("show at most `n` changes (1 to %d)", app.MaxHistoryLimit))
	c.Flags().BoolVar(&asJSON, "json", false, "print the entries as JSON (the shape of GET /api/history)")
	graph.bind(c)
	settings := bindSettings(c.Flags(), e.home)
	c.RunE = func(c *cobra.Command, args []string) error {
		key, err := graph.key()
		if err != nil {
			return err
		}
		if limit < 1 || limit > app.MaxHistoryLimit {
			return config.Usagef("invalid --limit %d: want 1 to %d", limit, app.MaxHistoryLimit)
		}
		req := app.HistoryRequest{Scope: app.Scope{Level: key.Level, ProjectPath: key.Project}, Session: session, Limit: limit}
		if len(args) == 1 {
			req.ID = args[0]
		}
		if since != "" {
			d, err := parseSince(since)
			if err != nil {
				return err
			}
			req.Since = domain.Micros(d.Microseconds())
		}
		cfg, err := commandConfig(e, settings)
		if err != nil {
			return err
		}
		var out apijson.History
		err = throughServerOrFiles(c.Context(), e, cfg, key, func(srv *apiclient.Client) error {
			q := scopeQuery(key)
			q.Set("limit", strconv.Itoa(limit))
			for name, v := range map[string]string{"id": req.ID, "session_id": session} {
				if v != "" {
					q.Set(name, v)
				}
			}
			if req.Since > 0 {
				q.Set("since", (time.Duration(req.Since) * time.Microsecond).String())
			}
			return srv.Call(c.Context(), "GET", "/api/history", q, nil, &out)
		}, func(svc *app.Service) error {
			res, err := svc.History(c.Context(), req)
			out = apijson.HistoryOf(res)
			return err
		})
		if err != nil {
			return err
		}
		if asJSON {
			return printJSON(c.OutOrStdout(), out)
		}
		report.History(c.OutOrStdout(), key, out)
		return nil
	}
	return c
}

// throughServerOrFiles runs viaServer when a server holds the root, else
// viaFiles on an app opened on the files under the root's lock (closed,
// and so saved, before it returns).
func throughServerOrFiles(ctx context.Context, e env, cfg config.Config, key domain.GraphKey,
	viaServer func(*apiclient.Client) error, viaFiles func(*app.Service) error) error {
	srv, _, err := apiclient.RootServer(ctx, cfg.Root, cfg.AuthToken)
	if err != nil {
		return err
	}
	if srv != nil {
		if key.Level == domain.LevelProject {
			known, err := project.OfServer(ctx, srv)
			if err != nil {
				return err
			}
			if err := project.RequireKnown(key, cfg.Root, known); err != nil {
				return err
			}
		}
		return viaServer(srv)
	}
	if err := store.RequireRoot(cfg.Root); err != nil {
		return err
	}
	log := commandLogger(e, cfg)
	st, closeStorage, err := openOffline(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeStorage()
	if err := project.RequireStored(ctx, st, key, cfg.Root); err != nil {
		return err
	}
	svc, closeApp, err := initApp(ctx, cfg, st, log)
	if err != nil {
		return err
	}
	defer closeApp()
	if err := viaFiles(svc); err != nil {
		return err
	}
	closeCtx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	return svc.Close(closeCtx)
}

func newUndoCommand(e env) *cobra.Command {
	var session, seqs, by string
	var dryRun, asJSON bool
	var graph graphFlags
	c := &cobra.Command{
		Use:   "undo (--session S | --seqs FROM-TO)",
		Short: "put back what a session (or a seq range) changed, skipping what others changed since",
		Long: "Puts back, item by item, the state each node and edge had before the changes of one session (or of\n" +
			"the seqs FROM to TO), as new writes that sessions see through kg_sync and the web page through /ws.\n" +
			"An item someone else changed since is left as it is and named. --session covers every graph the\n" +
			"session wrote (the user graph and its project), each in its own commit; --level or --project narrows it\n" +
			"to one graph. --seqs names one graph (the user graph unless --project). --dry-run shows the plan and\n" +
			"changes nothing. Through the running server when one holds the root (POST /api/undo), else on the files.",
		Args: noArgs,
	}
	c.Flags().StringVar(&session, "session", "", "undo the changes of `session`")
	c.Flags().StringVar(&seqs, "seqs", "", "undo the changes whose seqs lie in `FROM-TO` (both included)")
	c.Flags().StringVar(&by, "by-session", "", "the `session` the undo's writes are made by (default none)")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "show what the undo would do, changing nothing")
	c.Flags().BoolVar(&asJSON, "json", false, "print the plan as JSON (the shape of POST /api/undo)")
	graph.bind(c)
	settings := bindSettings(c.Flags(), e.home)
	c.RunE = func(c *cobra.Command, _ []string) error {
		// A session's undo covers every graph it wrote unless --level or
		// --project narrows it (docs/design/trust.md#undo); a seq range
		// names one graph, the user graph by default.
		var key domain.GraphKey
		if seqs != "" || graph.level != "" || graph.project != "" {
			var err error
			if key, err = graph.key(); err != nil {
				return err
			}
		}
		req := app.UndoRequest{Scope: app.Scope{Level: key.Level, ProjectPath: key.Project, SessionID: by}, Session: session, DryRun: dryRun}
		if err := undoWhat(&req, session, seqs); err != nil {
			return err
		}
		cfg, err := commandConfig(e, settings)
		if err != nil {
			return err
		}
		var out apijson.Undo
		err = throughServerOrFiles(c.Context(), e, cfg, key, func(srv *apiclient.Client) error {
			return srv.Call(c.Context(), "POST", "/api/undo", url.Values{}, undoBody(req), &out)
		}, func(svc *app.Service) error {
			res, err := svc.Undo(c.Context(), req)
			out = apijson.UndoResultOf(res)
			return err
		})
		if err != nil {
			return err
		}
		if asJSON {
			return printJSON(c.OutOrStdout(), out)
		}
		report.Undo(c.OutOrStdout(), out)
		return nil
	}
	return c
}

// undoWhat sets what req undoes: the session, or the seqs FROM-TO; exactly
// one of them must be given.
func undoWhat(req *app.UndoRequest, session, seqs string) error {
	switch {
	case session != "" && seqs != "":
		return config.Usagef("give --session or --seqs, not both")
	case session == "" && seqs == "":
		return config.Usagef("kg undo needs --session S or --seqs FROM-TO")
	case seqs != "":
		from, to, ok := strings.Cut(seqs, "-")
		f, err1 := strconv.ParseUint(from, 10, 64)
		t, err2 := strconv.ParseUint(to, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			return config.Usagef("invalid --seqs %q: want FROM-TO, two whole numbers such as 120-135", seqs)
		}
		req.Range, req.From, req.To = true, f, t
	}
	return nil
}

// undoBody is req as the body of POST /api/undo.
func undoBody(req app.UndoRequest) map[string]any {
	body := map[string]any{"dry_run": req.DryRun}
	if req.Scope.Level != "" {
		body["level"] = string(req.Scope.Level)
	}
	if req.Scope.ProjectPath != "" {
		body["project_path"] = req.Scope.ProjectPath
	}
	if req.Scope.SessionID != "" {
		body["by_session"] = req.Scope.SessionID
	}
	if req.Range {
		body["seq_range"] = map[string]uint64{"from": req.From, "to": req.To}
	} else {
		body["session_id"] = req.Session
	}
	return body
}
