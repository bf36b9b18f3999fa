package app

import (
	"context"

	"github.com/kg-memory/kg/app/filecheck"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/secretscreen"
	"github.com/kg-memory/kg/ports"
)

// PutEdge is kg_put_edge: it upserts the edge (from, to, rel) in the graph
// named by the scope, runs compaction as part of the same write, and
// returns once both are durable. The ends need not exist.
func (s *Service) PutEdge(ctx context.Context, sc Scope, in domain.EdgeInput) (_ PutEdgeResult, err error) {
	t, err := s.scope.resolve(ctx, sc)
	if err != nil {
		return PutEdgeResult{}, err
	}
	defer s.countOp(t.session, &err)
	k, err := t.key(sc.Level)
	if err != nil {
		return PutEdgeResult{}, err
	}
	if in, err = t.relativeEdge(k, in).Validate(); err != nil {
		return PutEdgeResult{}, err
	}
	in, redacted, err := secretscreen.Edge(in, s.cfg.Secrets)
	if err != nil {
		return PutEdgeResult{}, err
	}
	e, err := s.store.Get(ctx, k)
	if err != nil {
		return PutEdgeResult{}, err
	}
	private, err := s.scope.privateEnds(ctx, t, k, in)
	if err != nil {
		return PutEdgeResult{}, err
	}
	res := PutEdgeResult{Level: k.Level, Project: k.Project, Redacted: redacted}
	// A file end is read before the write, outside the graph's lock, and
	// recorded on the node at the other end (docs/design/trust.md#staleness).
	root := s.stamps.FilesRoot(t.root, k)
	var stamps []domain.FileStamp
	if root != "" {
		stamps = s.stamps.HashNamed(ctx, root, filecheck.EdgeFilesBefore(e, in))
		if t.root != "" {
			e.FilesRoot.Store(&root)
		}
	}
	err = s.store.Write(ctx, e, t.session, func(g *domain.Graph, at domain.Stamp) ([]ports.Event, error) {
		if err := refusePrivateEnds(g, in, private); err != nil {
			return nil, err
		}
		ed, err := g.PutEdge(in, at)
		if err != nil {
			return nil, err
		}
		filecheck.RecordEdgeFiles(g, in, stamps)
		ev := ports.GraphEvent(ports.EventEdgeUpdated, k, ed.Version.Seq, at.Session)
		ev.Edge = ed
		res.Edge = ed
		moves, cev := s.compactor.run(g, at)
		res.Compaction = moves
		return append([]ports.Event{ev}, cev...), nil
	})
	if err != nil {
		return PutEdgeResult{}, err
	}
	return res, nil
}
