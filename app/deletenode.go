package app

import (
	"context"

	"github.com/kg-memory/kg/app/graphstore"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// DeleteNode is kg_delete_node: it deletes the node and the edges of its
// graph that touch it. Without a level the user graph is tried first, then
// the project graph; a node in both is an error asking for the level,
// because a destructive call must never guess.
func (s *Service) DeleteNode(ctx context.Context, sc Scope, id string) (_ DeleteNodeResult, err error) {
	t, err := s.scope.resolve(ctx, sc)
	if err != nil {
		return DeleteNodeResult{}, err
	}
	defer s.countOp(t.session, &err)
	e, err := s.locate(ctx, t, sc.Level, "node", func(g *domain.Graph) bool { return g.IsNode(id) })
	if err != nil {
		return DeleteNodeResult{}, err
	}
	if e == nil {
		return DeleteNodeResult{}, nodeNotFound(id, sc.Level)
	}
	k := e.Key()
	res := DeleteNodeResult{Level: k.Level, Project: k.Project, ID: id}
	err = s.store.Write(ctx, e, t.session, func(g *domain.Graph, at domain.Stamp) ([]ports.Event, error) {
		n, err := g.DeleteNode(id, at)
		if err != nil {
			return nil, err
		}
		tomb, _ := g.NodeTombstone(id)
		ev := ports.GraphEvent(ports.EventNodeDeleted, k, tomb.Seq, at.Session)
		ev.NodeID, ev.EdgesDeleted = id, n
		res.EdgesDeleted = n
		_, cev := s.compactor.run(g, at)
		return append([]ports.Event{ev}, cev...), nil
	})
	if err != nil {
		if domain.KindOf(err) == domain.KindNotFound { // deleted meanwhile
			return DeleteNodeResult{}, nodeNotFound(id, sc.Level)
		}
		return DeleteNodeResult{}, err
	}
	return res, nil
}

// locate finds the graph that holds an item for a delete: the graph of
// level, or without one the user graph, then the project graph. It returns
// nil when no graph holds it, and an invalid error naming level when both
// do.
func (s *Service) locate(ctx context.Context, t target, level domain.Level, what string, has func(*domain.Graph) bool) (*graphstore.Entry, error) {
	keys := t.keys()
	if level != "" {
		k, err := t.key(level)
		if err != nil {
			return nil, err
		}
		keys = []domain.GraphKey{k}
	}
	// Team mode: what other servers committed first, as before a read, so
	// that a delete finds an item written on another server a moment ago
	// (docs/design/team.md#reads).
	s.store.Fresh(ctx, keys...)
	var found []*graphstore.Entry
	for _, k := range keys {
		e, err := s.store.Get(ctx, k)
		if err != nil {
			return nil, err
		}
		e.RLock()
		ok := has(e.Graph())
		e.RUnlock()
		if ok {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
		return found[0], nil
	}
	return nil, domain.Invalidf("level", "the %s exists in both the user and the project graph; pass level (user or project) to say which to delete", what)
}
