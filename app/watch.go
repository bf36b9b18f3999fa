package app

import (
	"context"

	"github.com/kg-memory/kg/domain"
)

// Watch is what a live-events subscriber listens to: the user graph, the
// project Project (none when empty), and not the changes of SessionID.
type Watch struct {
	SessionID string // the subscriber's session; "" for none
	Owner     string // team mode: the principal whose user-level events it hears
	Project   string // canonical project path; "" for user-level events only
}

// Watch checks what a WebSocket asks to listen to
// (docs/design/http.md#websocket), before the upgrade, so a bad request gets
// its REST error: an unknown session, a relative path, or a session and a path
// naming different projects. A team server takes projectKey (the client's
// project_key) before projectPath, as every route does
// (docs/design/team.md#project-keys). It does not count as an operation of
// the session, and loads no graph.
func (s *Service) Watch(ctx context.Context, sessionID, projectPath, projectKey string) (Watch, error) {
	w := Watch{Owner: s.scope.owner(ctx)}
	if sessionID != "" {
		if err := s.sessions.Ensure(ctx, sessionID); err != nil {
			return Watch{}, err
		}
		if err := s.scope.sessionOwnedBy(sessionID, w.Owner); err != nil {
			return Watch{}, err
		}
		sess, err := s.sessions.Lookup(sessionID, s.clock.Now())
		if err != nil {
			return Watch{}, err
		}
		w.SessionID, w.Project = sess.ID, sess.ProjectPath
	}
	if projectPath != "" || projectKey != "" {
		p, err := s.scope.projectOf(ctx, "project_path", projectPath, projectKey)
		if err != nil {
			return Watch{}, err
		}
		if w.SessionID != "" && w.Project != "" && w.Project != p {
			return Watch{}, domain.Invalidf("project_path", "%q is not the project of session %q (%s); pass one of them", p, w.SessionID, w.Project)
		}
		w.Project = p
	}
	return w, nil
}
