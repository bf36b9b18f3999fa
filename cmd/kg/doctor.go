package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kg-memory/kg/adapters/rootdir"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// kg doctor (docs/design/operations.md#kg-doctor): it checks the root and
// says, for each finding, how to fix it, in advice a test follows; it
// changes nothing, not even the lock file, and prints only its findings —
// what the stores it opens log goes nowhere.

// Levels of a finding, from harmless to what makes `kg doctor` exit 1.
const (
	levelOK    = "ok"
	levelInfo  = "info"
	levelWarn  = "warn"
	levelError = "error"
)

// finding is one thing `kg doctor` saw, and how to fix it.
type finding struct {
	Level   string `json:"level"`
	Subject string `json:"subject"` // a file, folder or part of the root
	Problem string `json:"problem"`
	Fix     string `json:"fix,omitempty"`
}

// checkup collects the findings of one run.
type checkup struct {
	root     string
	findings []finding
	content  contentChecks // what of the graphs' content to look at (--secrets, …)
}

func (c *checkup) add(level, subject, problem, fix string) {
	c.findings = append(c.findings, finding{Level: level, Subject: subject, Problem: problem, Fix: fix})
}

// rel names a path under the root as the root's layout does.
func (c *checkup) rel(p string) string {
	if r, err := filepath.Rel(c.root, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// quiet is the logger of the stores doctor opens: their log lines are not
// findings (doctor says what they mean in its own words).
var quiet = slog.New(slog.DiscardHandler)

func newDoctorCommand(e env) *cobra.Command {
	var asJSON bool
	var content contentChecks
	c := &cobra.Command{
		Use:   "doctor",
		Short: "check the storage root and say how to fix each finding",
		Long: "Checks the storage root without changing anything in it: the backend marker, the lock and the server\n" +
			"that holds it, that every graph and the sessions load (and from which file), damaged journals (the\n" +
			"line and byte where), damaged pages of kg.db, schema versions, stray temporary files, damaged files\n" +
			"kept aside, pending alias moves, projects that hold nothing and projects whose folder is gone. Each\n" +
			"finding says how to fix it. Exits 1 when a finding is an error. While no server runs, it holds a shared\n" +
			"lock on the root, so none starts meanwhile. --secrets scans what every graph holds for credentials,\n" +
			"--duplicates lists the nodes that may say one thing, --stale the nodes whose recorded project files changed\n" +
			"or vanished (docs/design/trust.md).",
		Args: noArgs,
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the findings as JSON")
	content.bind(c)
	settings := bindSettings(c.Flags(), e.home)
	c.RunE = func(c *cobra.Command, _ []string) error {
		cfg, err := commandConfig(e, settings)
		if err != nil {
			return err
		}
		if cfg.Storage == "postgres" {
			problems, err := teamReport(c, e, cfg)
			if err != nil {
				return err
			}
			for _, p := range problems {
				printf(c, "problem: %s\n", p)
			}
			if len(problems) > 0 {
				return &exitError{code: exitFailure}
			}
			printf(c, "no problem found\n")
			return nil
		}
		ck := &checkup{root: cfg.Root, content: content}
		if err := ck.run(c.Context(), e, cfg); err != nil {
			return err
		}
		errs := 0
		for _, f := range ck.findings {
			if f.Level == levelError {
				errs++
			}
		}
		if asJSON {
			enc := json.NewEncoder(c.OutOrStdout())
			enc.SetIndent("", "  ")
			if err := enc.Encode(struct {
				Root     string    `json:"storage_root"`
				Findings []finding `json:"findings"`
			}{cfg.Root, ck.findings}); err != nil {
				return err
			}
		} else {
			printf(c, "kg doctor: %s\n", cfg.Root)
			for _, f := range ck.findings {
				printf(c, "%-5s  %s: %s\n", f.Level, f.Subject, f.Problem)
				if f.Fix != "" {
					printf(c, "       fix: %s\n", f.Fix)
				}
			}
		}
		if errs > 0 {
			return &exitError{code: exitFailure}
		}
		return nil
	}
	return c
}

// run makes every check.
func (c *checkup) run(ctx context.Context, e env, cfg Config) error {
	if err := requireRoot(cfg.Root); err != nil {
		return err
	}
	backend := c.checkMarker(cfg)

	// Who holds the root decides what may be read: while a server runs,
	// the json files can be read (they are replaced atomically) but the
	// bolt file is the server's.
	served := false
	h := rootdir.ReadHolder(cfg.Root)
	srv, hl, err := rootServer(ctx, cfg)
	switch {
	case err != nil:
		c.add(levelWarn, rootdir.LockName, fmt.Sprintf("the server of pid %d at %s answers with an error: %v", h.PID, h.Addr, err),
			"give the server's token with --auth-token or KG_AUTH_TOKEN")
		served = true
	case srv != nil:
		served = true
		c.add(levelOK, rootdir.LockName, fmt.Sprintf("held by the server of pid %d at %s (kg %s, %s)", h.PID, srv.URL(), hl.Version, hl.Status), "")
		for _, p := range hl.Problems {
			c.add(levelError, "server", p, "stop the server and run kg doctor again: it then checks the files themselves and says how to fix each")
		}
	case h.Running() && h.Addr != "":
		served = true
		c.add(levelWarn, rootdir.LockName, fmt.Sprintf("pid %d holds the lock but nothing answers at %s", h.PID, h.Addr),
			fmt.Sprintf("if that kg hangs, stop it (kill %d); a kill -9 loses no acknowledged write", h.PID))
	default:
		// A shared lock: nothing is created or written, and no server
		// starts while the files are read.
		l, err := rootdir.Share(cfg.Root)
		if err != nil && strings.Contains(err.Error(), "symbolic link") {
			c.add(levelError, rootdir.LockName, err.Error(), "remove the link: `rm "+filepath.Join(cfg.Root, rootdir.LockName)+"`; kg creates the file at its next start")
			served = true
			break
		}
		if err != nil {
			c.add(levelWarn, rootdir.LockName, err.Error(), "run kg doctor again when it is done")
			served = true
			break
		}
		defer l.Release()
		c.add(levelOK, rootdir.LockName, "no server runs on the root", "")
	}

	bar := newProgress(e, "kg doctor")
	defer bar.finish()
	switch backend {
	case "bolt":
		if served {
			c.add(levelInfo, "kg.db", "not opened: the server holds it", "stop the server to check the file itself; its /health lists graphs that do not load")
			if c.content.any() && srv != nil {
				c.checkContentThroughServer(ctx, srv)
			}
		} else {
			c.checkBolt(ctx, bar)
		}
	case "json", "":
		c.checkJSON(ctx, bar, served)
	}
	c.checkRemoved()
	return nil
}

// checkMarker checks <root>/.backend and returns the backend the root
// holds ("" when it holds nothing yet).
func (c *checkup) checkMarker(cfg Config) string {
	have, err := rootBackend(cfg.Root)
	if err != nil && strings.Contains(err.Error(), "symbolic link") {
		c.add(levelError, rootdir.BackendName, err.Error(),
			"remove the link: `rm "+filepath.Join(cfg.Root, rootdir.BackendName)+"`; kg writes the marker again at its next start")
		return ""
	}
	if err != nil {
		c.add(levelError, rootdir.BackendName, err.Error(),
			fmt.Sprintf("write the backend the root holds into it: `echo json > %s` (or bolt, when the root holds kg.db)", filepath.Join(cfg.Root, rootdir.BackendName)))
		return ""
	}
	marked, _ := rootdir.Backend(cfg.Root)
	switch {
	case have == "":
		c.add(levelInfo, rootdir.BackendName, "the root holds no memory yet", "nothing to do: the server records its backend at its first start")
	case marked == "":
		c.add(levelInfo, rootdir.BackendName, "missing; the files say "+have,
			"nothing to do: the server writes it at its next start (or `kg migrate --to "+have+"` now)")
	default:
		c.add(levelOK, rootdir.BackendName, have, "")
	}
	for _, b := range backends() {
		if b.inRoot && b.name != have && b.holds != nil && b.holds(cfg.Root) {
			c.add(levelInfo, cfg.Root, "also holds "+b.name+" data, not in use (a copy kg migrate kept)",
				"keep it as a backup, or delete it once the "+have+" data has served you well")
		}
	}
	return have
}

func (c *checkup) graphSummary(d domain.GraphData) string {
	if d.Empty() {
		return "empty"
	}
	return fmt.Sprintf("%d node(s), %d edge(s), schema %d", len(d.Nodes), len(d.Edges), max(d.Schema, 1))
}

// checkSchema says what an old or newer schema means.
func (c *checkup) checkSchema(name string, d domain.GraphData, backend string) {
	switch {
	case d.Empty():
	case d.Schema < domain.SchemaVersion:
		c.add(levelInfo, name, fmt.Sprintf("schema %d, as the replaced server wrote it", max(d.Schema, 1)),
			fmt.Sprintf("nothing to do: kg writes schema %d at the graph's next save (`kg migrate --to %s` does it now)", domain.SchemaVersion, backend))
	case d.Schema > domain.SchemaVersion:
		c.add(levelError, name, fmt.Sprintf("schema %d, newer than this kg reads (%d)", d.Schema, domain.SchemaVersion),
			"run the kg that wrote it (`kg version` says which this is)")
	}
}

// checkProject notices a project whose folder is gone (its memory is kept
// under a path no agent will start in) and one that holds nothing (an older
// kg wrote such a graph for a mere visit).
func (c *checkup) checkProject(project string, d domain.GraphData) {
	if _, err := os.Stat(project); errors.Is(err, fs.ErrNotExist) {
		c.add(levelInfo, "project "+project, "the folder no longer exists",
			"if the project moved, `kg project mv "+project+" NEW_PATH` gives it its memory; if it is gone for good, `kg project rm "+
				project+" --force` removes its memory (`kg export --project "+project+" -o FILE` keeps a copy); or leave it")
	}
	g, _ := domain.Restore(domain.ProjectGraph(project), d, domain.RestoreOptions{})
	if g.HoldsNothing() {
		c.add(levelInfo, "project "+project, "holds nothing: a graph an older kg stored for a mere visit (a session, a read), which keeps its folder name taken",
			"`kg project rm "+project+"` removes it")
	}
}

// checkSessions notices sessions of projects whose folder is gone.
func (c *checkup) checkSessions(name string, sessions map[string]ports.Session) {
	gone := map[string]int{}
	for _, s := range sessions {
		if s.ProjectPath == "" {
			continue
		}
		if _, err := os.Stat(s.ProjectPath); errors.Is(err, fs.ErrNotExist) {
			gone[s.ProjectPath]++
		}
	}
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for p := range gone {
			if !yield(p) {
				return
			}
		}
	}) {
		c.add(levelInfo, name, fmt.Sprintf("%d session(s) of %s, whose folder no longer exists", gone[p], p),
			"nothing to do: sessions expire by themselves (--session-ttl)")
	}
}

// checkRemoved names the folders a `kg project rm` left when it stopped
// between moving a project's folder out of projects/ and deleting it.
func (c *checkup) checkRemoved() {
	entries, err := os.ReadDir(c.root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), removedPrefix) {
			p := filepath.Join(c.root, e.Name())
			c.add(levelInfo, e.Name(), "the folder of a project `kg project rm` removed, left by a run that stopped before deleting it; nothing reads it",
				"delete it: `rm -r "+p+"`")
		}
	}
}
