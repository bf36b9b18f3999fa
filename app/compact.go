package app

import (
	"context"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/ports"
)

// Compact is POST /api/compaction/run: one compaction run of the graph
// named by the scope now, through the write path, returning the moves made.
func (s *Service) Compact(ctx context.Context, sc Scope) (_ compaction.Moves, err error) {
	t, e, err := s.scope.graphOf(ctx, sc)
	if err != nil {
		return compaction.Moves{}, err
	}
	defer s.countOp(t.session, &err)
	var moves compaction.Moves
	err = s.store.Write(ctx, e, t.session, func(g *domain.Graph, at domain.Stamp) ([]ports.Event, error) {
		m, evs := s.compactor.runOn(ports.CompactionOnRequest, g, at)
		moves = m
		return evs, nil
	})
	if err != nil {
		return compaction.Moves{}, err
	}
	return moves, nil
}

// compactor runs compaction inside a write (docs/design/compaction.md) and
// counts each run by its trigger.
type compactor struct {
	policy  compaction.Policy
	metrics ports.Metrics
}

// run is the compaction run of one write, with its compacted event when it
// moved nodes.
func (c compactor) run(g *domain.Graph, at domain.Stamp) (compaction.Moves, []ports.Event) {
	return c.runOn(ports.CompactionOnWrite, g, at)
}

// runOn is a compaction run started by trigger, listing every move.
func (c compactor) runOn(trigger ports.CompactionTrigger, g *domain.Graph, at domain.Stamp) (compaction.Moves, []ports.Event) {
	return c.runListing(trigger, g, at, -1)
}

// runListing is runOn listing at most list moves with their reasons
// (compaction.RunListing; < 0: all).
func (c compactor) runListing(trigger ports.CompactionTrigger, g *domain.Graph, at domain.Stamp, list int) (compaction.Moves, []ports.Event) {
	m := compaction.RunListing(g, at.Now, c.policy, list)
	c.metrics.CompactionRan(trigger)
	if m.Empty() {
		return m, nil
	}
	ev := ports.GraphEvent(ports.EventCompacted, g.Key(), g.Seq(), at.Session)
	ev.Compaction = &m
	return m, []ports.Event{ev}
}
