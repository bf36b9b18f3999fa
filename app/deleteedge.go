package app

import (
	"context"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// DeleteEdge is kg_delete_edge. Without a level the user graph is tried
// first, then the project graph; an edge in both is an error asking for the
// level. A missing edge is not an error: Deleted is false and nothing is
// written.
func (s *Service) DeleteEdge(ctx context.Context, sc Scope, key domain.EdgeKey) (_ DeleteEdgeResult, err error) {
	t, err := s.resolve(ctx, sc)
	if err != nil {
		return DeleteEdgeResult{}, err
	}
	defer s.countOp(t.session, &err)
	e, err := s.locate(ctx, t, sc.Level, "edge", func(g *domain.Graph) bool {
		_, ok := g.Edge(key)
		return ok
	})
	if err != nil {
		return DeleteEdgeResult{}, err
	}
	if e == nil {
		return DeleteEdgeResult{Level: sc.Level, Project: t.projectOf(sc.Level), Key: key}, nil
	}
	k := e.key
	res := DeleteEdgeResult{Level: k.Level, Project: k.Project, Key: key}
	err = s.store.write(ctx, e, t.session, func(g *domain.Graph, at domain.Stamp) ([]ports.Event, error) {
		if !g.DeleteEdge(key, at) { // deleted meanwhile
			return nil, nil
		}
		res.Deleted = true
		tomb, _ := g.EdgeTombstone(key)
		ev := eventBase(ports.EventEdgeDeleted, k, tomb.Seq, at.Session)
		kc := key
		ev.EdgeKey = &kc
		_, cev := s.compactRun(g, at)
		return append([]ports.Event{ev}, cev...), nil
	})
	if err != nil {
		return DeleteEdgeResult{}, err
	}
	return res, nil
}

// projectOf is the project a result at level names: the target's project
// for the project level, none otherwise.
func (t target) projectOf(level domain.Level) string {
	if level == domain.LevelProject {
		return t.project
	}
	return ""
}
