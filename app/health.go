package app

import "context"

// Health is what /health reports of the app: live sessions, loaded graphs,
// and the graphs that could not be loaded (then the status is degraded).
func (s *Service) Health(_ context.Context) Health {
	return Health{
		ActiveSessions: s.sessions.count(s.clock.Now()),
		LoadedGraphs:   len(s.store.loaded()),
		Problems:       s.store.problemList(),
	}
}
