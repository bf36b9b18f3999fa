package domain

import (
	"fmt"
	"slices"
)

// Undo (docs/design/trust.md#undo): put back, as new writes, the state each
// item had before the changes undone, item by item, skipping — and naming —
// every item someone else changed since, so that no later write is lost.

// UndoTarget names the changes to undo: those of one session, or those
// whose seqs lie in [From, To].
type UndoTarget struct {
	Session  string
	From, To uint64
}

func (t UndoTarget) holds(e HistoryEntry) bool {
	if t.Session != "" {
		return e.Session == t.Session
	}
	return e.Seq >= t.From && e.Seq <= t.To
}

// The actions of an undo step.
const (
	UndoRestore  = "restore"  // the item is written back as it was
	UndoDelete   = "delete"   // the item did not exist before: it is deleted
	UndoRecreate = "recreate" // the item was deleted: it is made again
)

// UndoStep is one item an undo puts back.
type UndoStep struct {
	Edge   bool
	ID     string
	Key    EdgeKey
	Action string
	Node   *Node // the node to put back (restore, recreate)
	EdgeTo *Edge // the edge to put back (restore, recreate)
	// Seq is the seq the step's write took, once applied.
	Seq uint64
}

// Name names the step's item as ItemChange.Name does.
func (s UndoStep) Name() string {
	return ItemChange{Edge: s.Edge, ID: s.ID, Key: s.Key}.Name()
}

// UndoSkip is an item an undo leaves as it is, and why.
type UndoSkip struct {
	Edge   bool
	ID     string
	Key    EdgeKey
	Reason string
}

// UndoPlan is what an undo does: the steps, in the order they are applied
// (nodes written back, edges deleted, nodes deleted, edges written back),
// and the items it skips.
type UndoPlan struct {
	Steps   []UndoStep
	Skipped []UndoSkip
}

type itemRef struct {
	edge bool
	id   string
	k    EdgeKey
}

// itemHistory is what the change log says of one item: the first change
// undone, the last, and the latest change by someone else after the
// first.
type itemHistory struct {
	ref         itemRef
	first, last *ItemChange
	other       *HistoryEntry
	// promoted is the versions reads that promoted the node gave it after
	// the last change undone: logged moves, which a node's version may
	// carry instead of the one that change left.
	promoted []uint64
}

// nodeSeq is the seq of the version a node holds; 0 for none.
func nodeSeq(n *Node) uint64 {
	if n == nil {
		return 0
	}
	return n.Version.Seq
}

// edgeSeq is nodeSeq for an edge.
func edgeSeq(e *Edge) uint64 {
	if e == nil {
		return 0
	}
	return e.Version.Seq
}

// unlogged reports whether the item's version, now at seq cur, is one the
// log does not explain: neither the one the last change undone left nor
// one a logged promotion gave it since. Content alone cannot tell: a write
// may say again what was there (docs/decisions/0068-an-identical-put-is-logged.md).
func (h *itemHistory) unlogged(cur, left uint64) bool {
	return cur != left && !slices.Contains(h.promoted, cur)
}

// PlanUndo decides what undoing the changes target names does to g, given
// the change log entries from the oldest of those changes on, oldest
// first (a longer log does no harm). Moves are never undone and never
// count as a change by someone else: they change no content. An item is
// skipped when someone else changed it after the first change undone, when
// it no longer holds what the last change undone left (a change the log
// does not show), and a node to delete when edges that the undo does not
// delete touch it (deleting it would delete them).
func PlanUndo(g *Graph, entries []HistoryEntry, target UndoTarget) UndoPlan {
	byItem, order := undoHistories(entries, target)
	pl := undoPlanner{g: g, stepped: map[EdgeKey]bool{}}
	for _, ref := range order {
		h := byItem[ref]
		switch {
		case h.other != nil:
			pl.skip(ref, changedSince(h.other))
		case ref.edge:
			pl.edge(h)
		default:
			pl.node(h)
		}
	}
	return pl.finish()
}

// undoHistories gathers, item by item in the order of their first change
// target names, what the log says of the changes undone; moves only note
// the versions a promotion gave.
func undoHistories(entries []HistoryEntry, target UndoTarget) (map[itemRef]*itemHistory, []itemRef) {
	byItem := map[itemRef]*itemHistory{}
	var order []itemRef
	visit := func(e *HistoryEntry, c *ItemChange) {
		if c.Tier != nil || e.Op == HistoryMove {
			if h := byItem[itemRef{id: c.ID}]; h != nil && !c.Edge {
				h.promoted = append(h.promoted, e.Seq) // a read's promotion takes its seq as the version's
			}
			return
		}
		ref := itemRef{edge: c.Edge, id: c.ID, k: c.Key}
		if !c.Edge {
			ref.k = EdgeKey{}
		} else {
			ref.id = ""
		}
		h := byItem[ref]
		if target.holds(*e) {
			if h == nil {
				h = &itemHistory{ref: ref}
				byItem[ref] = h
				order = append(order, ref)
			}
			if h.first == nil {
				h.first = c
			}
			h.last = c
			return
		}
		if h != nil && h.first != nil {
			h.other = e
		}
	}
	for i := range entries {
		e := &entries[i]
		if e.Graph {
			for j := range e.Items {
				visit(e, &e.Items[j])
			}
			continue
		}
		visit(e, &e.ItemChange)
	}
	return byItem, order
}

// undoPlanner is a PlanUndo under way: the skips so far, and the steps by
// kind, in the order finish applies them.
type undoPlanner struct {
	g                               *Graph
	plan                            UndoPlan
	stepped                         map[EdgeKey]bool // the edges the plan writes or deletes
	creates, edgeSteps, edgeDeletes []UndoStep
	nodeDeletes                     []UndoStep
}

