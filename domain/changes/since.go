// Package changes is what changed in a graph, as sessions and people are
// told of it. For kg_sync (docs/design/sync.md#kg_sync): what changed in a
// seq range (Since) and where a session carried over from the replaced
// server starts (SeqAt), read from the graph's durable state — the current
// graph with the items changed since its last checkpoint at their values
// then, which Graph.PendingBefore reports. For the change log
// (docs/design/trust.md#history-and-undo), its pure half: the entries of a
// committed batch of team mode (BatchEntries), built with the graph's
// NodeChangeEntry and EdgeChangeEntry as the graph's own TakeChangeLog
// builds a write's, and the readable diff of a change (Diff)
// (docs/decisions/0110-changes-a-room.md). Like domain it is pure: no I/O,
// no goroutines, no wall clock (docs/decisions/0101-compaction-a-room.md).
package changes

import (
	"cmp"
	"iter"
	"slices"
	"strings"

	"github.com/kg-memory/kg/domain"
)

// Item is one change reported by Since.
type Item struct {
	Seq     uint64
	TS      domain.Micros   // when the change was made
	Session string          // the session that made it; "" for none
	Node    *domain.Node    // an upserted node (current content)
	Edge    *domain.Edge    // an upserted edge (current content)
	Deleted bool            // a deletion: NodeID or EdgeKey names the item
	NodeID  string          // for a deleted node
	EdgeKey *domain.EdgeKey // for a deleted edge
}

// Report is what changed in one graph within a seq range.
type Report struct {
	Items []Item // by seq
	// Compaction counts the tier changes (TierSeq in range) by the node's
	// current tier, and pruned node tombstones in range.
	Archived, Restored, Orphaned, Pruned int
}

// Since reports what changed in the graph in the seq range (from, to]
// for a session's kg_sync (docs/design/sync.md#kg_sync).
//
// It reads the durable state: the graph as of its last checkpoint, so a
// batch whose save is in flight is reported after that save, never before
// — were that save to fail and roll back, a change another session made
// before it would otherwise be skipped now and never reported later.
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
// journal (Graph.PendingBefore), O(N + E + T + J),
// plus sorting what is reported.
func Since(g *domain.Graph, from, to uint64, exclude string) Report {
	var r Report
	in := func(seq uint64) bool { return seq > from && seq <= to }
	report := func(session string) bool { return session == "" || session != exclude }
	before := g.PendingBefore()

	eachDurable(nodesByID(g), before.Nodes, func(_ string, n *domain.Node) {
		if in(n.Version.Seq) && report(n.Version.Session) {
			r.Items = append(r.Items, Item{Seq: n.Version.Seq, TS: n.Version.TS, Session: n.Version.Session, Node: n})
		}
		if in(n.TierSeq) {
			switch n.Tier {
			case domain.Active:
				r.Restored++
			case domain.Archived:
				r.Archived++
			case domain.Orphaned:
				r.Orphaned++
			}
		}
	})
	eachDurable(edgesByKey(g), before.Edges, func(_ domain.EdgeKey, e *domain.Edge) {
		if in(e.Version.Seq) && report(e.Version.Session) {
			r.Items = append(r.Items, Item{Seq: e.Version.Seq, TS: e.Version.TS, Session: e.Version.Session, Edge: e})
		}
	})
	eachDurable(tombstones(g.AllNodeTombstones()), before.NodeTombstones, func(id string, t *domain.Tombstone) {
		switch {
		case !in(t.Seq):
		case t.Pruned:
			r.Pruned++
		case report(t.Session):
			r.Items = append(r.Items, Item{Seq: t.Seq, TS: t.TS, Session: t.Session, Deleted: true, NodeID: id})
		}
	})
	eachDurable(tombstones(g.AllEdgeTombstones()), before.EdgeTombstones, func(k domain.EdgeKey, t *domain.Tombstone) {
		if in(t.Seq) && !t.Pruned && report(t.Session) {
			r.Items = append(r.Items, Item{Seq: t.Seq, TS: t.TS, Session: t.Session, Deleted: true, EdgeKey: &k})
		}
	})
	slices.SortFunc(r.Items, cmpItem)
	return r
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

// nodesByID yields every node by its id, the key the graph holds it under.
func nodesByID(g *domain.Graph) iter.Seq2[string, *domain.Node] {
	return func(yield func(string, *domain.Node) bool) {
		for n := range g.AllNodes() {
			if !yield(n.ID, n) {
				return
			}
		}
	}
}

// edgesByKey yields every edge by its key.
func edgesByKey(g *domain.Graph) iter.Seq2[domain.EdgeKey, *domain.Edge] {
	return func(yield func(domain.EdgeKey, *domain.Edge) bool) {
		for e := range g.AllEdges() {
			if !yield(e.Key(), e) {
				return
			}
		}
	}
}

// tombstones yields a copy of every tombstone of all by its key.
func tombstones[K comparable](all iter.Seq2[K, domain.Tombstone]) iter.Seq2[K, *domain.Tombstone] {
	return func(yield func(K, *domain.Tombstone) bool) {
		for k, t := range all {
			if !yield(k, &t) {
				return
			}
		}
	}
}

// cmpItem orders sync items by seq. Seqs are unique in a graph built by
// package domain; the tie-breaks (nodes before edges, then by name) only make
// the order total for data restored from a file someone edited.
func cmpItem(a, b Item) int {
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
func (it Item) itemName() (int, string) {
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
func SeqAt(g *domain.Graph, ts domain.Micros) uint64 {
	var seq uint64
	for n := range g.AllNodes() {
		if n.Version.TS <= ts {
			seq = max(seq, n.Version.Seq)
		}
	}
	for e := range g.AllEdges() {
		if e.Version.TS <= ts {
			seq = max(seq, e.Version.Seq)
		}
	}
	for _, t := range g.AllNodeTombstones() {
		if t.TS <= ts {
			seq = max(seq, t.Seq)
		}
	}
	for _, t := range g.AllEdgeTombstones() {
		if t.TS <= ts {
			seq = max(seq, t.Seq)
		}
	}
	return seq
}
