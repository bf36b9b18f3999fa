package app

import (
	"context"

	"github.com/kg-memory/kg/ports"
)

// ReadNode is GET /api/nodes/{level}/{id}: the read by id of one node of
// the graph named by the scope (Scope.Level required). It stamps, promotes
// and rescues like kg_read.
func (s *Service) ReadNode(ctx context.Context, sc Scope, id string) (_ NodeRead, err error) {
	t, e, err := s.scope.graphOf(ctx, sc)
	if err != nil {
		return NodeRead{}, err
	}
	defer s.countOp(t.session, &err)
	rd, ok, err := s.reader.byID(ctx, e, t.session, id)
	if err != nil {
		return NodeRead{}, err
	}
	if !ok {
		return NodeRead{}, nodeNotFound(id, sc.Level)
	}
	s.sessions.See(t.session, ports.SeenKey(rd.Level, id))
	rd.Node = e.WithPendingUses(rd.Node) // shown, not counted (docs/design/compaction.md#the-use-count)
	return rd, nil
}
