package domain

import (
	"fmt"
	"slices"
)

// The change log (docs/design/trust.md#history-and-undo): every committed
// change of a node or an edge, with who made it and the item before and
// after, so that a person can see what a session did and undo it. The
// domain builds the entries of each write (StartChangeLog, TakeChangeLog),
// the storage backends keep them in the same durable commit as the change
// (team mode's builds them from its changes rows, changes.BatchEntries in
// domain/changes, which shows them as diffs: changes.Diff), and
// undo.NewPlan (domain/undo) decides what an undo puts back.

// HistoryOp is what an entry of the change log records.
type HistoryOp string

// The operations of the change log.
const (
	HistoryPut    HistoryOp = "put"    // a node or edge created or changed
	HistoryDelete HistoryOp = "delete" // a node or edge deleted by a client
	// HistoryMove is a tier change by compaction or by a read that
	// promoted: the entry holds the tier change only, no bodies. A node
	// deleted by compaction is a move to "deleted". As the op of a write
	// (TakeChangeLog, changes.Writer) it marks a read that promoted: its new
	// version with the same content is a move, not a put.
	HistoryMove HistoryOp = "move"
	HistoryUndo HistoryOp = "undo" // a change made by an undo
	// HistoryArchive is a node a person moved to the archived tier
	// (compaction.ArchiveNodes): a move, with the tier change only, that an undo
	// of its session reverses (docs/decisions/0106-archive-by-hand.md).
	HistoryArchive HistoryOp = "archive"
	// HistoryImportReplace, HistoryProjectMv and HistoryMigrate are one
	// entry each, of the whole graph (Graph set).
	HistoryImportReplace HistoryOp = "import_replace"
	HistoryProjectMv     HistoryOp = "project_mv"
	HistoryMigrate       HistoryOp = "migrate"
)

// TierDeleted is the tier a node deleted by compaction moves to.
const TierDeleted = "deleted"

// TierChange is the tier change of a move entry.
type TierChange struct {
	From, To string
}

// ItemChange is one node or edge as one write changed it: its value before
// and after (nil: it did not exist).
type ItemChange struct {
	Edge       bool // false: a node
	ID         string
	Key        EdgeKey
	BeforeNode *Node
	AfterNode  *Node
	BeforeEdge *Edge
	AfterEdge  *Edge
	Tier       *TierChange // moves only; no bodies then
}

// Name is how the item is named in messages: the node's id, or the edge as
// the full read shows it.
func (c ItemChange) Name() string {
	if c.Edge {
		return "edge " + c.Key.String()
	}
	return "node " + c.ID
}

// HistoryEntry is one entry of a graph's change log.
type HistoryEntry struct {
	Seq       uint64 // the seq of the change (the item's version, tombstone or tier seq)
	Time      Micros
	Session   string
	Principal string
	Op        HistoryOp
	// ItemChange is the item of a node or edge entry.
	ItemChange
	// Graph marks an entry of the whole graph (an import with replace, a
	// project move, a migration): Items lists what it changed (nothing for
	// a move or a migration) and Detail says what it was.
	Graph  bool
	Detail string
	Items  []ItemChange
}

// HistoryBatch is the entries of one committed batch, oldest first, with
// the batch's seq range: what a backend stores in one commit.
type HistoryBatch struct {
	SeqBefore, SeqAfter uint64
	Entries             []HistoryEntry
}

// changeTap records, for one write, the value each node and edge had
// before the write first changed it, in the order of first change.
type changeTap struct {
	nodes map[string]*Node
	edges map[EdgeKey]*Edge
	order []tapped
	// over is set once the write changed more than MaxLoggedItems items:
	// what was recorded is dropped, and the write is one entry.
	over bool
}

// MaxLoggedItems is the most nodes and edges one write's change log holds
// one by one. A write that changes more (an import of half a million nodes,
// the first compaction of a large graph) is one entry of the whole graph
// without its items: keeping each item before and after would cost the
// write as much memory again as the graph (docs/performance.md#import-memory).
// An undo then skips what it changed, by the current-value check.
const MaxLoggedItems = 10_000

