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
	"sync"

	"github.com/spf13/cobra"

	"github.com/kg-memory/kg/adapters/rootdir"
	"github.com/kg-memory/kg/adapters/storage/bolt"
	"github.com/kg-memory/kg/adapters/storage/jsonfile"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

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

func newDoctorCommand(e env) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "doctor",
		Short: "check the storage root and say how to fix each finding",
		Long: "Checks the storage root without changing it: the backend marker, the lock and the server that holds\n" +
			"it, that every graph and the sessions load (and from which version), schema versions, stray\n" +
			"temporary files and damaged files kept aside, and projects whose folder is gone. Each finding says\n" +
			"how to fix it. Exits 1 when a finding is an error. While no server runs, it holds the root's lock.",
		Args: noArgs,
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the findings as JSON")
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
		ck := &checkup{root: cfg.Root}
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
	switch srv, hl, err := rootServer(ctx, cfg); {
	case err != nil:
		c.add(levelWarn, rootdir.LockName, fmt.Sprintf("the server of pid %d at %s answers with an error: %v", h.PID, h.Addr, err),
			"give the server's token with --auth-token or KG_AUTH_TOKEN")
		served = true
	case srv != nil:
		served = true
		c.add(levelOK, rootdir.LockName, fmt.Sprintf("held by the server of pid %d at %s (kg %s, %s)", h.PID, srv.URL(), hl.Version, hl.Status), "")
		for _, p := range hl.Problems {
			c.add(levelError, "server", p, "see the graph's file below; restore it from a backup or the .prev kept beside it")
		}
	case h.Running() && h.Addr != "":
		served = true
		c.add(levelWarn, rootdir.LockName, fmt.Sprintf("pid %d holds the lock but nothing answers at %s", h.PID, h.Addr),
			fmt.Sprintf("if that kg hangs, stop it (kill %d); a kill -9 loses no acknowledged write", h.PID))
	default:
		l, err := rootdir.Acquire(cfg.Root, "")
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
			c.add(levelInfo, bolt.FileName, "not opened: the server holds it", "stop the server to check the file itself; its /health lists graphs that do not load")
		} else {
			c.checkBolt(ctx, bar)
		}
	case "json", "":
		c.checkJSON(ctx, bar, served)
	}
	return nil
}

// checkMarker checks <root>/.backend and returns the backend the root
// holds ("" when it holds nothing yet).
func (c *checkup) checkMarker(cfg Config) string {
	have, err := rootBackend(cfg.Root)
	if err != nil {
		c.add(levelError, rootdir.BackendName, err.Error(), "write the backend the root holds into it: "+backendNames())
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

// capture keeps the warnings and errors a store logs while it loads.
type capture struct {
	mu      sync.Mutex
	records []string
}

func (h *capture) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (h *capture) WithAttrs([]slog.Attr) slog.Handler           { return h }
func (h *capture) WithGroup(string) slog.Handler                { return h }
func (h *capture) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, "; %s=%v", a.Key, a.Value)
		return true
	})
	h.mu.Lock()
	h.records = append(h.records, b.String())
	h.mu.Unlock()
	return nil
}

// take returns what was logged since the last take.
func (h *capture) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.records
	h.records = nil
	return out
}

// readOnly is the file system of a store that may read and never write:
// a load that would set a damaged file aside, or apply an alias, fails
// instead, and doctor reports why.
type readOnly struct{ jsonfile.FS }

var errReadOnly = errors.New("kg doctor changes nothing")

func (readOnly) Create(string) (jsonfile.File, error) { return nil, errReadOnly }
func (readOnly) Append(string) (jsonfile.File, error) { return nil, errReadOnly }
func (readOnly) Rename(string, string) error          { return errReadOnly }
func (readOnly) Link(string, string) error            { return errReadOnly }
func (readOnly) Remove(string) error                  { return errReadOnly }
func (readOnly) Mkdir(string, fs.FileMode) error      { return errReadOnly }
func (readOnly) SyncDir(string) error                 { return errReadOnly }

