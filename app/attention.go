package app

import (
	"context"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/domain/duplicates"
	"github.com/kg-memory/kg/domain/secretscreen"
	"github.com/kg-memory/kg/domain/stale"
)

// Attention is what one graph holds that needs a person
// (docs/design/trust.md#needs-attention): the nodes marked stale with the
// files that changed, the clusters of possible duplicates, the credentials
// found in stored data, and the moves the next compaction run would make —
// the nodes at the budget's edge. It is what `kg doctor --stale
// --duplicates --secrets` and the plan say, in one read for the web page.
type Attention struct {
	Key        domain.GraphKey
	Stale      []StaleMarked
	Duplicates []duplicates.Cluster
	Secrets    []secretscreen.Stored
	Edge       compaction.Moves // what a compaction run would do now
}

// StaleMarked is a node whose recorded project files changed or vanished,
// as the last check found them.
type StaleMarked struct {
	ID    string
	Files []domain.StaleFile
}

// Attention is GET /api/attention: what of the graph named by the scope
// (Scope.Level required) needs a person. It is a read: it changes nothing,
// not even read stamps, and reads no project file (the marks are the last
// check's, docs/design/trust.md#marks).
func (s *Service) Attention(ctx context.Context, sc Scope) (_ Attention, err error) {
	t, e, err := s.scope.graphOf(ctx, sc)
	if err != nil {
		return Attention{}, err
	}
	defer s.countOp(t.session, &err)
	at := Attention{Key: e.Key()}
	now := s.clock.Now()
	e.RLock()
	defer e.RUnlock()
	for _, id := range stale.Nodes(e.Graph()) {
		n, _ := e.Graph().Node(id)
		at.Stale = append(at.Stale, StaleMarked{ID: id, Files: n.Stale})
	}
	at.Duplicates = duplicates.Clusters(e.Graph())
	at.Secrets = secretscreen.Scan(e.Graph())
	at.Edge = compaction.Plan(e.Graph(), now, s.cfg.Policy)
	return at, nil
}
