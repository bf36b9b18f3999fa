package app

import (
	"context"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Compact is POST /api/compaction/run: one compaction run of the graph
// named by the scope now, through the write path, returning the moves made.
func (s *Service) Compact(ctx context.Context, sc Scope) (_ domain.Moves, err error) {
	t, e, err := s.graphOf(ctx, sc)
	if err != nil {
		return domain.Moves{}, err
	}
	defer s.countOp(t.session, &err)
	var moves domain.Moves
	err = s.store.write(ctx, e, t.session, func(g *domain.Graph, at domain.Stamp) ([]ports.Event, error) {
		m, evs := s.compactRunOn(ports.CompactionOnRequest, g, at)
		moves = m
		return evs, nil
	})
	if err != nil {
		return domain.Moves{}, err
	}
	return moves, nil
}

// compactRun is the compaction run of one write, with its compacted event
// when it moved nodes.
func (s *Service) compactRun(g *domain.Graph, at domain.Stamp) (domain.Moves, []ports.Event) {
	return s.compactRunOn(ports.CompactionOnWrite, g, at)
}

// compactRunOn is a compaction run started by trigger, listing every move.
func (s *Service) compactRunOn(trigger ports.CompactionTrigger, g *domain.Graph, at domain.Stamp) (domain.Moves, []ports.Event) {
	return s.compactRunListing(trigger, g, at, -1)
}

// compactRunListing is compactRunOn listing at most list moves with their
// reasons (domain.Graph.CompactListing; < 0: all).
func (s *Service) compactRunListing(trigger ports.CompactionTrigger, g *domain.Graph, at domain.Stamp, list int) (domain.Moves, []ports.Event) {
	m := g.CompactListing(at.Now, s.cfg.Policy, list)
	s.store.metrics.CompactionRan(trigger)
	if m.Empty() {
		return m, nil
	}
	ev := eventBase(ports.EventCompacted, g.Key(), g.Seq(), at.Session)
	ev.Compaction = &m
	return m, []ports.Event{ev}
}
