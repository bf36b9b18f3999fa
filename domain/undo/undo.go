// Package undo plans and applies the undoing of logged changes: a room of
// domain (docs/decisions/0088-domain-rooms.md).
package undo

import (
	"fmt"
	"slices"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
)

// Undo (docs/design/trust.md#undo): put back, as new writes, the state each
// item had before the changes undone, item by item, skipping — and naming —
// every item someone else changed since, so that no later write is lost.

// Target names the changes to undo: those of one session, or those
// whose seqs lie in [From, To].
type Target struct {
	Session  string
	From, To uint64
}

func (t Target) holds(e domain.HistoryEntry) bool {
	if t.Session != "" {
		return e.Session == t.Session
	}
	return e.Seq >= t.From && e.Seq <= t.To
}

// The actions of an undo step.
const (
	Restore  = "restore"  // the item is written back as it was
	Delete   = "delete"   // the item did not exist before: it is deleted
	Recreate = "recreate" // the item was deleted: it is made again
)

// Step is one item an undo puts back.
type Step struct {
	Edge   bool
	ID     string
	Key    domain.EdgeKey
	Action string
	Node   *domain.Node // the node to put back (restore, recreate)
	EdgeTo *domain.Edge // the edge to put back (restore, recreate)
	Tier   domain.Tier  // the tier to move the node back to (retier)
	// Seq is the seq the step's write took, once applied.
	Seq uint64
}

// Name names the step's item as ItemChange.Name does.
func (s Step) Name() string {
	return domain.ItemChange{Edge: s.Edge, ID: s.ID, Key: s.Key}.Name()
}

// Skip is an item an undo leaves as it is, and why.
type Skip struct {
	Edge   bool
	ID     string
	Key    domain.EdgeKey
	Reason string
}

// Plan is what an undo does: the steps, in the order they are applied
// (nodes written back, edges deleted, nodes deleted, edges written back,
// nodes moved back to their tier),
// and the items it skips.
type Plan struct {
	Steps   []Step
	Skipped []Skip
}

type itemRef struct {
	edge bool
	id   string
	k    domain.EdgeKey
}

// itemHistory is what the change log says of one item: the first change
// undone, the last, and the latest change by someone else after the
// first.
type itemHistory struct {
	ref         itemRef
	first, last *domain.ItemChange
	other       *domain.HistoryEntry
	// promoted is the versions reads that promoted the node gave it after
	// the last change undone: logged moves, which a node's version may
	// carry instead of the one that change left.
	promoted []uint64
}

// nodeSeq is the seq of the version a node holds; 0 for none.
func nodeSeq(n *domain.Node) uint64 {
	if n == nil {
		return 0
	}
	return n.Version.Seq
}

