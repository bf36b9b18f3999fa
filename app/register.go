package app

import (
	"context"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// RegisterSession is POST /api/sessions/register: it starts a session bound
// to projectPath (absolute; empty for none) and returns it.
func (s *Service) RegisterSession(ctx context.Context, projectPath string) (ports.Session, error) {
	var p string
	if projectPath != "" {
		var err error
		if p, err = s.canonical("project_path", projectPath); err != nil {
			return ports.Session{}, err
		}
	}
	return s.newSession(ctx, p, "")
}

// newSession loads the session's graphs and registers it with each graph's
// durable seq as its first watermark (docs/design/sync.md#sessions). A graph
// that cannot be loaded gets no watermark; the session then starts that graph
// at the seq of its start time, like a session of the replaced server.
// claude, when not empty, is the Claude session the new session is bound to
// (docs/design/hooks.md#session-binding), saved with it.
func (s *Service) newSession(ctx context.Context, project, claude string) (ports.Session, error) {
	keys := []domain.GraphKey{domain.UserGraph}
	if project != "" {
		keys = append(keys, domain.ProjectGraph(project))
	}
	wm := make(map[domain.GraphKey]uint64, len(keys))
	for _, k := range keys {
		e, err := s.store.get(ctx, k)
		if err != nil {
			s.log.Warn("session registered without a watermark for an unavailable graph", "graph", k.String(), "err", err)
			continue
		}
		e.mu.RLock()
		wm[k] = e.g.DurableSeq()
		e.mu.RUnlock()
	}
	sess, err := s.sessions.create(ctx, project, s.clock.Now(), wm, claude)
	if err != nil {
		return ports.Session{}, err
	}
	s.store.metrics.SessionStarted()
	s.log.Info("session started", "session", sess.ID, "project", project)
	return sess, nil
}
