package domain

import "slices"

// The undo journal: what the primitives replaced since the last checkpoint,
// so that Rollback returns the graph to its last durable state in time
// proportional to the change (docs/decisions/0001-undo-journal.md).

type undoKind uint8

const (
	undoNode undoKind = iota
	undoEdge
	undoNodeTomb
	undoEdgeTomb
	undoProgress
	undoProjectPath // id holds the path before the change
	undoMeta        // id names the metadata value, progress holds the old one
)

// undo orders what the primitives replaced: entry i of the list of its
// kind (nodeUndos, edgeUndos or rareUndos). wasPending says that the item
// was pending already when the entry was made; it is kept only while the
// graph holds what Restore left pending (restoredPending), the one time a
// first change can find its item pending.
type undo struct {
	kind       undoKind
	wasPending bool
	i          int32
}

// restoredPending is what a graph keeps while its pending set names items
// no journal entry holds: the items Restore left pending (every item after
// an upgrade, or the nodes given the default use count), which have not
// changed since the checkpoint but must be written. They were pending at
// the checkpoint, so Rollback leaves them pending (and the metadata too if
// it was); and as the pending set no longer tells which items were
// journaled since the checkpoint, nodes and edges do. Checkpoint lets it
// go: normally the save right after the load.
type restoredPending struct {
	meta  bool
	nodes map[string]struct{}
	edges map[EdgeKey]struct{}
}

// nodeUndo is the node that was under id; nil for none.
type nodeUndo struct {
	id  string
	old *Node
}

// edgeUndo is the edge that was under k; nil for none.
type edgeUndo struct {
	k   EdgeKey
	old *Edge
}

// rareUndo is what a change of a tombstone, a progress state or the project
// path replaced.
type rareUndo struct {
	kind     undoKind
	id       string
	edge     EdgeKey
	tomb     Tombstone
	had      bool
	progress RawJSON
}

// journalNode records that the node under id, old, is being replaced, and
// names id in the pending set. Only the first change of an item since the
// checkpoint is journaled: Rollback puts back the value each item had at
// the checkpoint, which is what its first entry holds, and a primitive sets
// an item whole, so the values between are never needed. Keeping them would
// keep alive every version a batch makes and replaces: an import of 500,000
// nodes compacted in the same batch held each imported version under the
// one compaction made of it (docs/performance.md#import-memory).
//
// A pending item has been journaled, unless Restore left it pending: while
// it did, restoredPending says which were.
func (g *Graph) journalNode(id string, old *Node) {
	if g.tap != nil {
		g.tap.node(id, old)
	}
	_, pending := g.pending.Nodes[id]
	if r := g.restored; r != nil {
		if _, journaled := r.nodes[id]; journaled {
			return
		}
		r.nodes[id] = struct{}{}
	} else if pending {
		return
	}
	g.pending.Nodes[id] = struct{}{}
	g.journal = append(g.journal, undo{kind: undoNode, wasPending: pending, i: int32(len(g.nodeUndos))})
	g.nodeUndos = append(g.nodeUndos, nodeUndo{id: id, old: old})
}

// journalEdge is journalNode for the edge under k.
func (g *Graph) journalEdge(k EdgeKey, old *Edge) {
	if g.tap != nil {
		g.tap.edge(k, old)
	}
	_, pending := g.pending.Edges[k]
	if r := g.restored; r != nil {
		if _, journaled := r.edges[k]; journaled {
			return
		}
		r.edges[k] = struct{}{}
	} else if pending {
		return
	}
	g.pending.Edges[k] = struct{}{}
	g.journal = append(g.journal, undo{kind: undoEdge, wasPending: pending, i: int32(len(g.edgeUndos))})
	g.edgeUndos = append(g.edgeUndos, edgeUndo{k: k, old: old})
}

// growJournal makes room in the journal for n more node changes. (The
// pending set is not swapped for a bigger one: a ChangeSet returned by
// Pending must keep seeing the graph's changes until the next checkpoint.)
func (g *Graph) growJournal(n int) {
	g.journal = slices.Grow(g.journal, n)
	g.nodeUndos = slices.Grow(g.nodeUndos, n)
}