// edgeSeq is nodeSeq for an edge.
func edgeSeq(e *domain.Edge) uint64 {
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

// NewPlan decides what undoing the changes target names does to g, given
// the change log entries from the oldest of those changes on, oldest
// first (a longer log does no harm). Moves are never undone and never
// count as a change by someone else: they change no content (a person's
// archive is undone: tiers.go). An item is
// skipped when someone else changed it after the first change undone, when
// it no longer holds what the last change undone left (a change the log
// does not show), and a node to delete when edges that the undo does not
// delete touch it (deleting it would delete them).
func NewPlan(g *domain.Graph, entries []domain.HistoryEntry, target Target) Plan {
	byItem, order := undoHistories(entries, target)
	pl := undoPlanner{g: g, stepped: map[domain.EdgeKey]bool{}}
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
	pl.retier(archivesUndone(entries, target))
	return pl.finish()
}

// undoHistories gathers, item by item in the order of their first change
// target names, what the log says of the changes undone; moves only note
// the versions a promotion gave.
func undoHistories(entries []domain.HistoryEntry, target Target) (map[itemRef]*itemHistory, []itemRef) {
	byItem := map[itemRef]*itemHistory{}
	var order []itemRef
	visit := func(e *domain.HistoryEntry, c *domain.ItemChange) {
		if c.Tier != nil || e.Op == domain.HistoryMove {
			if h := byItem[itemRef{id: c.ID}]; h != nil && !c.Edge {
				h.promoted = append(h.promoted, e.Seq) // a read's promotion takes its seq as the version's
			}
			return
		}
		ref := itemRef{edge: c.Edge, id: c.ID, k: c.Key}
		if !c.Edge {
			ref.k = domain.EdgeKey{}
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

// undoPlanner is a NewPlan under way: the skips so far, and the steps by
// kind, in the order finish applies them.
type undoPlanner struct {
	g                               *domain.Graph
	plan                            Plan
	stepped                         map[domain.EdgeKey]bool // the edges the plan writes or deletes
	creates, edgeSteps, edgeDeletes []Step
	nodeDeletes                     []Step
	retiers                         []Step
}

func (pl *undoPlanner) skip(r itemRef, why string) {
	pl.plan.Skipped = append(pl.plan.Skipped, Skip{Edge: r.edge, ID: r.id, Key: r.k, Reason: why})
}

// edge plans putting back the edge of h as the first change undone found it.
func (pl *undoPlanner) edge(h *itemHistory) {
	cur, _ := pl.g.Edge(h.ref.k)
	if !domain.SameEdgeContent(cur, h.last.AfterEdge) || h.unlogged(edgeSeq(cur), edgeSeq(h.last.AfterEdge)) {
		pl.skip(h.ref, "changed since, by a change the history does not hold")
		return
	}
	want := h.first.BeforeEdge
	if domain.SameEdgeContent(cur, want) {
		return // already as it was
	}
	st := Step{Edge: true, Key: h.ref.k, EdgeTo: want, Action: undoAction(want == nil, cur == nil)}
	pl.stepped[h.ref.k] = true
	if st.Action == Delete {
		pl.edgeDeletes = append(pl.edgeDeletes, st)
	} else {
		pl.edgeSteps = append(pl.edgeSteps, st)
	}
}

// node plans putting back the node of h as the first change undone found it.
func (pl *undoPlanner) node(h *itemHistory) {
	cur, _ := pl.g.Node(h.ref.id)
	if !domain.SameNodeContent(cur, h.last.AfterNode) || h.unlogged(nodeSeq(cur), nodeSeq(h.last.AfterNode)) {
		pl.skip(h.ref, "changed since, by a change the history does not hold")
		return
	}
	want := h.first.BeforeNode
	if domain.SameNodeContent(cur, want) {
		return
	}
	st := Step{ID: h.ref.id, Node: want, Action: undoAction(want == nil, cur == nil)}
	if st.Action == Delete {
		pl.nodeDeletes = append(pl.nodeDeletes, st)
	} else {
		pl.creates = append(pl.creates, st)
	}
}

// finish orders the steps. A node whose deletion would take an edge the
// undo does not touch is left. Nodes are deleted before the edges are
// written back, so that an edge the undo restores is not taken with its end.
func (pl *undoPlanner) finish() Plan {
	var deletes []Step
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
	plan.Steps = append(plan.Steps, pl.retiers...)
	return plan
}

func changedSince(e *domain.HistoryEntry) string {
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

// Apply applies plan to g as new writes stamped at, each step a put or
// a delete like a client's, and returns the steps applied, each with the
// seq it took, and those that failed, as skips with the reason. Call it
// between StartChangeLog and TakeChangeLog(at, HistoryUndo) to log it.
func Apply(g *domain.Graph, plan Plan, at domain.Stamp) (applied []Step, failed []Skip) {
	for _, st := range plan.Steps {
		var err error
		switch {
		case st.Edge && st.Action == Delete:
			g.DeleteEdge(st.Key, at)
		case st.Edge:
			notes := st.EdgeTo.Notes
			if notes == nil {
				notes = []string{}
			}
			_, err = g.PutEdge(domain.EdgeInput{From: st.Key.From, To: st.Key.To, Rel: st.Key.Rel, Notes: notes}, at)
		case st.Action == Retier:
			err = compaction.RestoreTier(g, st.ID, st.Tier, at.Now)
		case st.Action == Delete:
			if _, ok := g.Node(st.ID); ok {
				_, err = g.DeleteNode(st.ID, at)
			}
		default:
			n := st.Node
			in := domain.NodeInput{ID: st.ID, Gist: n.Gist, Notes: n.Notes, Touches: n.Touches}
			if in.Notes == nil {
				in.Notes = []string{}
			}
			if in.Touches == nil {
				in.Touches = []string{}
			}
			_, err = g.PutNode(in, at)
		}
		if err != nil {
			failed = append(failed, Skip{Edge: st.Edge, ID: st.ID, Key: st.Key, Reason: err.Error()})
			continue
		}
		st.Seq = g.Seq()
		applied = append(applied, st)
	}
	return applied, failed
}

// undoAction is what putting an item back takes: a delete when it did not
// exist before, a re-creation when it is gone now, else a restore.
func undoAction(absentBefore, absentNow bool) string {
	switch {
	case absentBefore:
		return Delete
	case absentNow:
		return Recreate
	default:
		return Restore
	}
}
