package ws

import (
	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/ports"
)

// The frames of docs/design/sync.md#live-events. Every event frame carries the
// base fields; project and source_session are null when there is none.
type base struct {
	Type          string  `json:"type"`
	Level         string  `json:"level"`
	Project       *string `json:"project"`
	Seq           uint64  `json:"seq"`
	SourceSession *string `json:"source_session"`
}

type nodeFrame struct {
	base
	Node apijson.Node `json:"node"`
}

type edgeFrame struct {
	base
	Edge apijson.Edge `json:"edge"`
}

type nodeDeletedFrame struct {
	base
	NodeID       string `json:"node_id"`
	EdgesDeleted int    `json:"edges_deleted"`
}

type edgeDeletedFrame struct {
	base
	From string `json:"from"`
	To   string `json:"to"`
	Rel  string `json:"rel"`
}

type recalledFrame struct {
	base
	Node    apijson.Node `json:"node"`
	Rescued []string     `json:"rescued"`
}

type compactedFrame struct {
	base
	Archived []string `json:"archived"`
	Restored []string `json:"restored"`
	Orphaned []string `json:"orphaned"`
	Deleted  []string `json:"deleted"` // pruned: orphaned longer than the orphan grace
	// Moves is every move in the order made, each with its reason, so a
	// person told of the run sees why it moved what it moved.
	Moves []moveFrame `json:"moves"`
}

// moveFrame is one move of a compaction run: a node, its tiers before and
// after ("deleted" when pruned) and the reason, as /api/compaction/run gives
// it without the rank's figures.
type moveFrame struct {
	ID     string `json:"id"`
	From   string `json:"from"`
	To     string `json:"to"`
	Reason string `json:"reason"`
}

// replacedFrame stands for the events of one write the socket had no room
// for (a large import): the client re-reads the graph.
type replacedFrame struct {
	base
	Changes int `json:"changes"` // how many events it stands for
}

type projectRemovedFrame struct {
	base
	NodesRemoved int `json:"nodes_removed"`
	EdgesRemoved int `json:"edges_removed"`
}

// connectedFrame is the first frame of every socket.
type connectedFrame struct {
	Type      string  `json:"type"`
	SessionID *string `json:"session_id"`
}

// frameOf returns the frame of ev, or nil for an event type this version
// does not know (or one missing its payload), which is not sent.
func frameOf(ev ports.Event) any {
	b := base{Type: ev.Type, Level: string(ev.Level), Project: optional(ev.Project), Seq: ev.Seq,
		SourceSession: optional(ev.SourceSession)}
	switch ev.Type {
	case ports.EventNodeUpdated:
		if ev.Node != nil {
			return nodeFrame{b, apijson.NodeOf(ev.Node)}
		}
	case ports.EventEdgeUpdated:
		if ev.Edge != nil {
			return edgeFrame{b, apijson.EdgeOf(ev.Edge)}
		}
	case ports.EventNodeDeleted:
		return nodeDeletedFrame{b, ev.NodeID, ev.EdgesDeleted}
	case ports.EventEdgeDeleted:
		if ev.EdgeKey != nil {
			return edgeDeletedFrame{b, ev.EdgeKey.From, ev.EdgeKey.To, ev.EdgeKey.Rel}
		}
	case ports.EventNodeRecalled:
		if ev.Node != nil {
			return recalledFrame{b, apijson.NodeOf(ev.Node), nonNil(ev.Rescued)}
		}
	case ports.EventCompacted:
		if m := ev.Compaction; m != nil {
			moves := make([]moveFrame, 0, len(m.Steps))
			for _, mv := range apijson.MovesOf(*m).Moves {
				moves = append(moves, moveFrame{mv.ID, mv.From, mv.To, mv.Reason})
			}
			return compactedFrame{b, nonNil(m.Archived), nonNil(m.Restored), nonNil(m.Orphaned), nonNil(m.Pruned), moves}
		}
	case ports.EventGraphReplaced:
		return replacedFrame{b, ev.Replaced}
	case ports.EventProjectRemoved:
		return projectRemovedFrame{b, ev.NodesRemoved, ev.EdgesRemoved}
	}
	return nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