const fixDamaged = "the server loads the .prev kept beside it and sets the damaged file aside as .corrupt-<time>; " +
	"if neither loads, restore the file from a backup (docs/operations.md) or `kg import` an export"

// checkJSON loads every graph and the sessions of a json root through a
// store that cannot write, and looks for leftovers beside them.
func (c *checkup) checkJSON(ctx context.Context, bar *progress, served bool) {
	logs := &capture{}
	s, err := jsonfile.Open(c.root, jsonfile.Options{FS: readOnly{jsonfile.OS{}}, Logger: slog.New(logs)})
	if err != nil {
		c.add(levelError, c.root, err.Error(), "")
		return
	}
	sessions, err := s.LoadSessions(ctx)
	c.loaded("sessions.json", err, logs.take(), fmt.Sprintf("%d session(s)", len(sessions)), fixDamaged)
	stored, err := s.List(ctx)
	for _, l := range logs.take() {
		level := levelError
		switch {
		case strings.Contains(l, "could not be set aside"):
			continue // the warning of the same load says it: its .prev loads
		case strings.Contains(l, errReadOnly.Error()):
			level = levelWarn // damaged, with a .prev the server will load
		}
		c.add(level, "projects/", l, "until its graph loads, the project is unavailable; "+fixDamaged)
	}
	if err != nil {
		c.add(levelError, "projects/", err.Error(), "")
	}
	keys := []ports.StoredGraph{{Key: domain.UserGraph}}
	keys = append(keys, stored...)
	for i, sg := range keys {
		bar.set(i, len(keys))
		name := "user.json"
		if sg.Key.Level == domain.LevelProject {
			name = filepath.Join("projects", sg.Slug, "graph.json")
		}
		d, err := s.Load(ctx, sg.Key)
		c.loaded(name, err, logs.take(), c.graphSummary(d), fixDamaged)
		if err == nil {
			c.checkSchema(name, d)
		}
		if sg.Key.Level == domain.LevelProject {
			c.checkProjectPath(sg.Key.Project)
		}
	}
	bar.set(len(keys), len(keys))
	c.checkLeftovers(served)
	c.checkSessions(sessions)
}

// loaded records how a file loaded: ok, from its previous version (a
// warning), or not at all (an error).
func (c *checkup) loaded(name string, err error, logged []string, ok, fix string) {
	switch {
	case errors.Is(err, errReadOnly):
		// The load found the file damaged and its .prev good, and would
		// have set the damaged file aside: the server will.
		c.add(levelWarn, name, "damaged, but the version before its last save (.prev) loads: "+err.Error(), fix)
	case err != nil:
		c.add(levelError, name, err.Error(), fix)
	case len(logged) > 0:
		for _, l := range logged {
			c.add(levelWarn, name, l, fix)
		}
	default:
		c.add(levelOK, name, ok, "")
	}
}

func (c *checkup) graphSummary(d domain.GraphData) string {
	if d.Empty() {
		return "empty"
	}
	return fmt.Sprintf("%d node(s), %d edge(s), schema %d", len(d.Nodes), len(d.Edges), max(d.Schema, 1))
}

// checkSchema says what an old or newer schema means.
func (c *checkup) checkSchema(name string, d domain.GraphData) {
	switch {
	case d.Empty():
	case d.Schema < domain.SchemaVersion:
		c.add(levelInfo, name, fmt.Sprintf("schema %d, as the replaced server wrote it", max(d.Schema, 1)),
			fmt.Sprintf("nothing to do: kg writes schema %d at the graph's next save (`kg migrate --to json` does it now)", domain.SchemaVersion))
	case d.Schema > domain.SchemaVersion:
		c.add(levelError, name, fmt.Sprintf("schema %d, newer than this kg reads (%d)", d.Schema, domain.SchemaVersion),
			"run the kg that wrote it (`kg version` says which this is)")
	}
}

