package app

import (
	"context"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// DeleteEdge is kg_delete_edge. Without a level the user graph is tried
// first, then the project graph; an edge in both is an error asking for the
// level. A missing edge is not an error: Deleted is false and nothing is
// written. In team mode a file-path end given as an absolute path under the
// request's root names the repository-relative end it was stored as
// (docs/design/team.md#repository-relative-paths).
func (s *Service) DeleteEdge(ctx context.Context, sc Scope, key domain.EdgeKey) (_ DeleteEdgeResult, err error) {
	t, err := s.scope.resolve(ctx, sc)
	if err != nil {
		return DeleteEdgeResult{}, err
	}
	defer s.countOp(t.session, &err)
	e, err := s.locate(ctx, t, sc.Level, "edge", func(g *domain.Graph) bool {
		_, ok := g.Edge(t.relativeEdgeKey(g.Key(), key))
		return ok
	})
	if err != nil {
		return DeleteEdgeResult{}, err
	}
	if e == nil {
		return DeleteEdgeResult{Level: sc.Level, Project: t.projectOf(sc.Level), Key: key}, nil
	}
	k := e.Key()
	key = t.relativeEdgeKey(k, key)
	res := DeleteEdgeResult{Level: k.Level, Project: k.Project, Key: key}
	err = s.store.Write(ctx, e, t.session, func(g *domain.Graph, at domain.Stamp) ([]ports.Event, error) {
		if !g.DeleteEdge(key, at) { // deleted meanwhile
			return nil, nil
		}
		res.Deleted = true
		tomb, _ := g.EdgeTombstone(key)
		ev := ports.GraphEvent(ports.EventEdgeDeleted, k, tomb.Seq, at.Session)
		kc := key
		ev.EdgeKey = &kc
		_, cev := s.compactor.run(g, at)
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
