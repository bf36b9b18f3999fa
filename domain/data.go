package domain

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// GraphData is the whole stored state of one graph, in the form storage
// adapters read and write. It holds no index; Restore builds those.
type GraphData struct {
	Schema         int // the schema the data was stored with; 0 or 1 = the replaced server's
	Seq            uint64
	ProjectPath    string
	Nodes          []Node
	Edges          []Edge
	NodeTombstones map[string]Tombstone
	EdgeTombstones map[EdgeKey]Tombstone
	Progress       map[string]RawJSON
	Meta           map[string]RawJSON // unknown _meta keys
}

// Empty reports whether d holds nothing, which is what a repository's Load
// returns for a graph that was never stored.
func (d GraphData) Empty() bool {
	return d.Seq == 0 && len(d.Nodes) == 0 && len(d.Edges) == 0 && len(d.NodeTombstones) == 0 &&
		len(d.EdgeTombstones) == 0 && len(d.Progress) == 0 && len(d.Meta) == 0
}

// LastChange is the time of the latest change recorded in d: the newest
// version or tombstone of any node or edge; 0 for a graph with none.
func (d GraphData) LastChange() Micros {
	var t Micros
	for _, n := range d.Nodes {
		t = max(t, n.Version.TS)
	}
	for _, e := range d.Edges {
		t = max(t, e.Version.TS)
	}
	for _, tb := range d.NodeTombstones {
		t = max(t, tb.TS)
	}
	for _, tb := range d.EdgeTombstones {
		t = max(t, tb.TS)
	}
	return t
}

// SchemaVersion is the graph schema kg writes.
const SchemaVersion = 2

// RestoreOptions tune Restore.
type RestoreOptions struct {
	// MinSeq raises the graph's seq to at least this value before entries
	// without a seq are numbered: the highest watermark any live session
	// holds for this graph, so that no seq a session has seen is reused.
	MinSeq uint64
	// Take lets the graph keep data's nodes and edges where they are,
	// pointing into data.Nodes and data.Edges instead of copying them, and
	// change them while it restores: the caller gives data up. Loading a
	// stored graph then costs no second copy of every node and edge.
	Take bool
}

// Restore builds a graph from stored data. It accepts what the replaced
// server wrote: nodes without version entries get version 1 (written at their creation time), and entries
// without a seq (schema 1) take the next seqs in timestamp order, ties by
// key. When two nodes claim one id, the higher version wins (ties: the one
// that comes first in data.Nodes) and the loser is reported in the returned
// notes, one line each, for the caller to log. The restored graph is
// checkpointed: Pending is empty unless the upgrade changed something that
// must be written back.
func Restore(key GraphKey, data GraphData, opt RestoreOptions) (*Graph, []string) {
	g := restoreSized(key, data)
	nodes, edges := data.Nodes, data.Edges
	if !opt.Take {
		// The graph owns its nodes and edges: one copy of each list, one
		// allocation each.
		nodes, edges = slices.Clone(nodes), slices.Clone(edges)
	}
	if data.ProjectPath != "" {
		g.projectPath = data.ProjectPath
	}
	maps.Copy(g.meta, data.Meta)
	maps.Copy(g.progress, data.Progress)
	maps.Copy(g.nodeTombs, data.NodeTombstones)
	maps.Copy(g.edgeTombs, data.EdgeTombstones)

	notes, upgradedNodes, unknownUse := g.restoreNodes(nodes)
	notes, upgradedEdges := g.restoreEdges(edges, notes)
	upgraded := upgradedNodes || upgradedEdges
	if g.dropShadowedTombstones() {
		upgraded = true
	}
	g.seq = g.highestSeq(max(data.Seq, opt.MinSeq))
	if g.numberUnsequenced() {
		upgraded = true
	}
	if data.Schema < SchemaVersion || g.seq != data.Seq {
		upgraded = true
	}

	g.Checkpoint()
	if upgraded {
		// Everything may have been renumbered: let per-item backends
		// rewrite every item once.
		g.pending = g.Everything()
	} else {
		for _, id := range unknownUse {
			g.pending.Nodes[id] = struct{}{}
		}
	}
	if !g.pending.Empty() {
		g.restored = &restoredPending{meta: g.pending.Meta, nodes: map[string]struct{}{}, edges: map[EdgeKey]struct{}{}}
	}
	return g, notes
}