// journalRare records what a change of a tombstone, a progress state or
// the metadata replaced; every change of one is journaled (they are few).
func (g *Graph) journalRare(u rareUndo) {
	j := undo{kind: u.kind, i: int32(len(g.rareUndos))}
	if g.restored != nil {
		j.wasPending = g.pendingRare(u)
	}
	g.journal = append(g.journal, j)
	g.rareUndos = append(g.rareUndos, u)
}

// pendingRare reports whether the tombstone or progress state u is about
// is pending.
func (g *Graph) pendingRare(u rareUndo) bool {
	var ok bool
	switch u.kind {
	case undoNodeTomb:
		_, ok = g.pending.NodeTombstones[u.id]
	case undoEdgeTomb:
		_, ok = g.pending.EdgeTombstones[u.edge]
	case undoProgress:
		_, ok = g.pending.Progress[u.id]
	}
	return ok
}

// Checkpoint marks the current state durable: the pending changes are on
// disk and Rollback will return here.
func (g *Graph) Checkpoint() {
	g.clearJournal()
	g.pending.reset()
	g.restored = nil
	g.durableSeq = g.seq
}

// clearJournal empties the journal, keeping its room (up to keptJournal
// entries) but none of the values it held.
func (g *Graph) clearJournal() {
	g.journal = emptied(g.journal)
	g.nodeUndos = emptied(g.nodeUndos)
	g.edgeUndos = emptied(g.edgeUndos)
	g.rareUndos = emptied(g.rareUndos)
}

// keptJournal is the room a journal list keeps between batches: what a
// usual batch needs. The room of a rare large one (an import, a first
// compaction of a big graph: a million entries) is let go rather than held
// for the life of the graph.
const keptJournal = 1 << 12

func emptied[T any](s []T) []T {
	if cap(s) > keptJournal {
		return nil
	}
	clear(s)
	return s[:0]
}

// Rollback returns the graph to its state at the last checkpoint, except the
// seq counter, which never goes back so that no seq is handed out twice.
// Because the counter moved, the metadata stays pending. What Restore left
// pending stays pending: it was at the checkpoint, and is still to write.
func (g *Graph) Rollback() {
	for _, j := range slices.Backward(g.journal) {
		switch j.kind {
		case undoNode:
			u := g.nodeUndos[j.i]
			g.putNode(u.id, u.old)
		case undoEdge:
			u := g.edgeUndos[j.i]
			g.putEdge(u.k, u.old)
		default:
			g.undoRare(g.rareUndos[j.i])
		}
	}
	moved := g.seq != g.durableSeq
	if r := g.restored; r != nil {
		g.unpendJournaled()
		clear(r.nodes)
		clear(r.edges)
		moved = moved || r.meta
	} else {
		g.pending.reset()
	}
	g.clearJournal()
	g.pending.Meta = moved
}

// unpendJournaled takes out of the pending set every item the journal
// names that was not pending before its first change since the checkpoint:
// what is left is what Restore left pending.
func (g *Graph) unpendJournaled() {
	for _, j := range g.journal {
		if j.wasPending {
			continue
		}
		switch j.kind {
		case undoNode:
			delete(g.pending.Nodes, g.nodeUndos[j.i].id)
		case undoEdge:
			delete(g.pending.Edges, g.edgeUndos[j.i].k)
		case undoNodeTomb:
			delete(g.pending.NodeTombstones, g.rareUndos[j.i].id)
		case undoEdgeTomb:
			delete(g.pending.EdgeTombstones, g.rareUndos[j.i].edge)
		case undoProgress:
			delete(g.pending.Progress, g.rareUndos[j.i].id)
		}
	}
}

func (g *Graph) undoRare(u rareUndo) {
	switch u.kind {
	case undoNodeTomb:
		if u.had {
			g.nodeTombs[u.id] = u.tomb
		} else {
			delete(g.nodeTombs, u.id)
		}
	case undoEdgeTomb:
		if u.had {
			g.edgeTombs[u.edge] = u.tomb
		} else {
			delete(g.edgeTombs, u.edge)
		}
	case undoProgress:
		if u.had {
			g.progress[u.id] = u.progress
		} else {
			delete(g.progress, u.id)
		}
	case undoProjectPath:
		g.projectPath = u.id
	case undoMeta:
		if u.had {
			g.meta[u.id] = u.progress
		} else {
			delete(g.meta, u.id)
		}
	}
}
