package domain

import (
	"cmp"
	"iter"
	"slices"
	"strings"
)

// ChangesSince reports what changed in the graph in the seq range (from, to]
// for a session's kg_sync (docs/design/sync.md#kg_sync).
//
// It reads the durable state: the graph as of its last checkpoint, so a
// batch whose save is in flight is reported after that save, never before.
// Items holds every node and edge whose version entry has a seq in the
// range, with its content, and every deletion whose tombstone has a
// seq in the range, sorted by seq. Changes made by the session exclude are
// left out, so a session never hears of its own writes; changes made
// without a session (REST, the system) are always reported. An empty
// exclude leaves nothing out. Deletions by pruning are never items: they
// are counted in Pruned.
//
// The compaction counts cover the same range, without regard to sessions
// (compaction belongs to none): the nodes whose TierSeq is in the range,
// counted by their durable tier (Archived; Restored = now active; Orphaned),
// and the pruned node tombstones. A node whose tier changed twice in the
// range counts once, by where it ended.
//
// The cost is one pass over the nodes, edges and tombstones and the undo
// journal, O(N + E + T + J),
// plus sorting what is reported.
func (g *Graph) ChangesSince(from, to uint64, exclude string) SyncReport {
	var r SyncReport
	in := func(seq uint64) bool { return seq > from && seq <= to }
	report := func(session string) bool { return session == "" || session != exclude }
	cp := g.checkpointed()

	eachDurable(g.allNodes(), cp.nodes, func(_ string, n *Node) {
		if in(n.Version.Seq) && report(n.Version.Session) {
			r.Items = append(r.Items, SyncItem{Seq: n.Version.Seq, TS: n.Version.TS, Session: n.Version.Session, Node: n})
		}
		if in(n.TierSeq) {
			switch n.Tier {
			case Active:
				r.Restored++
			case Archived:
				r.Archived++
			case Orphaned:
				r.Orphaned++
			}
		}
	})
	eachDurable(g.edgesByKey(), cp.edges, func(_ EdgeKey, e *Edge) {
		if in(e.Version.Seq) && report(e.Version.Session) {
			r.Items = append(r.Items, SyncItem{Seq: e.Version.Seq, TS: e.Version.TS, Session: e.Version.Session, Edge: e})
		}
	})
	eachDurable(tombstones(g.nodeTombs), cp.nodeTombs, func(id string, t *Tombstone) {
		switch {
		case !in(t.Seq):
		case t.Pruned:
			r.Pruned++
		case report(t.Session):
			r.Items = append(r.Items, SyncItem{Seq: t.Seq, TS: t.TS, Session: t.Session, Deleted: true, NodeID: id})
		}
	})
	eachDurable(tombstones(g.edgeTombs), cp.edgeTombs, func(k EdgeKey, t *Tombstone) {
		if in(t.Seq) && !t.Pruned && report(t.Session) {
			r.Items = append(r.Items, SyncItem{Seq: t.Seq, TS: t.TS, Session: t.Session, Deleted: true, EdgeKey: &k})
		}
	})
	slices.SortFunc(r.Items, cmpSyncItem)
	return r
}

// checkpointState holds, for each item changed since the last checkpoint,
// its value at that checkpoint (nil: it did not exist then).
type checkpointState struct {
	nodes     map[string]*Node
	edges     map[EdgeKey]*Edge
	nodeTombs map[string]*Tombstone
	edgeTombs map[EdgeKey]*Tombstone
}

