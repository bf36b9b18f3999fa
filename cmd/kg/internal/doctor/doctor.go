// Package doctor holds the checks of kg doctor (docs/design/operations.md#kg-doctor):
// it checks the root and says, for each finding, how to fix it, in advice a
// test follows; it changes nothing, not even the lock file, and prints only
// its findings — what the stores it opens log goes nowhere. The command
// itself, which finds the root's server and lock, is cmd/kg's.
package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Levels of a finding, from harmless to what makes `kg doctor` exit 1.
const (
	LevelOK    = "ok"
	LevelInfo  = "info"
	LevelWarn  = "warn"
	LevelError = "error"
)

// Finding is one thing `kg doctor` saw, and how to fix it.
type Finding struct {
	Level   string `json:"level"`
	Subject string `json:"subject"` // a file, folder or part of the root
	Problem string `json:"problem"`
	Fix     string `json:"fix,omitempty"`
}

// Checkup collects the findings of one run.
type Checkup struct {
	Root     string
	Findings []Finding
	Content  ContentChecks // what of the graphs' content to look at (--secrets, …)
}

// Add records one finding.
func (c *Checkup) Add(level, subject, problem, fix string) {
	c.Findings = append(c.Findings, Finding{Level: level, Subject: subject, Problem: problem, Fix: fix})
}

// Rel names a path under the root as the root's layout does.
func (c *Checkup) Rel(p string) string {
	if r, err := filepath.Rel(c.Root, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// quiet is the logger of the stores doctor opens: their log lines are not
// findings (doctor says what they mean in its own words).
var quiet = slog.New(slog.DiscardHandler)

func (c *Checkup) graphSummary(d domain.GraphData) string {
	if d.Empty() {
		return "empty"
	}
	return fmt.Sprintf("%d node(s), %d edge(s), schema %d", len(d.Nodes), len(d.Edges), max(d.Schema, 1))
}

// checkSchema says what an old or newer schema means.
func (c *Checkup) checkSchema(name string, d domain.GraphData, backend string) {
	switch {
	case d.Empty():
	case d.Schema < domain.SchemaVersion:
		c.Add(LevelInfo, name, fmt.Sprintf("schema %d, as the replaced server wrote it", max(d.Schema, 1)),
			fmt.Sprintf("nothing to do: kg writes schema %d at the graph's next save (`kg migrate --to %s` does it now)", domain.SchemaVersion, backend))
	case d.Schema > domain.SchemaVersion:
		c.Add(LevelError, name, fmt.Sprintf("schema %d, newer than this kg reads (%d)", d.Schema, domain.SchemaVersion),
			"run the kg that wrote it (`kg version` says which this is)")
	}
}

// checkProject notices a project whose folder is gone (its memory is kept
// under a path no agent will start in) and one that holds nothing (an older
// kg wrote such a graph for a mere visit).
func (c *Checkup) checkProject(project string, d domain.GraphData) {
	if _, err := os.Stat(project); errors.Is(err, fs.ErrNotExist) {
		c.Add(LevelInfo, "project "+project, "the folder no longer exists",
			"if the project moved, `kg project mv "+project+" NEW_PATH` gives it its memory; if it is gone for good, `kg project rm "+
				project+" --force` removes its memory (`kg export --project "+project+" -o FILE` keeps a copy); or leave it")
	}
	g, _ := domain.Restore(domain.ProjectGraph(project), d, domain.RestoreOptions{})
	if g.HoldsNothing() {
		c.Add(LevelInfo, "project "+project, "holds nothing: a graph an older kg stored for a mere visit (a session, a read), which keeps its folder name taken",
			"`kg project rm "+project+"` removes it")
	}
}

// checkSessions notices sessions of projects whose folder is gone.
func (c *Checkup) checkSessions(name string, sessions map[string]ports.Session) {
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
		c.Add(LevelInfo, name, fmt.Sprintf("%d session(s) of %s, whose folder no longer exists", gone[p], p),
			"nothing to do: sessions expire by themselves (--session-ttl)")
	}
}

// CheckRemoved names the folders a `kg project rm` left when it stopped
// between moving a project's folder out of projects/ and deleting it.
func (c *Checkup) CheckRemoved() {
	entries, err := os.ReadDir(c.Root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), removedPrefix) {
			p := filepath.Join(c.Root, e.Name())
			c.Add(LevelInfo, e.Name(), "the folder of a project `kg project rm` removed, left by a run that stopped before deleting it; nothing reads it",
				"delete it: `rm -r "+p+"`")
		}
	}
}