func (t *changeTap) full() bool {
	if t.over {
		return true
	}
	if len(t.order) >= MaxLoggedItems {
		t.over, t.nodes, t.edges, t.order = true, nil, nil, nil
		return true
	}
	return false
}

type tapped struct {
	edge bool
	id   string
	k    EdgeKey
}

func (t *changeTap) node(id string, old *Node) {
	if !t.full() && tapFirst(&t.nodes, id, old) {
		t.order = append(t.order, tapped{id: id})
	}
}

func (t *changeTap) edge(k EdgeKey, old *Edge) {
	if !t.full() && tapFirst(&t.edges, k, old) {
		t.order = append(t.order, tapped{edge: true, k: k})
	}
}

// tapFirst keeps old as k's value before the write unless an earlier change
// of the same write already did, and reports whether it kept it.
func tapFirst[K comparable, V any](m *map[K]V, k K, old V) bool {
	if *m == nil {
		*m = map[K]V{}
	} else if _, seen := (*m)[k]; seen {
		return false
	}
	(*m)[k] = old
	return true
}

// StartChangeLog starts recording the changes of one write, for
// TakeChangeLog. A write that fails changes nothing, and its log is taken
// and dropped.
func (g *Graph) StartChangeLog() {
	g.tap = &changeTap{}
}

// TakeChangeLog ends the recording StartChangeLog began and returns the
// change log entries of what the write changed, in order of first change,
// stamped with at. op HistoryUndo marks the puts and deletes of an undo;
// HistoryImportReplace makes one entry of the whole graph; HistoryMove
// marks a read that promoted. Any other new version of a node is a put,
// even one whose content is what was stored. A node or edge
// changed only in what is not its content or tier (a read stamp, a use
// count) has no entry; neither has an edge pruned with its node, which
// the node's move to "deleted" stands for.
func (g *Graph) TakeChangeLog(at Stamp, op HistoryOp) []HistoryEntry {
	t := g.tap
	g.tap = nil
	if t == nil {
		return nil
	}
	if t.over {
		whole := HistoryEntry{Seq: g.seq, Time: at.Now, Session: at.Session, Principal: at.Principal, Op: op, Graph: true,
			Detail: fmt.Sprintf("changed more than %d nodes and edges at once, too many to keep one by one", MaxLoggedItems)}
		if whole.Op == "" {
			whole.Op = HistoryPut
		}
		return []HistoryEntry{whole}
	}
	var out []HistoryEntry
	for _, it := range t.order {
		var e HistoryEntry
		var ok bool
		if it.edge {
			e, ok = g.edgeEntry(it.k, t.edges[it.k])
		} else {
			e, ok = g.nodeEntry(it.id, t.nodes[it.id], op == HistoryMove)
		}
		if !ok {
			continue
		}
		e.Time, e.Session, e.Principal = at.Now, at.Session, at.Principal
		e.Op = LoggedAs(op, e.Op)
		out = append(out, e)
	}
	if op == HistoryImportReplace {
		whole := HistoryEntry{Seq: g.seq, Time: at.Now, Session: at.Session, Principal: at.Principal,
			Op: HistoryImportReplace, Graph: true, Detail: "import with replace"}
		for _, e := range out {
			if e.Op != HistoryMove {
				whole.Items = append(whole.Items, e.ItemChange)
			}
		}
		if len(out) == 0 {
			return nil
		}
		return []HistoryEntry{whole}
	}
	return out
}

// LoggedAs is the op an entry of a write of op is logged as, given what
// its item's change was: an undo's puts and deletes are undo entries, an
// archive's moves archive entries. TakeChangeLog and the change log of team
// mode (domain/changes) both log by it.
func LoggedAs(op, item HistoryOp) HistoryOp {
	switch {
	case op == HistoryUndo && item != HistoryMove:
		return HistoryUndo
	case op == HistoryArchive && item == HistoryMove:
		return HistoryArchive
	}
	return item
}

