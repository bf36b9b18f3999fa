package domain

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ImportMode says what an import does with the items of the graph that the
// imported document does not hold.
type ImportMode string

// The import modes.
const (
	// ImportMerge keeps the items the document does not hold.
	ImportMerge ImportMode = "merge"
	// ImportReplace deletes them: the graph ends up holding exactly the
	// document's nodes, edges and progress.
	ImportReplace ImportMode = "replace"
)

// ParseImportMode checks an import mode named by a client.
func ParseImportMode(field, s string) (ImportMode, error) {
	switch ImportMode(s) {
	case ImportMerge, ImportReplace:
		return ImportMode(s), nil
	}
	return "", Invalidf(field, "%q is not one of merge, replace", s)
}

// ImportResult is what an import changed, every list sorted.
type ImportResult struct {
	Nodes           []*Node       // nodes created or changed, by id
	Edges           []*Edge       // edges created or changed, by (from, rel, to)
	DeletedNodes    []DeletedNode // replace: nodes the document does not hold
	DeletedEdges    []EdgeKey     // replace: edges the document does not hold (beyond those of deleted nodes)
	Progress        []string      // tasks whose state was written
	ProgressRemoved []string      // replace: tasks whose state was removed
	Unchanged       int           // items of the document identical to what was stored
}

// DeletedNode is a node an import deleted, with the number of edges deleted
// with it.
type DeletedNode struct {
	ID           string
	EdgesDeleted int
}

// ValidateImport checks every item of an imported document against the limits
// of docs/design/model.md#identifiers-and-limits before anything is changed,
// and returns the document with its gists trimmed and its notes' CR LF line
// breaks made LF. An error names the item and the field, e.g.
// `nodes[3].gist: 1204 chars, limit 1000`. The document's seqs, version
// numbers, sessions, tombstones and metadata are the bookkeeping of the graph
// it came from and are not looked at.
func ValidateImport(d GraphData) (GraphData, error) {
	nodes := make([]Node, len(d.Nodes))
	seen := make(map[string]int, len(d.Nodes))
	for i, n := range d.Nodes {
		at := itemField("nodes", i)
		in, err := NodeInput{ID: n.ID, Gist: n.Gist, Notes: n.Notes, Touches: n.Touches}.Validate()
		if err != nil {
			return d, within(at, err)
		}
		if j, dup := seen[n.ID]; dup {
			return d, Invalidf(at+".id", "%q is also nodes[%d]; a document names each node once", n.ID, j)
		}
		seen[n.ID] = i
		if n.Tier > Orphaned {
			return d, Invalidf(at+".tier", "%s is not one of active, archived, orphaned", n.Tier)
		}
		for _, t := range []struct {
			name string
			v    Micros
		}{{"created_ts", n.Created}, {"last_read_ts", n.LastRead}, {"last_write_ts", n.Version.TS}, {"orphaned_ts", n.OrphanedAt}} {
			if t.v < 0 {
				return d, Invalidf(at+"."+t.name, "must not be negative")
			}
		}
		n.Gist, n.Notes = in.Gist, in.Notes
		nodes[i] = n
	}
	edges := slices.Clone(d.Edges)
	seenEdge := make(map[EdgeKey]int, len(d.Edges))
	for i, e := range d.Edges {
		at := itemField("edges", i)
		in, err := (EdgeInput{From: e.From, To: e.To, Rel: e.Rel, Notes: e.Notes}).Validate()
		if err != nil {
			return d, within(at, err)
		}
		edges[i].Notes = in.Notes
		if j, dup := seenEdge[e.Key()]; dup {
			return d, Invalidf(at, "%s is also edges[%d]; a document names each edge once", e.Key(), j)
		}
		seenEdge[e.Key()] = i
		if e.Version.TS < 0 {
			return d, Invalidf(at+".last_write_ts", "must not be negative")
		}
	}
	tasks := make([]string, 0, len(d.Progress))
	for task := range d.Progress {
		tasks = append(tasks, task)
	}
	slices.Sort(tasks) // the first bad task reported is the same every time
	for _, task := range tasks {
		at := "progress[" + fmt.Sprintf("%q", task) + "]"
		if err := ValidateID(at, task); err != nil {
			return d, err
		}
		if err := ValidateProgressState(at, d.Progress[task]); err != nil {
			return d, err
		}
	}
	d.Nodes, d.Edges = nodes, edges
	return d, nil
}

// within puts an error of a validator in the context of one item of a
// document: field "gist" of nodes[3] becomes "nodes[3].gist".
func within(item string, err error) error {
	var de *Error
	if !errors.As(err, &de) {
		return err
	}
	c := *de
	if c.Field == "" {
		c.Field = item
	} else {
		c.Field = item + "." + c.Field
	}
	return &c
}

