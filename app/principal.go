package app

import (
	"context"
	"path/filepath"

	"github.com/kg-memory/kg/app/sessiontable"
	"github.com/kg-memory/kg/domain"
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
func (r *resolver) owner(ctx context.Context) string {
	if r.store.Shared == nil {
		return ""
	}
	return principalName(ctx)
}

// sessionFor looks up session id, found on any server in team mode, and
// refuses a session that belongs to another principal as unknown: its id
// must not let anyone else into its user graph. It counts nothing (countOp
// does, once the use case has succeeded).
func (r *resolver) sessionFor(ctx context.Context, id string) (ports.Session, error) {
	if err := r.sessions.Ensure(ctx, id); err != nil {
		return ports.Session{}, err
	}
	if err := r.sessionOwnedBy(id, r.owner(ctx)); err != nil {
		return ports.Session{}, err
	}
	return r.sessions.Lookup(id, r.clock.Now())
}

// sessionOwnedBy fails, as for an unknown session, unless session id
// belongs to owner.
func (r *resolver) sessionOwnedBy(id, owner string) error {
	if r.sessions.HeldByAnother(id, owner) {
		return sessiontable.Unknown(id)
	}
	return nil
}

// principalName is the name of ctx's principal, "" for none.
func principalName(ctx context.Context) string {
	p, _ := PrincipalOf(ctx)
	return p.Name
}

// privateEnds returns, in team mode, the ends of an edge put into a shared
// project graph that name nodes of the writer's own user graph: such an edge
// would show one person's private ids to everyone
// (docs/design/team.md#people-and-tokens). Outside team mode, and for the
// user graph, there are none.
func (r *resolver) privateEnds(ctx context.Context, t target, k domain.GraphKey, in domain.EdgeInput) ([]string, error) {
	if r.store.Shared == nil || k.Level != domain.LevelProject {
		return nil, nil
	}
	u, err := r.store.Get(ctx, domain.UserGraphOf(t.owner))
	if err != nil {
		return nil, err
	}
	u.RLock()
	defer u.RUnlock()
	var out []string
	for _, end := range []string{in.From, in.To} {
		if u.Graph().IsNode(end) {
			out = append(out, end)
		}
	}
	return out, nil
}

// refusePrivateEnds refuses an edge whose end names a node of the writer's
// user graph and none of the project graph g.
func refusePrivateEnds(g *domain.Graph, in domain.EdgeInput, private []string) error {
	for i, end := range private {
		if g.IsNode(end) {
			continue
		}
		field := "from"
		if end != in.From || (i > 0 && in.From == in.To) {
			field = "to"
		}
		return domain.Invalidf(field, "%q is a node of your user graph; an edge of a shared project graph cannot name it, "+
			"because everyone would see it — put the node in the project graph, or the edge in your user graph", end)
	}
	return nil
}

// projectKey names the project of a cwd or project_path in team mode
// (docs/design/team.md#project-keys): a value that is not an absolute path
// is the project's key itself; a path is resolved through its folder — the
// contents of .kg/project, else its git origin plus the sub-folder — and a
// folder that gives no key (or that this server cannot read) is a private
// project of the principal, "private/<principal><path>", which nobody else
// shares.
func (r *resolver) projectKey(ctx context.Context, field, p string) (string, error) {
	if !filepath.IsAbs(p) {
		if err := domain.ValidateProjectKey(field, p); err != nil {
			return "", err
		}
		return p, nil
	}
	if err := domain.ValidateProjectPath(field, p); err != nil {
		return "", err
	}
	c, err := r.paths.Canonical(p)
	if err != nil {
		return "", domain.Invalidf(field, "%q cannot be resolved: %v", p, err)
	}
	if r.keys != nil {
		key, found, err := r.keys.ProjectKey(c)
		if err != nil {
			return "", err
		}
		if found {
			return key, nil
		}
	}
	key := "private/" + principalName(ctx) + c
	if err := domain.ValidateProjectKey(field, key); err != nil {
		return "", err
	}
	return key, nil
}