// checkpointed reads the durable values of the items changed since the last
// checkpoint from the undo journal: the first entry for an item holds what
// it was then. Sync reports from these, not from the changes of a batch
// whose save is still in flight — were that save to fail and roll back, a
// change another session made before it would otherwise be skipped now and
// never reported later.
func (g *Graph) checkpointed() checkpointState {
	var cp checkpointState
	if len(g.journal) == 0 {
		return cp
	}
	cp = checkpointState{nodes: map[string]*Node{}, edges: map[EdgeKey]*Edge{},
		nodeTombs: map[string]*Tombstone{}, edgeTombs: map[EdgeKey]*Tombstone{}}
	for _, u := range g.journal {
		switch u.kind {
		case undoNode:
			nu := g.nodeUndos[u.i]
			if _, seen := cp.nodes[nu.id]; !seen {
				cp.nodes[nu.id] = nu.old
			}
		case undoEdge:
			eu := g.edgeUndos[u.i]
			if _, seen := cp.edges[eu.k]; !seen {
				cp.edges[eu.k] = eu.old
			}
		case undoNodeTomb:
			ru := g.rareUndos[u.i]
			if _, seen := cp.nodeTombs[ru.id]; !seen {
				cp.nodeTombs[ru.id] = tombOrNil(ru)
			}
		case undoEdgeTomb:
			ru := g.rareUndos[u.i]
			if _, seen := cp.edgeTombs[ru.edge]; !seen {
				cp.edgeTombs[ru.edge] = tombOrNil(ru)
			}
		}
	}
	return cp
}

// eachDurable visits the durable items of one collection: the current ones
// that have not changed since the checkpoint, then the checkpointed values
// of those that have (a zero value: the item did not exist then).
func eachDurable[K, V comparable](current iter.Seq2[K, V], checkpointed map[K]V, visit func(K, V)) {
	for k, v := range current {
		if _, changed := checkpointed[k]; !changed {
			visit(k, v)
		}
	}
	var none V
	for k, v := range checkpointed {
		if v != none {
			visit(k, v)
		}
	}
}

// edgesByKey yields every edge by its key.
func (g *Graph) edgesByKey() iter.Seq2[EdgeKey, *Edge] {
	return func(yield func(EdgeKey, *Edge) bool) {
		for e := range g.AllEdges() {
			if !yield(e.Key(), e) {
				return
			}
		}
	}
}

// tombstones yields a copy of every tombstone of m by its key.
func tombstones[K comparable](m map[K]Tombstone) iter.Seq2[K, *Tombstone] {
	return func(yield func(K, *Tombstone) bool) {
		for k, t := range m {
			if !yield(k, &t) {
				return
			}
		}
	}
}

func tombOrNil(u rareUndo) *Tombstone {
	if !u.had {
		return nil
	}
	t := u.tomb
	return &t
}

// cmpSyncItem orders sync items by seq. Seqs are unique in a graph built by
// this package; the tie-breaks (nodes before edges, then by name) only make
// the order total for data restored from a file someone edited.
func cmpSyncItem(a, b SyncItem) int {
	if c := cmp.Compare(a.Seq, b.Seq); c != 0 {
		return c
	}
	ka, na := a.itemName()
	kb, nb := b.itemName()
	if ka != kb {
		return ka - kb
	}
	return strings.Compare(na, nb)
}

// itemName returns the kind (0 node, 1 edge) and the name of the item.
func (it SyncItem) itemName() (int, string) {
	switch {
	case it.Node != nil:
		return 0, it.Node.ID
	case it.Edge != nil:
		return 1, it.Edge.Key().String()
	case it.EdgeKey != nil:
		return 1, it.EdgeKey.String()
	}
	return 0, it.NodeID
}

// SeqAt returns the highest seq among the version entries and tombstones of the
// graph whose time is at or before ts, or 0 when there is none. It is the
// starting watermark of a session carried over from the replaced server, which
// recorded times instead of seqs (docs/design/sync.md#numbering-at-load). Tier
// changes have no time and do not count.
func (g *Graph) SeqAt(ts Micros) uint64 {
	var seq uint64
	for _, n := range g.allNodes() {
		if n.Version.TS <= ts {
			seq = max(seq, n.Version.Seq)
		}
	}
	for e := range g.AllEdges() {
		if e.Version.TS <= ts {
			seq = max(seq, e.Version.Seq)
		}
	}
	for _, t := range g.nodeTombs {
		if t.TS <= ts {
			seq = max(seq, t.Seq)
		}
	}
	for _, t := range g.edgeTombs {
		if t.TS <= ts {
			seq = max(seq, t.Seq)
		}
	}
	return seq
}
