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
// kind (nodeUndos, edgeUndos or rareUndos).
type undo struct {
	kind undoKind
	i    int32
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
func (g *Graph) journalNode(id string, old *Node) {
	if g.tap != nil {
		g.tap.node(id, old)
	}
	if _, seen := g.pending.Nodes[id]; seen {
		return
	}
	g.pending.Nodes[id] = struct{}{}
	g.journal = append(g.journal, undo{kind: undoNode, i: int32(len(g.nodeUndos))})
	g.nodeUndos = append(g.nodeUndos, nodeUndo{id: id, old: old})
}

// journalEdge is journalNode for the edge under k.
func (g *Graph) journalEdge(k EdgeKey, old *Edge) {
	if g.tap != nil {
		g.tap.edge(k, old)
	}
	if _, seen := g.pending.Edges[k]; seen {
		return
	}
	g.pending.Edges[k] = struct{}{}
	g.journal = append(g.journal, undo{kind: undoEdge, i: int32(len(g.edgeUndos))})
	g.edgeUndos = append(g.edgeUndos, edgeUndo{k: k, old: old})
}

// growJournal makes room in the journal for n more node changes. (The
// pending set is not swapped for a bigger one: a ChangeSet returned by
// Pending must keep seeing the graph's changes until the next checkpoint.)
func (g *Graph) growJournal(n int) {
	g.journal = slices.Grow(g.journal, n)
	g.nodeUndos = slices.Grow(g.nodeUndos, n)
}

func (g *Graph) journalRare(u rareUndo) {
	g.journal = append(g.journal, undo{kind: u.kind, i: int32(len(g.rareUndos))})
	g.rareUndos = append(g.rareUndos, u)
}

// Checkpoint marks the current state durable: the pending changes are on
// disk and Rollback will return here.
func (g *Graph) Checkpoint() {
	g.clearJournal()
	g.pending.reset()
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
// Because the counter moved, the metadata stays pending.
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
	g.clearJournal()
	moved := g.seq != g.durableSeq
	g.pending.reset()
	g.pending.Meta = moved
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