func (g *Graph) nodeEntry(id string, before *Node, recall bool) (HistoryEntry, bool) {
	after, _ := g.node(id)
	return NodeChangeEntry(id, before, after, tombPtr(g.nodeTombs, id), recall)
}

// NodeChangeEntry classifies the change of a node from before to after
// (nil: none); tomb is its tombstone after the change, for a deletion.
// recall says the write was a read that promoted (op HistoryMove): a new
// version with the same content is then a move. Any other new version is a
// put, even one that says what the node said: it bumps the version and the
// seq, kg_sync reports it, and undo must see it to leave it alone
// (docs/decisions/0068-an-identical-put-is-logged.md). It reports false for
// a change the change log does not keep (a read stamp, a use count).
// TakeChangeLog and the change log of team mode (domain/changes) both build
// their entries with it.
func NodeChangeEntry(id string, before, after *Node, tomb *Tombstone, recall bool) (HistoryEntry, bool) {
	e := HistoryEntry{ItemChange: ItemChange{ID: id, BeforeNode: before, AfterNode: after}}
	switch {
	case before == nil && after == nil:
		return e, false
	case after == nil:
		if tomb == nil {
			tomb = &Tombstone{}
		}
		e.Seq = tomb.Seq
		if tomb.Pruned {
			e.Op, e.Tier, e.BeforeNode = HistoryMove, &TierChange{From: before.Tier.String(), To: TierDeleted}, nil
			return e, true
		}
		e.Op = HistoryDelete
		return e, true
	case before == nil:
		e.Op, e.Seq = HistoryPut, after.Version.Seq
		return e, true
	case SameNodeContent(before, after) && (recall || before.Version == after.Version):
		if before.Tier == after.Tier {
			return e, false // a read stamp, a use count
		}
		e.Op, e.Tier, e.BeforeNode, e.AfterNode = HistoryMove, &TierChange{From: before.Tier.String(), To: after.Tier.String()}, nil, nil
		e.Seq = after.TierSeq
		if after.Version.Seq != before.Version.Seq {
			e.Seq = after.Version.Seq // a read that promoted
		}
		return e, true
	}
	e.Op, e.Seq = HistoryPut, after.Version.Seq
	return e, true
}

func (g *Graph) edgeEntry(k EdgeKey, before *Edge) (HistoryEntry, bool) {
	after, _ := g.Edge(k)
	return EdgeChangeEntry(k, before, after, tombPtr(g.edgeTombs, k))
}

// EdgeChangeEntry is NodeChangeEntry for an edge.
func EdgeChangeEntry(k EdgeKey, before, after *Edge, tomb *Tombstone) (HistoryEntry, bool) {
	e := HistoryEntry{ItemChange: ItemChange{Edge: true, Key: k, BeforeEdge: before, AfterEdge: after}}
	switch {
	case before == nil && after == nil:
		return e, false
	case after == nil:
		if tomb == nil {
			tomb = &Tombstone{}
		}
		if tomb.Pruned {
			return e, false
		}
		e.Op, e.Seq = HistoryDelete, tomb.Seq
		return e, true
	case before != nil && before.Version == after.Version:
		return e, false
	}
	e.Op, e.Seq = HistoryPut, after.Version.Seq
	return e, true
}

// SameNodeContent reports whether two nodes say the same: gist, notes and
// touches. Tiers, stamps and versions are not content.
func SameNodeContent(a, b *Node) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Gist == b.Gist && slices.Equal(a.Notes, b.Notes) && slices.Equal(a.Touches, b.Touches)
}

// SameEdgeContent reports whether two edges say the same: their notes (the
// key is their identity).
func SameEdgeContent(a, b *Edge) bool {
	if a == nil || b == nil {
		return a == b
	}
	return slices.Equal(a.Notes, b.Notes)
}
