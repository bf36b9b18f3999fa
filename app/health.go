package app

import (
	"context"
	"maps"
	"slices"
	"sync"
)

// Health is what /health reports of the app: live sessions, loaded graphs,
// and what is damaged, cannot be loaded or cannot be saved (then the status
// is degraded; docs/design/storage.md#failed-saves).
func (s *Service) Health(_ context.Context) Health {
	return Health{
		ActiveSessions: s.sessions.count(s.clock.Now()),
		LoadedGraphs:   len(s.store.loaded()),
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
	out = append(out, s.store.problemList()...)
	out = append(out, s.store.failing.list()...)
	if p := s.maint.tickProblem(); p != "" {
		out = append(out, p)
	}
	return out
}

// failing is what cannot be saved right now — a graph's writes, its
// checkpoint, the sessions — by what fails: set when it fails, cleared
// when it next succeeds. A disk that is full or read-only fails every save
// while reads go on, and /health must say so rather than "ok".
type failing struct {
	mu sync.Mutex
	m  map[string]string
}

// set records that what fails, and why, in one line.
func (f *failing) set(what, why string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[string]string{}
	}
	f.m[what] = why
}

// clear records that what succeeded.
func (f *failing) clear(what ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, w := range what {
		delete(f.m, w)
	}
}

// list returns the lines of what fails, sorted by what.
func (f *failing) list() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.m))
	for _, w := range slices.Sorted(maps.Keys(f.m)) {
		out = append(out, f.m[w])
	}
	return out
}
