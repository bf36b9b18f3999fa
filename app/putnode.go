package app

import (
	"context"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// PutNode is kg_put_node: it creates or merges a node in the graph named by
// the scope, runs compaction as part of the same write, and returns once
// both are durable.
func (s *Service) PutNode(ctx context.Context, sc Scope, in domain.NodeInput) (_ PutNodeResult, err error) {
	t, err := s.resolve(ctx, sc)
	if err != nil {
		return PutNodeResult{}, err
	}
	defer s.countOp(t.session, &err)
	k, err := t.key(sc.Level)
	if err != nil {
		return PutNodeResult{}, err
	}
	// Reject bad input before a graph is loaded for it.
	if in, err = t.relativeNode(k, in).Validate(); err != nil {
		return PutNodeResult{}, err
	}
	e, err := s.store.get(ctx, k)
	if err != nil {
		return PutNodeResult{}, err
	}
	res := PutNodeResult{Level: k.Level, Project: k.Project}
	err = s.store.write(ctx, e, t.session, func(g *domain.Graph, at domain.Stamp) ([]ports.Event, error) {
		n, err := g.PutNode(in, at)
		if err != nil {
			return nil, err
		}
		ev := eventBase(ports.EventNodeUpdated, k, n.Version.Seq, at.Session)
		ev.Node = n
		moves, cev := s.compactRun(g, at)
		res.Compaction = moves
		res.Node, _ = g.Node(in.ID) // its tier after the run
		return append([]ports.Event{ev}, cev...), nil
	})
	if err != nil {
		return PutNodeResult{}, err
	}
	// A session is not reminded of what it just wrote
	// (docs/design/hooks.md#sessions-and-the-seen-set).
	s.sessions.see(t.session, ports.SeenKey(k.Level, in.ID))
	return res, nil
}