// restoreSized is a new graph for data with every index at its final size
// (the ends that are not nodes aside), so that none is grown, copied and
// left behind while the graph loads. It has no search index until a
// search (Graph.searchIndex).
func restoreSized(key GraphKey, data GraphData) *Graph {
	g := NewGraph(key)
	g.ends = make([]endSlot, 0, len(data.Nodes))
	g.endTiers = make([]EndTier, 0, len(data.Nodes))
	g.endIx = make(map[string]int32, len(data.Nodes))
	g.edgeSlots = make([]edgeSlot, 0, len(data.Edges))
	g.edges = make(map[EdgeKey]int32, len(data.Edges))
	return g
}

// restoreNodes puts the stored nodes in g, upgrading what the replaced
// server wrote, and returns a note for each id two nodes claim, whether
// anything was upgraded, and the nodes given the default use count (to be
// saved with it).
func (g *Graph) restoreNodes(nodes []Node) (notes []string, upgraded bool, unknownUse []string) {
	for i := range nodes {
		n := &nodes[i]
		n.Stale = nil // marks are never stored: the check finds them again (docs/design/trust.md#staleness)
		if n.Version.V == 0 {
			// No version entry (the replaced server did not always write
			// one): the node has been written once, at creation as far as
			// anyone knows, so its recency is not reset to the epoch.
			n.Version.V = 1
			if n.Version.TS == 0 {
				n.Version.TS = n.Created
			}
			upgraded = true
		}
		if !n.Use.Known {
			// Stored without a use count: the default, from its times as
			// stored, kept (and saved) until a count changes it, so that a
			// later uncounted read does not move it
			// (docs/design/compaction.md#the-use-count).
			n.Use = DefaultUse(n.Recency())
			unknownUse = append(unknownUse, n.ID)
		}
		if old, dup := g.node(n.ID); dup {
			if n.Version.V > old.Version.V {
				notes = append(notes, fmt.Sprintf("node %q: two entries claim this id; kept version %d, dropped version %d", n.ID, n.Version.V, old.Version.V))
				g.putNode(n.ID, n)
			} else {
				notes = append(notes, fmt.Sprintf("node %q: two entries claim this id; kept version %d, dropped version %d", n.ID, old.Version.V, n.Version.V))
			}
			upgraded = true
			continue
		}
		g.putNode(n.ID, n)
	}
	return notes, upgraded, unknownUse
}

// restoreEdges puts the stored edges in g (of two with one key, the higher
// version), adding a note to notes for each key stored twice, and reports
// whether anything was upgraded.
func (g *Graph) restoreEdges(edges []Edge, notes []string) ([]string, bool) {
	upgraded := false
	for i := range edges {
		e := &edges[i]
		if e.Version.V == 0 {
			e.Version.V = 1
			upgraded = true
		}
		k := e.Key()
		if old, dup := g.Edge(k); dup {
			notes = append(notes, fmt.Sprintf("edge %s: stored twice; kept one", k))
			upgraded = true
			if e.Version.V <= old.Version.V {
				continue
			}
		}
		g.putEdge(k, e)
	}
	return notes, upgraded
}

// dropShadowedTombstones drops the tombstones of live items: a live item
// and its tombstone cannot both stand, and the item wins. It reports
// whether it dropped any.
func (g *Graph) dropShadowedTombstones() bool {
	dropped := false
	for id := range g.nodeTombs {
		if _, ok := g.node(id); ok {
			delete(g.nodeTombs, id)
			dropped = true
		}
	}
	for k := range g.edgeTombs {
		if _, ok := g.edges[k]; ok {
			delete(g.edgeTombs, k)
			dropped = true
		}
	}
	return dropped
}

