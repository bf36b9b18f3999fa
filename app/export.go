package app

import (
	"context"

	"github.com/kg-memory/kg/domain"
)

// Export is one graph's state, as GET /api/export and `kg export` write it
// out as a portable document.
type Export struct {
	Key  domain.GraphKey
	At   domain.Micros    // when it was taken
	Data domain.GraphData // nodes by id, edges by (from, rel, to); shares no state with the live graph's indexes
}

// Export is GET /api/export: the current state of the graph named by the
// scope (Scope.Level required), loading it if needed. It changes nothing.
func (s *Service) Export(ctx context.Context, sc Scope) (_ Export, err error) {
	t, e, err := s.scope.graphOf(ctx, sc)
	if err != nil {
		return Export{}, err
	}
	defer s.countOp(t.session, &err)
	ex := Export{Key: e.Key(), At: s.clock.Now()}
	e.RLock()
	ex.Data = e.Graph().Data()
	e.RUnlock()
	return ex, nil
}