// Import writes an imported document into g
// (docs/design/http.md#export-and-import). The document is validated first
// (ValidateImport); a document that fails changes nothing.
//
// Each node, edge and progress state of the document that differs from what
// g holds is written as a change made at `at`: it takes the next version and
// seq, like a put, so sessions hear of it through kg_sync. Unlike a put, a
// node keeps the document's tier and times (created, last read, last write,
// orphaned), which is what lets a graph move between machines without
// losing what compaction knows of it; a time later than at.Now is taken as
// at.Now, a missing last write as at.Now, other missing times stay unknown.
// Items identical to what g holds are left alone, so importing the same
// document twice changes nothing the second time.
//
// With ImportReplace, the nodes (with their edges), edges and progress
// states the document does not hold are deleted first, leaving tombstones.
func (g *Graph) Import(d GraphData, mode ImportMode, at Stamp) (ImportResult, error) {
	if _, err := ParseImportMode("mode", string(mode)); err != nil {
		return ImportResult{}, err
	}
	d, err := ValidateImport(d)
	if err != nil {
		return ImportResult{}, err
	}
	var r ImportResult
	if mode == ImportReplace {
		g.importDeletions(d, at, &r)
	}
	slices.SortFunc(d.Nodes, func(a, b Node) int { return strings.Compare(a.ID, b.ID) })
	for i := range d.Nodes {
		if n := g.importNode(&d.Nodes[i], at); n != nil {
			r.Nodes = append(r.Nodes, n)
		} else {
			r.Unchanged++
		}
	}
	slices.SortFunc(d.Edges, func(a, b Edge) int { return cmpEdgeKey(a.Key(), b.Key()) })
	for i := range d.Edges {
		if e := g.importEdge(&d.Edges[i], at); e != nil {
			r.Edges = append(r.Edges, e)
		} else {
			r.Unchanged++
		}
	}
	tasks := make([]string, 0, len(d.Progress))
	for task := range d.Progress {
		tasks = append(tasks, task)
	}
	slices.Sort(tasks)
	for _, task := range tasks {
		state := d.Progress[task]
		if old, ok := g.progress[task]; ok && bytes.Equal(old, state) {
			r.Unchanged++
			continue
		}
		g.setProgress(task, append(RawJSON(nil), state...))
		r.Progress = append(r.Progress, task)
	}
	return r, nil
}

// importDeletions deletes what a replacing document does not hold, in a
// deterministic order: nodes by id (each with its edges), then edges by key,
// then progress states by task.
func (g *Graph) importDeletions(d GraphData, at Stamp, r *ImportResult) {
	keepNode := make(map[string]bool, len(d.Nodes))
	for _, n := range d.Nodes {
		keepNode[n.ID] = true
	}
	for _, n := range g.Nodes() {
		if !keepNode[n.ID] {
			r.DeletedNodes = append(r.DeletedNodes, DeletedNode{ID: n.ID, EdgesDeleted: g.removeNode(n.ID, at, false)})
		}
	}
	keepEdge := make(map[EdgeKey]bool, len(d.Edges))
	for _, e := range d.Edges {
		keepEdge[e.Key()] = true
	}
	for _, e := range g.Edges() {
		if !keepEdge[e.Key()] {
			g.removeEdge(e, at, false)
			r.DeletedEdges = append(r.DeletedEdges, e.Key())
		}
	}
	var tasks []string
	for task := range g.progress {
		if _, keep := d.Progress[task]; !keep {
			tasks = append(tasks, task)
		}
	}
	slices.Sort(tasks)
	for _, task := range tasks {
		g.setProgress(task, nil)
	}
	r.ProgressRemoved = tasks
}

// importNode writes the document's node in, unless g holds it unchanged; it
// returns the node written, or nil.
func (g *Graph) importNode(in *Node, at Stamp) *Node {
	clamp := func(t Micros) Micros { return min(t, at.Now) }
	n := &Node{
		ID: in.ID, Gist: in.Gist, Notes: slices.Clone(in.Notes), Touches: slices.Clone(in.Touches),
		Tier: in.Tier, Created: clamp(in.Created), LastRead: clamp(in.LastRead),
	}
	if n.Tier == Orphaned {
		n.OrphanedAt = clamp(in.OrphanedAt)
		if n.OrphanedAt == 0 {
			n.OrphanedAt = at.Now
		}
	}
	if old, ok := g.node(in.ID); ok && sameNode(old, n) {
		return nil
	}
	written := clamp(in.Version.TS)
	if written == 0 {
		written = at.Now
	}
	n.Version = Version{V: g.NodeVersion(in.ID) + 1, TS: written, Session: at.Session, Principal: at.Principal, Seq: g.nextSeq()}
	if _, ok := g.nodeTombs[in.ID]; ok {
		g.setNodeTomb(in.ID, nil)
	}
	g.setNode(in.ID, n)
	return n
}

// sameNode reports whether an imported node says nothing new about a stored
// one: same text, tier and times.
func sameNode(old, n *Node) bool {
	return old.Gist == n.Gist && slices.Equal(old.Notes, n.Notes) && slices.Equal(old.Touches, n.Touches) &&
		old.Tier == n.Tier && old.Created == n.Created && old.LastRead == n.LastRead &&
		(old.Tier != Orphaned || old.OrphanedAt == n.OrphanedAt)
}

// importEdge writes the document's edge in, unless g holds it with the same
// notes; it returns the edge written, or nil.
func (g *Graph) importEdge(in *Edge, at Stamp) *Edge {
	k := in.Key()
	var cur uint64
	if old, ok := g.Edge(k); ok {
		if slices.Equal(old.Notes, in.Notes) {
			return nil
		}
		cur = old.Version.V
	} else if t, ok := g.edgeTombs[k]; ok {
		cur = t.V
	}
	written := min(in.Version.TS, at.Now)
	if written == 0 {
		written = at.Now
	}
	e := &Edge{From: k.From, To: k.To, Rel: k.Rel, Notes: slices.Clone(in.Notes),
		Version: Version{V: cur + 1, TS: written, Session: at.Session, Principal: at.Principal, Seq: g.nextSeq()}}
	if _, ok := g.edgeTombs[k]; ok {
		g.setEdgeTomb(k, nil)
	}
	g.setEdge(k, e)
	return e
}
