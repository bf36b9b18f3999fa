package domain

import (
	"bytes"
	"encoding/json"
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
//
// The document given is left as it was; its lists are copied only when an
// item has to change, so checking a document of 500,000 nodes costs no
// second copy of it (an import checks it twice: before the graph is loaded,
// and as it is applied).
func ValidateImport(d GraphData) (GraphData, error) {
	nodes := d.Nodes
	for i, n := range d.Nodes {
		at := ItemField("nodes", i)
		in, err := NodeInput{ID: n.ID, Gist: n.Gist, Notes: n.Notes, Touches: n.Touches}.Validate()
		if err != nil {
			return d, Within(at, err)
		}
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
		if in.Gist != n.Gist || !slices.Equal(in.Notes, n.Notes) {
			if &nodes[0] == &d.Nodes[0] {
				nodes = slices.Clone(d.Nodes)
			}
			nodes[i].Gist, nodes[i].Notes = in.Gist, in.Notes
		}
	}
	if i, j, dup := firstDuplicate(len(d.Nodes), func(i int) string { return d.Nodes[i].ID }, strings.Compare); dup {
		return d, Invalidf(ItemField("nodes", j)+".id", "%q is also nodes[%d]; a document names each node once", d.Nodes[j].ID, i)
	}
	edges := d.Edges
	for i, e := range d.Edges {
		at := ItemField("edges", i)
		in, err := (EdgeInput{From: e.From, To: e.To, Rel: e.Rel, Notes: e.Notes}).Validate()
		if err != nil {
			return d, Within(at, err)
		}
		if e.Version.TS < 0 {
			return d, Invalidf(at+".last_write_ts", "must not be negative")
		}
		if !slices.Equal(in.Notes, e.Notes) {
			if &edges[0] == &d.Edges[0] {
				edges = slices.Clone(d.Edges)
			}
			edges[i].Notes = in.Notes
		}
	}
	if i, j, dup := firstDuplicate(len(d.Edges), func(i int) EdgeKey { return d.Edges[i].Key() }, cmpEdgeKey); dup {
		return d, Invalidf(ItemField("edges", j), "%s is also edges[%d]; a document names each edge once", d.Edges[j].Key(), i)
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

// firstDuplicate finds two of n items with the same key: the pair (i, j),
// i < j, with the smallest j, the one a scan in order meets first. It sorts
// the items' indexes rather than filling a map of every key: 4 bytes an
// item instead of a map entry, for a document of hundreds of thousands.
func firstDuplicate[K any](n int, key func(int) K, cmp func(a, b K) int) (i, j int, dup bool) {
	ix := make([]int32, n)
	for k := range ix {
		ix[k] = int32(k)
	}
	slices.SortStableFunc(ix, func(a, b int32) int { return cmp(key(int(a)), key(int(b))) })
	j = -1
	for k := 1; k < n; k++ {
		// Stable: among equal keys, indexes stay in order, so ix[k-1] is the
		// earlier of a pair and ix[k] the later.
		if cmp(key(int(ix[k-1])), key(int(ix[k]))) == 0 && (j < 0 || int(ix[k]) < j) {
			i, j = int(ix[k-1]), int(ix[k])
		}
	}
	return i, j, j >= 0
}

// Within puts an error of a validator in the context of one item of a
// document: field "gist" of nodes[3] becomes "nodes[3].gist".
func Within(item string, err error) error {
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
// Each node, edge and progress state of the document whose content differs
// from what g holds is written as a change made at `at`: it takes the next
// version and seq, like a put, so sessions hear of it through kg_sync.
// Unlike a put, a node written keeps the document's tier and times (created,
// last read, last write, orphaned), which is what lets a graph move between
// machines without losing what compaction knows of it; a time later than
// at.Now is taken as at.Now, a missing last write as at.Now, other missing
// times stay unknown. An item whose content g already holds — a node's
// gist, notes and touches, an edge's notes, a progress state as JSON — is
// left alone, whatever tier and times the document gives it: compaction may
// have moved it since the document was made, and g's tier is the newer
// word. So importing the same document twice changes nothing the second
// time (docs/design/http.md#export-and-import).
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
	g.reserveFor(d)
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
		if old, ok := g.progress[task]; ok && sameJSON(old, state) {
			r.Unchanged++
			continue
		}
		g.setProgress(task, append(RawJSON(nil), state...))
		r.Progress = append(r.Progress, task)
	}
	return r, nil
}

// reserveFor grows the graph's indexes and undo journal once for the
// items of d it does not hold yet, instead of item by item: a large slice
// grows by a quarter a step, each step a copy that leaves the old array
// behind, so growing to n items allocates about five times the final array
// and holds 2.25 times it at the last step — on an import of a million small
// nodes the largest part of its peak beside the graph itself
// (docs/performance.md#import-memory). A graph that holds nothing yet gets
// its maps at their final size too, as Restore does.
func (g *Graph) reserveFor(d GraphData) {
	newNodes := 0
	for i := range d.Nodes {
		if _, ok := g.endIx[d.Nodes[i].ID]; !ok {
			newNodes++
		}
	}
	newEdges := 0
	for i := range d.Edges {
		if _, ok := g.edges[d.Edges[i].Key()]; !ok {
			newEdges++
		}
	}
	if len(g.endIx) == 0 && newNodes > 0 {
		g.endIx = make(map[string]int32, newNodes)
	}
	if len(g.edges) == 0 && newEdges > 0 {
		g.edges = make(map[EdgeKey]int32, newEdges)
	}
	g.ends = slices.Grow(g.ends, newNodes)
	g.endTiers = slices.Grow(g.endTiers, newNodes)
	g.edgeSlots = slices.Grow(g.edgeSlots, newEdges)
	g.journal = slices.Grow(g.journal, len(d.Nodes)+len(d.Edges))
	g.nodeUndos = slices.Grow(g.nodeUndos, len(d.Nodes))
	g.edgeUndos = slices.Grow(g.edgeUndos, len(d.Edges))
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
		Files: slices.Clone(in.Files), // the document's file stamps (docs/design/trust.md#staleness)
	}
	if n.Tier == Orphaned {
		n.OrphanedAt = clamp(in.OrphanedAt)
		if n.OrphanedAt == 0 {
			n.OrphanedAt = at.Now
		}
	}
	old, had := g.node(in.ID)
	if had && sameContent(old, n) {
		return nil
	}
	n.Use = importedUse(in, old, at.Now)
	written := clamp(in.Version.TS)
	if written == 0 {
		written = at.Now
	}
	n.Version = Version{V: g.lastNodeVersion(in.ID) + 1, TS: written, Session: at.Session, Principal: at.Principal, Seq: g.nextSeq()}
	if _, ok := g.nodeTombs[in.ID]; ok {
		g.setNodeTomb(in.ID, nil)
	}
	g.setNode(in.ID, n)
	return n
}

// importedUse is the use count of a node an import writes
// (docs/design/compaction.md#the-use-count): the document's, its day taken as
// today when it is later, like its times; for a document without one, the
// count the graph holds of the node (a better word than a guess), else the
// default from the document's times, as a node loaded without one gets. It
// is never counted as a use: imports are not sessions.
func importedUse(in, old *Node, now Micros) Use {
	switch {
	case in.Use.Known:
		u := in.Use
		u.Day = min(u.Day, UseDay(now))
		return u
	case old != nil:
		return old.Use
	}
	return DefaultUse(min(max(in.Version.TS, in.LastRead), now))
}

// sameContent reports whether an imported node says nothing new about a
// stored one: the same gist, notes and touches. Its tier and times are what
// compaction knows of it, and the stored ones are the newer: comparing them
// made every import after a compaction write back every node it had moved.
func sameContent(old, n *Node) bool {
	return old.Gist == n.Gist && slices.Equal(old.Notes, n.Notes) && slices.Equal(old.Touches, n.Touches)
}

// sameJSON reports whether two stored JSON values are the same value
// written with the same member order, whatever the white space.
func sameJSON(a, b RawJSON) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
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
