package ports

import (
	"iter"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
)

// Event types (docs/design/sync.md#live-events).
const (
	EventNodeUpdated  = "node_updated"
	EventEdgeUpdated  = "edge_updated"
	EventNodeDeleted  = "node_deleted"
	EventEdgeDeleted  = "edge_deleted"
	EventNodeRecalled = "node_recalled"
	EventCompacted    = "compacted"
	// EventProjectRemoved: `kg project rm` removed a project's memory.
	EventProjectRemoved = "project_removed"
	// EventGraphReplaced stands for the events of one write that a
	// subscriber has no room for (a large import): its graph changed too
	// much to be told item by item, so the subscriber re-reads it.
	EventGraphReplaced = "graph_replaced"
)

// Event is one committed change, published after it is durable.
type Event struct {
	Type          string
	Level         domain.Level
	Project       string // project path; empty for user-level events
	Owner         string // the principal whose user graph a user-level event is of (team mode); "" otherwise
	Seq           uint64
	SourceSession string // empty when no session made it (REST, maintenance)

	Node         *domain.Node      // node_updated, node_recalled
	Edge         *domain.Edge      // edge_updated
	NodeID       string            // node_deleted
	EdgeKey      *domain.EdgeKey   // edge_deleted
	EdgesDeleted int               // node_deleted
	Rescued      []string          // node_recalled
	Compaction   *compaction.Moves // compacted
	NodesRemoved int               // project_removed
	EdgesRemoved int               // project_removed
	Replaced     int               // graph_replaced: how many events it stands for
}

// GraphEvent is an event of type typ in graph key at seq, made by session:
// the fields every event of a graph carries, the rest left for the caller.
func GraphEvent(typ string, key domain.GraphKey, seq uint64, session string) Event {
	return Event{Type: typ, Level: key.Level, Project: key.Project, Owner: key.Owner, Seq: seq, SourceSession: session}
}

// Events receives committed changes. Publish is given the events of one
// write, in order, all of one graph, as a sequence it may read only once
// (an import's events are produced as they are published). It must never
// block the write: a subscriber with no room for the rest of a write's
// events gets one EventGraphReplaced in their place
// (docs/design/sync.md#live-events), and one with no room at all is dropped
// rather than waited for.
type Events interface {
	Publish(evs iter.Seq[Event])
}

// One is the sequence of a write with a single event.
func One(ev Event) iter.Seq[Event] {
	return func(yield func(Event) bool) { yield(ev) }
}
