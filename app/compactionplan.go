package app

import (
	"context"

	"github.com/kg-memory/kg/domain"
)

// CompactionPlan is GET /api/compaction/plan: what a compaction run of the
// graph named by the scope would do now, and why. It changes nothing.
func (s *Service) CompactionPlan(ctx context.Context, sc Scope) (domain.Moves, error) {
	_, e, err := s.graphOf(ctx, sc)
	if err != nil {
		return domain.Moves{}, err
	}
	now := s.clock.Now()
	e.mu.RLock()
	defer e.mu.RUnlock()
	return domain.PlanCompaction(e.g, now, s.cfg.Policy), nil
}
