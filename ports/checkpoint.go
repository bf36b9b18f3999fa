package ports

import (
	"context"

	"github.com/kg-memory/kg/domain"
)

// GraphCheckpointer is implemented by a GraphRepository that makes a commit
// durable in a journal and folds the journal into the graph's file later (the
// json backend, docs/design/storage.md#the-json-journal). The app calls
// Checkpoint for every loaded graph on each maintenance tick and at shutdown. A
// repository that writes in place (bolt, memory) does not implement it.
type GraphCheckpointer interface {
	// Checkpoint folds the journal of the graph named by key into its
	// stored file, writing g, which must hold exactly what was last
	// committed (no change pending) and does not change during the call.
	// It does nothing when the journal is empty. On error nothing
	// acknowledged is lost (the journal keeps every record) and the
	// error's kind is domain.KindUnavailable.
	Checkpoint(ctx context.Context, key domain.GraphKey, g *domain.Graph) error
}

// SessionCheckpointer is implemented by a SessionRepository that journals
// session saves (the json backend). The app calls CheckpointSessions after
// the session save of each maintenance tick and at shutdown.
type SessionCheckpointer interface {
	// CheckpointSessions folds the sessions journal into the sessions
	// file; it does nothing when the journal is empty. On error nothing
	// saved is lost.
	CheckpointSessions(ctx context.Context) error
}
