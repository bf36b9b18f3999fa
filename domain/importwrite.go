package domain

import "slices"

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

// ImportWrite is what an import writes into a graph, as domain/importing
// decides it from a validated document (docs/design/http.md#export-and-import).
type ImportWrite struct {
	// Replace deletes first the nodes (with their edges), edges and progress
	// states Doc does not hold, leaving tombstones.
	Replace bool
	// Doc is the document, validated (importing.Validate): what a replace
	// keeps, and the edges and progress states written.
	Doc GraphData
	// Nodes are the nodes to write, sorted by id, each as it is to be
	// stored but for its version: the import decides its tier, times and
	// use, and its last write in Version.TS.
	Nodes []*Node
	// Progress are the tasks of Doc.Progress whose state is written, sorted.
	Progress []string
	// Unchanged counts the nodes and progress states of Doc the graph
	// already holds.
	Unchanged int
}

// WriteImport is the bulk write of an import, for domain/importing, which
// decides what it writes: with w.Replace, it deletes what w.Doc does not
// hold (importDeletions), then writes w.Nodes, each edge of w.Doc whose
// notes g does not hold already, and the progress states of w.Progress, in
// that order, each a change made at `at` that takes the next version and
// seq, like a put, so sessions hear of it through kg_sync. A node keeps the
// tier and times it is given, unlike a put. It sorts w.Doc.Edges in place.
func (g *Graph) WriteImport(w ImportWrite, at Stamp) ImportResult {
	r := ImportResult{Unchanged: w.Unchanged}
	if w.Replace {
		g.importDeletions(w.Doc, at, &r)
	}
	g.reserveFor(w.Doc)
	for _, n := range w.Nodes {
		g.writeImportedNode(n, at)
	}
	r.Nodes = w.Nodes // the nodes written, as written: no second list of them
	slices.SortFunc(w.Doc.Edges, func(a, b Edge) int { return cmpEdgeKey(a.Key(), b.Key()) })
	for i := range w.Doc.Edges {
		if e := g.importEdge(&w.Doc.Edges[i], at); e != nil {
			r.Edges = append(r.Edges, e)
		} else {
			r.Unchanged++
		}
	}
	for _, task := range w.Progress {
		g.setProgress(task, append(RawJSON(nil), w.Doc.Progress[task]...))
		r.Progress = append(r.Progress, task)
	}
	return r
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

// writeImportedNode writes a node an import decided on, giving it the next
// version and seq.
func (g *Graph) writeImportedNode(n *Node, at Stamp) {
	n.Version = Version{V: g.lastNodeVersion(n.ID) + 1, TS: n.Version.TS, Session: at.Session, Principal: at.Principal, Seq: g.nextSeq()}
	if _, ok := g.nodeTombs[n.ID]; ok {
		g.setNodeTomb(n.ID, nil)
	}
	g.setNode(n.ID, n)
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
