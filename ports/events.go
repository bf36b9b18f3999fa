package ports

import "github.com/kg-memory/kg/domain"

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
)

// Event is one committed change, published after it is durable.
type Event struct {
	Type          string
	Level         domain.Level
	Project       string // project path; empty for user-level events
	Owner         string // the principal whose user graph a user-level event is of (team mode); "" otherwise
	Seq           uint64
	SourceSession string // empty when no session made it (REST, maintenance)

	Node         *domain.Node    // node_updated, node_recalled
	Edge         *domain.Edge    // edge_updated
	NodeID       string          // node_deleted
	EdgeKey      *domain.EdgeKey // edge_deleted
	EdgesDeleted int             // node_deleted
	Rescued      []string        // node_recalled
	Compaction   *domain.Moves   // compacted
	NodesRemoved int             // project_removed
	EdgesRemoved int             // project_removed
}

// Events receives committed changes. Publish must never block a write: a
// slow subscriber is dropped rather than waited for.
type Events interface {
	Publish(ev Event)
}
