package history

import (
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/domain/undo"
	"github.com/kg-memory/kg/ports"
)

// undoEvents are the events of an undo's steps, as the same puts and
// deletes by a client publish.
func undoEvents(k domain.GraphKey, g *domain.Graph, applied []undo.Step, session string) []ports.Event {
	var evs []ports.Event
	var retiered []undo.Step
	for _, st := range applied {
		switch {
		case st.Action == undo.Retier:
			retiered = append(retiered, st)
		case st.Edge && st.Action == undo.Delete:
			tomb, _ := g.EdgeTombstone(st.Key)
			ev := ports.GraphEvent(ports.EventEdgeDeleted, k, tomb.Seq, session)
			kc := st.Key
			ev.EdgeKey = &kc
			evs = append(evs, ev)
		case st.Edge:
			ed, ok := g.Edge(st.Key)
			if !ok {
				continue
			}
			ev := ports.GraphEvent(ports.EventEdgeUpdated, k, ed.Version.Seq, session)
			ev.Edge = ed
			evs = append(evs, ev)
		case st.Action == undo.Delete:
			tomb, _ := g.NodeTombstone(st.ID)
			ev := ports.GraphEvent(ports.EventNodeDeleted, k, tomb.Seq, session)
			ev.NodeID = st.ID
			evs = append(evs, ev)
		default:
			n, ok := g.Node(st.ID)
			if !ok {
				continue
			}
			ev := ports.GraphEvent(ports.EventNodeUpdated, k, n.Version.Seq, session)
			ev.Node = n
			evs = append(evs, ev)
		}
	}
	return append(evs, retierEvents(k, g, retiered, session)...)
}

// retierEvents is the event of an undo's steps that moved nodes back to the
// tier a person's archive took them from: a compacted event, as the archive
// itself was heard, at the seq of the last tier change — a node's version
// seq is older than what a listener has, and would be taken for an echo.
func retierEvents(k domain.GraphKey, g *domain.Graph, steps []undo.Step, session string) []ports.Event {
	if len(steps) == 0 {
		return nil
	}
	var m compaction.Moves
	for _, st := range steps {
		n, ok := g.Node(st.ID)
		if !ok {
			continue
		}
		if n.Tier == domain.Active {
			m.Restored = append(m.Restored, st.ID)
		} else {
			m.Archived = append(m.Archived, st.ID)
		}
		m.Steps = append(m.Steps, compaction.Move{ID: st.ID, From: domain.Archived, To: n.Tier, Pass: PassUndo, Reason: "put back by an undo"})
	}
	ev := ports.GraphEvent(ports.EventCompacted, k, g.Seq(), session)
	ev.Compaction = &m
	return []ports.Event{ev}
}

// PassUndo is the pass of a move an undo made (retierEvents).
const PassUndo = "undo"
