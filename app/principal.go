package app

import (
	"context"

	"github.com/kg-memory/kg/ports"
)

// The principal of a request (team mode, docs/design/team.md#people-and-tokens):
// the HTTP side puts the one its token names into the request's context, and
// the app reads it to pick the principal's own user graph and to record who
// wrote what. Without one (a server of one person) every request is nobody's
// and may do anything.

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p ports.Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalOf returns the principal ctx carries, if any.
func PrincipalOf(ctx context.Context) (ports.Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(ports.Principal)
	return p, ok
}

// MayWrite reports whether the request may change memory: it carries no
// principal, or one whose token's scope allows writing.
func MayWrite(ctx context.Context) bool {
	p, ok := PrincipalOf(ctx)
	return !ok || p.CanWrite()
}

// owner is the principal whose user graph ctx's request reads: its
// principal's name in team mode, "" otherwise.
func (s *Service) owner(ctx context.Context) string {
	if s.store.shared == nil {
		return ""
	}
	return principalName(ctx)
}

// touchSession counts an operation of session id, found on any server in
// team mode, and refuses a session that belongs to another principal as
// unknown: its id must not let anyone else into its user graph.
func (s *Service) touchSession(ctx context.Context, id string) (ports.Session, error) {
	if err := s.sessions.ensure(ctx, id); err != nil {
		return ports.Session{}, err
	}
	if err := s.sessionOwnedBy(id, s.owner(ctx)); err != nil {
		return ports.Session{}, err
	}
	return s.sessions.touch(id, s.clock.Now())
}

// sessionOwnedBy fails, as for an unknown session, unless session id
// belongs to owner.
func (s *Service) sessionOwnedBy(id, owner string) error {
	s.sessions.mu.Lock()
	defer s.sessions.mu.Unlock()
	if sess, ok := s.sessions.live[id]; ok && sess.Principal != owner {
		return unknownSession(id)
	}
	return nil
}

// principalName is the name of ctx's principal, "" for none.
func principalName(ctx context.Context) string {
	p, _ := PrincipalOf(ctx)
	return p.Name
}