// checkProjectPath notices a project whose folder is gone: its memory is
// kept under a path no agent will start in.
func (c *checkup) checkProjectPath(project string) {
	if _, err := os.Stat(project); errors.Is(err, fs.ErrNotExist) {
		c.add(levelInfo, "project "+project, "the folder no longer exists",
			"if the project moved, `kg project mv "+project+" NEW_PATH` gives it its memory; otherwise leave it (or `kg export` it)")
	}
}

// checkLeftovers looks for temporary files a crash left and damaged files
// kept aside.
func (c *checkup) checkLeftovers(served bool) {
	dirs := []string{c.root}
	if entries, err := os.ReadDir(filepath.Join(c.root, "projects")); err == nil {
		for _, e := range entries {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join(c.root, "projects", e.Name()))
			}
		}
	}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			switch {
			case strings.HasSuffix(e.Name(), ".tmp") && !served:
				c.add(levelWarn, c.rel(p), "a temporary file left by a save that did not finish (a crash, a full disk)",
					"delete it: the file it was to replace is whole, and no server runs now")
			case strings.Contains(e.Name(), ".corrupt-"):
				c.add(levelInfo, c.rel(p), "a damaged file kg set aside when it loaded the previous version instead",
					"look at it to see what the last save held; delete it when you no longer need it")
			}
		}
		if dir != c.root && len(entries) > 0 && !slices.ContainsFunc(entries, func(e os.DirEntry) bool {
			return strings.HasPrefix(e.Name(), "graph.")
		}) {
			c.add(levelInfo, c.rel(dir), "a project folder without a graph", "nothing to do; delete it if you made it")
		}
	}
}

// checkSessions notices sessions of projects that have no memory and whose
// folder is gone.
func (c *checkup) checkSessions(sessions map[string]ports.Session) {
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
		c.add(levelInfo, "sessions.json", fmt.Sprintf("%d session(s) of %s, whose folder no longer exists", gone[p], p),
			"nothing to do: sessions expire by themselves (--session-ttl)")
	}
}

// checkBolt checks <root>/kg.db: bbolt's consistency check, then every
// graph and the sessions load.
func (c *checkup) checkBolt(ctx context.Context, bar *progress) {
	logs := &capture{}
	s, err := bolt.Open(ctx, c.root, bolt.Options{Logger: slog.New(logs)})
	if err != nil {
		c.add(levelError, bolt.FileName, err.Error(), "if another process holds it, stop that; if it is damaged, restore kg.db from a backup (docs/operations.md)")
		return
	}
	defer s.Close()
	if err := s.Check(); err != nil {
		c.add(levelError, bolt.FileName, "the consistency check fails: "+err.Error(),
			"restore kg.db from a backup, or `kg migrate --to json` to copy what still loads")
		return
	}
	c.add(levelOK, bolt.FileName, "consistent", "")
	sessions, err := s.LoadSessions(ctx)
	c.loaded(bolt.FileName+" sessions", err, logs.take(), fmt.Sprintf("%d session(s)", len(sessions)), fixBolt)
	stored, err := s.List(ctx)
	if err != nil {
		c.add(levelError, bolt.FileName, err.Error(), "")
	}
	keys := append([]ports.StoredGraph{{Key: domain.UserGraph, Slug: "user"}}, stored...)
	for i, sg := range keys {
		bar.set(i, len(keys))
		d, err := s.Load(ctx, sg.Key)
		name := bolt.FileName + " " + sg.Key.String()
		c.loaded(name, err, logs.take(), c.graphSummary(d), fixBolt)
		if sg.Key.Level == domain.LevelProject {
			c.checkProjectPath(sg.Key.Project)
		}
	}
	bar.set(len(keys), len(keys))
	c.checkSessions(sessions)
}

const fixBolt = "only this graph is unavailable; restore kg.db from a backup (docs/operations.md), or `kg import` an export of it"