func (pl *undoPlanner) skip(r itemRef, why string) {
	pl.plan.Skipped = append(pl.plan.Skipped, UndoSkip{Edge: r.edge, ID: r.id, Key: r.k, Reason: why})
}

// edge plans putting back the edge of h as the first change undone found it.
func (pl *undoPlanner) edge(h *itemHistory) {
	cur, _ := pl.g.Edge(h.ref.k)
	if !SameEdgeContent(cur, h.last.AfterEdge) || h.unlogged(edgeSeq(cur), edgeSeq(h.last.AfterEdge)) {
		pl.skip(h.ref, "changed since, by a change the history does not hold")
		return
	}
	want := h.first.BeforeEdge
	if SameEdgeContent(cur, want) {
		return // already as it was
	}
	st := UndoStep{Edge: true, Key: h.ref.k, EdgeTo: want, Action: undoAction(want == nil, cur == nil)}
	pl.stepped[h.ref.k] = true
	if st.Action == UndoDelete {
		pl.edgeDeletes = append(pl.edgeDeletes, st)
	} else {
		pl.edgeSteps = append(pl.edgeSteps, st)
	}
}

// node plans putting back the node of h as the first change undone found it.
func (pl *undoPlanner) node(h *itemHistory) {
	cur, _ := pl.g.node(h.ref.id)
	if !SameNodeContent(cur, h.last.AfterNode) || h.unlogged(nodeSeq(cur), nodeSeq(h.last.AfterNode)) {
		pl.skip(h.ref, "changed since, by a change the history does not hold")
		return
	}
	want := h.first.BeforeNode
	if SameNodeContent(cur, want) {
		return
	}
	st := UndoStep{ID: h.ref.id, Node: want, Action: undoAction(want == nil, cur == nil)}
	if st.Action == UndoDelete {
		pl.nodeDeletes = append(pl.nodeDeletes, st)
	} else {
		pl.creates = append(pl.creates, st)
	}
}

// finish orders the steps. A node whose deletion would take an edge the
// undo does not touch is left. Nodes are deleted before the edges are
// written back, so that an edge the undo restores is not taken with its end.
func (pl *undoPlanner) finish() UndoPlan {
	var deletes []UndoStep
	for _, st := range pl.nodeDeletes {
		var kept []string
		for _, e := range pl.g.EdgesOf(st.ID) {
			if !pl.stepped[e.Key()] {
				kept = append(kept, e.Key().String())
			}
		}
		if len(kept) > 0 {
			pl.skip(itemRef{id: st.ID}, fmt.Sprintf("deleting it would delete edges the undo keeps: %s", joinFirst(kept, 3)))
			continue
		}
		deletes = append(deletes, st)
	}
	plan := pl.plan
	plan.Steps = append(plan.Steps, pl.creates...)
	plan.Steps = append(plan.Steps, pl.edgeDeletes...)
	plan.Steps = append(plan.Steps, deletes...)
	plan.Steps = append(plan.Steps, pl.edgeSteps...)
	return plan
}

func changedSince(e *HistoryEntry) string {
	who := "session " + e.Session
	if e.Session == "" {
		who = "a write without a session"
	}
	if e.Principal != "" {
		who += " of " + e.Principal
	}
	return fmt.Sprintf("changed since by %s (seq %d)", who, e.Seq)
}

func joinFirst(s []string, n int) string {
	slices.Sort(s)
	out := ""
	for i, x := range s {
		if i == n {
			return out + fmt.Sprintf(" and %d more", len(s)-n)
		}
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

// ApplyUndo applies plan to g as new writes stamped at, each step a put or
// a delete like a client's, and returns the steps applied, each with the
// seq it took, and those that failed, as skips with the reason. Call it
// between StartChangeLog and TakeChangeLog(at, HistoryUndo) to log it.
func (g *Graph) ApplyUndo(plan UndoPlan, at Stamp) (applied []UndoStep, failed []UndoSkip) {
	for _, st := range plan.Steps {
		var err error
		switch {
		case st.Edge && st.Action == UndoDelete:
			g.DeleteEdge(st.Key, at)
		case st.Edge:
			notes := st.EdgeTo.Notes
			if notes == nil {
				notes = []string{}
			}
			_, err = g.PutEdge(EdgeInput{From: st.Key.From, To: st.Key.To, Rel: st.Key.Rel, Notes: notes}, at)
		case st.Action == UndoDelete:
			if _, ok := g.node(st.ID); ok {
				_, err = g.DeleteNode(st.ID, at)
			}
		default:
			n := st.Node
			in := NodeInput{ID: st.ID, Gist: n.Gist, Notes: n.Notes, Touches: n.Touches}
			if in.Notes == nil {
				in.Notes = []string{}
			}
			if in.Touches == nil {
				in.Touches = []string{}
			}
			_, err = g.PutNode(in, at)
		}
		if err != nil {
			failed = append(failed, UndoSkip{Edge: st.Edge, ID: st.ID, Key: st.Key, Reason: err.Error()})
			continue
		}
		st.Seq = g.seq
		applied = append(applied, st)
	}
	return applied, failed
}

// undoAction is what putting an item back takes: a delete when it did not
// exist before, a re-creation when it is gone now, else a restore.
func undoAction(absentBefore, absentNow bool) string {
	switch {
	case absentBefore:
		return UndoDelete
	case absentNow:
		return UndoRecreate
	default:
		return UndoRestore
	}
}
