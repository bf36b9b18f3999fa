package app

import "context"

// Health is what /health reports of the app: live sessions, loaded graphs,
// and what is damaged or cannot be loaded (then the status is degraded).
func (s *Service) Health(_ context.Context) Health {
	return Health{
		ActiveSessions: s.sessions.count(s.clock.Now()),
		LoadedGraphs:   len(s.store.loaded()),
		Problems:       s.problems(),
	}
}

// problems lists what makes the service degraded: the damage the
// repository found when it opened, then the graphs that cannot be loaded.
func (s *Service) problems() []string {
	var out []string
	if s.damage != nil {
		out = append(out, s.damage()...)
	}
	return append(out, s.store.problemList()...)
}