// highestSeq is the highest of from and every seq g's items and
// tombstones hold.
func (g *Graph) highestSeq(from uint64) uint64 {
	seq := from
	for _, n := range g.allNodes() {
		seq = max(seq, n.Version.Seq, n.TierSeq)
	}
	for _, x := range g.edgeSlots {
		if x.e != nil {
			seq = max(seq, x.e.Version.Seq)
		}
	}
	for _, t := range g.nodeTombs {
		seq = max(seq, t.Seq)
	}
	for _, t := range g.edgeTombs {
		seq = max(seq, t.Seq)
	}
	return seq
}

// numberUnsequenced gives the entries without a seq (schema 1) the next seqs
// in timestamp order, ties by key in byte order, as the keys sort in the
// file ("edge:<from>-><to>:<rel>" before "node:<id>"). It reports whether it
// numbered any.
func (g *Graph) numberUnsequenced() bool {
	type entry struct {
		ts   Micros
		key  string
		node string
		edge EdgeKey
		kind undoKind
	}
	var todo []entry
	for id, n := range g.allNodes() {
		if n.Version.Seq == 0 {
			todo = append(todo, entry{ts: n.Version.TS, key: "node:" + id, node: id, kind: undoNode})
		}
	}
	for k, ei := range g.edges {
		if e := g.edgeSlots[ei].e; e.Version.Seq == 0 {
			todo = append(todo, entry{ts: e.Version.TS, key: "edge:" + k.From + "->" + k.To + ":" + k.Rel, edge: k, kind: undoEdge})
		}
	}
	for id, t := range g.nodeTombs {
		if t.Seq == 0 {
			todo = append(todo, entry{ts: t.TS, key: "node:" + id, node: id, kind: undoNodeTomb})
		}
	}
	for k, t := range g.edgeTombs {
		if t.Seq == 0 {
			todo = append(todo, entry{ts: t.TS, key: "edge:" + k.From + "->" + k.To + ":" + k.Rel, edge: k, kind: undoEdgeTomb})
		}
	}
	if len(todo) == 0 {
		return false
	}
	slices.SortFunc(todo, func(a, b entry) int {
		if a.ts != b.ts {
			if a.ts < b.ts {
				return -1
			}
			return 1
		}
		if c := strings.Compare(a.key, b.key); c != 0 {
			return c
		}
		return int(a.kind) - int(b.kind)
	})
	for _, e := range todo {
		g.seq++
		g.changes++
		switch e.kind {
		case undoNode:
			si := g.endIx[e.node]
			n := g.ends[si].node.clone()
			n.Version.Seq = g.seq
			g.ends[si].node = n // tier and costs unchanged
		case undoEdge:
			x := &g.edgeSlots[g.edges[e.edge]]
			ed := x.e.clone()
			ed.Version.Seq = g.seq
			x.e = ed
		case undoNodeTomb:
			t := g.nodeTombs[e.node]
			t.Seq = g.seq
			g.nodeTombs[e.node] = t
		case undoEdgeTomb:
			t := g.edgeTombs[e.edge]
			t.Seq = g.seq
			g.edgeTombs[e.edge] = t
		}
	}
	return true
}

// Data returns the whole state of the graph: nodes sorted by id, edges by
// (from, rel, to). Nodes and edges are copies; their slices and maps are
// shared and must not be modified.
func (g *Graph) Data() GraphData {
	d := GraphData{
		Schema:         SchemaVersion,
		Seq:            g.seq,
		ProjectPath:    g.projectPath,
		Nodes:          make([]Node, 0, g.nodeCount),
		Edges:          make([]Edge, 0, len(g.edges)),
		NodeTombstones: maps.Clone(g.nodeTombs),
		EdgeTombstones: maps.Clone(g.edgeTombs),
		Progress:       maps.Clone(g.progress),
		Meta:           maps.Clone(g.meta),
	}
	for _, n := range g.Nodes() {
		d.Nodes = append(d.Nodes, *n)
	}
	for _, e := range g.Edges() {
		d.Edges = append(d.Edges, *e)
	}
	return d
}
