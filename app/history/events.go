package history

import (
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/undo"
	"github.com/kg-memory/kg/ports"
)

// undoEvents are the events of an undo's steps, as the same puts and
// deletes by a client publish.
func undoEvents(k domain.GraphKey, g *domain.Graph, applied []undo.Step, session string) []ports.Event {
	var evs []ports.Event
	for _, st := range applied {
		switch {
		case st.Edge && st.Action == undo.Delete:
			tomb, _ := g.EdgeTombstone(st.Key)
			ev := eventBase(ports.EventEdgeDeleted, k, tomb.Seq, session)
			kc := st.Key
			ev.EdgeKey = &kc
			evs = append(evs, ev)
		case st.Edge:
			ed, ok := g.Edge(st.Key)
			if !ok {
				continue
			}
			ev := eventBase(ports.EventEdgeUpdated, k, ed.Version.Seq, session)
			ev.Edge = ed
			evs = append(evs, ev)
		case st.Action == undo.Delete:
			tomb, _ := g.NodeTombstone(st.ID)
			ev := eventBase(ports.EventNodeDeleted, k, tomb.Seq, session)
			ev.NodeID = st.ID
			evs = append(evs, ev)
		default:
			n, ok := g.Node(st.ID)
			if !ok {
				continue
			}
			ev := eventBase(ports.EventNodeUpdated, k, n.Version.Seq, session)
			ev.Node = n
			evs = append(evs, ev)
		}
	}
	return evs
}

// eventBase fills the fields every event of graph key carries, as app's
// writes fill them.
func eventBase(typ string, key domain.GraphKey, seq uint64, session string) ports.Event {
	return ports.Event{Type: typ, Level: key.Level, Project: key.Project, Owner: key.Owner, Seq: seq, SourceSession: session}
}
