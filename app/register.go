package app

import (
	"context"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// RegisterSession is POST /api/sessions/register: it starts a session
// bound to the project named by projectPath (absolute) and projectKey (its
// key, projectOf), either optional (both empty: none), and returns it.
func (s *Service) RegisterSession(ctx context.Context, projectPath, projectKey string) (ports.Session, error) {
	var p string
	if projectPath != "" || projectKey != "" {
		var err error
		if p, err = s.scope.projectOf(ctx, "project_path", projectPath, projectKey); err != nil {
			return ports.Session{}, err
		}
	}
	return s.newSession(ctx, p, s.scope.rootOf(p, projectPath), "")
}

// newSession loads the session's graphs and registers it with each graph's
// durable seq as its first watermark (docs/design/sync.md#sessions). A graph
// that cannot be loaded gets no watermark; the session then starts that graph
// at the seq of its start time, like a session of the replaced server.
// root is the folder the project was named by in team mode (rootOf).
// claude, when not empty, is the Claude session the new session is bound to
// (docs/design/hooks.md#session-binding), saved with it.
func (s *Service) newSession(ctx context.Context, project, root, claude string) (ports.Session, error) {
	keys := []domain.GraphKey{domain.UserGraphOf(s.scope.owner(ctx))}
	if project != "" {
		keys = append(keys, domain.ProjectGraph(project))
	}
	wm := make(map[domain.GraphKey]uint64, len(keys))
	for _, k := range keys {
		e, err := s.store.Get(ctx, k)
		if err != nil {
			s.log.Warn("session registered without a watermark for an unavailable graph", "graph", k.String(), "err", err)
			continue
		}
		e.RLock()
		wm[k] = e.Graph().DurableSeq()
		e.RUnlock()
	}
	sess, err := s.sessions.Create(ctx, project, s.scope.owner(ctx), root, s.clock.Now(), wm, claude)
	if err != nil {
		return ports.Session{}, err
	}
	s.store.Metrics.SessionStarted()
	s.log.Info("session started", "session", sess.ID, "project", project)
	return sess, nil
}
