package app

import "context"

// ReadNode is GET /api/nodes/{level}/{id}: the read by id of one node of
// the graph named by the scope (Scope.Level required). It stamps, promotes
// and rescues like kg_read.
func (s *Service) ReadNode(ctx context.Context, sc Scope, id string) (NodeRead, error) {
	t, err := s.resolve(sc)
	if err != nil {
		return NodeRead{}, err
	}
	k, err := t.key(sc.Level)
	if err != nil {
		return NodeRead{}, err
	}
	e, err := s.store.get(ctx, k)
	if err != nil {
		return NodeRead{}, err
	}
	rd, ok, err := s.readByID(ctx, e, t.session, id)
	if err != nil {
		return NodeRead{}, err
	}
	if !ok {
		return NodeRead{}, nodeNotFound(id, sc.Level)
	}
	return rd, nil
}
