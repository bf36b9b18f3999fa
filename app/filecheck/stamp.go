package filecheck

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"

	"github.com/kg-memory/kg/app/graphstore"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/stale"
	"github.com/kg-memory/kg/ports"
)

// Staleness (docs/design/trust.md#staleness): a write of a project node
// records the content hash of each project file it names (its touches, the
// file-path ends of its edges); the maintenance tick reads the recorded
// files again, a bounded number per tick in turn, and marks the nodes whose
// files changed or vanished. The marks live in memory only: they are
// derived from the files, so after a restart the tick finds them again.

// Stamper hashes the project files a write names, to stamp them
// (docs/design/trust.md#staleness). Its fields are set once, by app.Open.
type Stamper struct {
	// Files reads project files; nil: none is read and nothing is ever
	// stale.
	Files ports.FileHasher
	// TeamMode is set when graphs are shared with other servers: a
	// project's path is then no folder of this machine.
	TeamMode bool
	Log      *slog.Logger
}

// FilesRoot is the folder whose files a write to graph k names: named, the
// folder the request named the project by in team mode (its touches are
// relative to it), else the project's own path. "" when no file of k can be read:
// the user graph, a project named by its key alone, no hasher.
func (fs *Stamper) FilesRoot(named string, k domain.GraphKey) string {
	if fs.Files == nil || k.Level != domain.LevelProject {
		return ""
	}
	if named != "" {
		return named
	}
	if !fs.TeamMode && filepath.IsAbs(k.Project) {
		return k.Project
	}
	return ""
}

// HashNamed hashes the references that may be files of the project under
// root, in the project's own scheme, and returns the stamps of those found.
// Reading fails soft: a root that cannot be read records nothing, as kg
// cannot tell (unverifiable, never stale).
func (fs *Stamper) HashNamed(ctx context.Context, root string, refs []string) []domain.FileStamp {
	if root == "" || len(refs) == 0 {
		return nil
	}
	qs := make([]ports.FileQuery, len(refs))
	for i, r := range refs {
		qs[i] = ports.FileQuery{Path: r}
	}
	hs, err := fs.Files.HashFiles(ctx, root, qs)
	if err != nil {
		fs.Log.Debug("project files not read for staleness", "root", root, "err", err)
		return nil
	}
	var out []domain.FileStamp
	for i, h := range hs {
		if h.State == stale.FileFound {
			out = append(out, domain.FileStamp{Path: refs[i], Hash: h.Hash})
		}
	}
	return out
}

// NodeFilesBefore returns the references node id will name once written with
// touches (nil: its stored ones): the files a put of it records. Read
// before the write, outside it, so that the files are read without the
// graph's lock; the write keeps those still named then.
func NodeFilesBefore(e *graphstore.Entry, id string, touches []string) []string {
	e.RLock()
	defer e.RUnlock()
	if touches == nil {
		if n, ok := e.Graph().Node(id); ok {
			touches = n.Touches
		}
	}
	var out []string
	for _, t := range touches {
		if !stale.IsURL(t) {
			out = append(out, t)
		}
	}
	for _, ed := range e.Graph().EdgesOf(id) {
		other := ed.To
		if ed.To == id {
			other = ed.From
		}
		if other != id && !stale.IsURL(other) && !e.Graph().IsNode(other) {
			out = append(out, other)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// EdgeFilesBefore returns the ends of an edge that may be project files:
// not URLs and naming no node now.
func EdgeFilesBefore(e *graphstore.Entry, in domain.EdgeInput) []string {
	e.RLock()
	defer e.RUnlock()
	var out []string
	for _, end := range []string{in.From, in.To} {
		if !stale.IsURL(end) && !e.Graph().IsNode(end) && !slices.Contains(out, end) {
			out = append(out, end)
		}
	}
	return out
}

// KeepNamed returns the stamps whose path g's node id names now.
func KeepNamed(g *domain.Graph, id string, stamps []domain.FileStamp) []domain.FileStamp {
	named := stale.NamedFiles(g, id)
	out := stamps[:0:0]
	for _, st := range stamps {
		if _, ok := slices.BinarySearch(named, st.Path); ok {
			out = append(out, st)
		}
	}
	return out
}

// RecordEdgeFiles records, on the node at one end of edge in, the stamp of
// the file at its other end: what a write of the edge records.
func RecordEdgeFiles(g *domain.Graph, in domain.EdgeInput, stamps []domain.FileStamp) {
	for _, st := range stamps {
		switch {
		case st.Path == in.To && g.IsNode(in.From) && !g.IsNode(in.To):
			g.RecordFile(in.From, st)
		case st.Path == in.From && g.IsNode(in.To) && !g.IsNode(in.From):
			g.RecordFile(in.To, st)
		}
	}
}
