package app

import (
	"context"

	"github.com/kg-memory/kg/domain"
)

// SessionStats is GET /api/sessions/{id}/stats: the session's record and
// the sizes of its graphs. Looking does not count as an operation of the
// session.
func (s *Service) SessionStats(ctx context.Context, id string) (SessionStats, error) {
	if err := s.sessions.Ensure(ctx, id); err != nil {
		return SessionStats{}, err
	}
	if err := s.scope.sessionOwnedBy(id, s.scope.owner(ctx)); err != nil {
		return SessionStats{}, err
	}
	now := s.clock.Now()
	sess, err := s.sessions.Lookup(id, now)
	if err != nil {
		return SessionStats{}, err
	}
	res := SessionStats{Session: sess, Now: now}
	if hv, ok := s.sessions.HookView(sess.ID); ok {
		res.Agent = hv.Agent
	}
	t := target{session: sess.ID, project: sess.ProjectPath, owner: s.scope.owner(ctx)}
	for _, k := range t.keys() {
		e, err := s.store.Get(ctx, k)
		if err != nil {
			return SessionStats{}, err
		}
		e.RLock()
		st := e.Graph().Stats()
		e.RUnlock()
		if k.Level == domain.LevelUser {
			res.UserGraph = st
		} else {
			res.Project = &st
		}
	}
	return res, nil
}
