package app

import (
	"context"
)

// Health is what /health reports of the app: live sessions, loaded graphs,
// and what is damaged, cannot be loaded or cannot be saved (then the status
// is degraded; docs/design/storage.md#failed-saves).
func (s *Service) Health(_ context.Context) Health {
	return Health{
		ActiveSessions: s.sessions.Count(s.clock.Now()),
		LoadedGraphs:   len(s.store.Loaded()),
		Problems:       s.problems(),
	}
}

// problems lists what makes the service degraded: the damage the
// repository found when it opened, the graphs that cannot be loaded, the
// saves that are failing now, then a maintenance tick that overruns.
func (s *Service) problems() []string {
	var out []string
	if s.damage != nil {
		out = append(out, s.damage()...)
	}
	out = append(out, s.store.Problems()...)
	out = append(out, s.store.Failing.List()...)
	if p := s.maint.TickProblem(); p != "" {
		out = append(out, p)
	}
	return out
}
