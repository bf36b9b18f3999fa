package app

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/kg-memory/kg/app/graphstore"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/domain/fullread"
	"github.com/kg-memory/kg/ports"
)

// Read is kg_read: it starts a session (cwd, no session id) or continues
// one, then returns the full read of the user graph and the session's
// project graph, or the nodes asked for by id.
func (s *Service) Read(ctx context.Context, req ReadRequest) (_ ReadResult, err error) {
	var res ReadResult
	if req.Level != "" {
		if _, err := domain.ParseLevel("level", string(req.Level)); err != nil {
			return res, err
		}
	}
	sess, isNew, err := s.readSession(ctx, req)
	if err != nil {
		return res, err
	}
	res.NewSession = isNew
	res.SessionID = sess.ID
	t := target{session: sess.ID, project: sess.ProjectPath, owner: s.scope.owner(ctx)}
	defer s.countOp(t.session, &err)
	res.Stale = s.store.Fresh(ctx, t.keys()...)

	if len(req.IDs) == 0 {
		full, err := s.reader.full(ctx, t)
		if err != nil {
			return res, err
		}
		res.Full = &full
		s.sessions.SawFullRead(t.session, full.shownKeys())
		return res, nil
	}
	keys := t.keys()
	if req.Level != "" {
		k, err := t.key(req.Level)
		if err != nil {
			return res, err
		}
		keys = []domain.GraphKey{k}
	}
	for _, id := range req.IDs {
		found := false
		for _, k := range keys {
			e, err := s.store.Get(ctx, k)
			if err != nil {
				return res, err
			}
			rd, ok, err := s.reader.byID(ctx, e, t.session, id)
			if err != nil {
				return res, err
			}
			if ok {
				// A read by id through kg_read counts a use; the REST
				// and web-page reads do not
				// (docs/design/compaction.md#the-use-count).
				rd.Node = s.counting.CountRead(ctx, e, t.session, rd.Node)
				res.Nodes = append(res.Nodes, rd)
				found = true
			}
		}
		if !found {
			return res, nodeNotFound(id, req.Level)
		}
	}
	s.sessions.See(t.session, readKeys(res.Nodes)...)
	return res, nil
}

// readSession is the session of a kg_read: the one named, whose project
// the cwd, if given, must be; else a new session of the cwd's project.
func (s *Service) readSession(ctx context.Context, req ReadRequest) (sess ports.Session, isNew bool, err error) {
	switch {
	case req.SessionID != "":
		if sess, err = s.scope.sessionFor(ctx, req.SessionID); err != nil {
			return sess, false, err
		}
		if req.CWD == "" && req.ProjectKey == "" {
			return sess, false, nil
		}
		p, err := s.scope.projectOf(ctx, "cwd", req.CWD, req.ProjectKey)
		if err != nil {
			return sess, false, err
		}
		if p != sess.ProjectPath {
			bound := sess.ProjectPath
			if bound == "" {
				bound = "no project"
			}
			return sess, false, domain.Invalidf("cwd", "%q is another project than the one session %q is bound to (%s); call kg_read with cwd only to start a session for it", p, sess.ID, bound)
		}
		return sess, false, nil
	case req.CWD != "" || req.ProjectKey != "":
		p, err := s.scope.projectOf(ctx, "cwd", req.CWD, req.ProjectKey)
		if err != nil {
			return sess, false, err
		}
		sess, err = s.newSession(ctx, p, s.scope.rootOf(p, req.CWD), "")
		return sess, err == nil, err
	}
	return sess, false, domain.Invalidf("cwd", "one of cwd or session_id is required; pass cwd (the absolute project root) to start a session")
}

// readKeys names the nodes of reads by id in the seen set.
func readKeys(nodes []NodeRead) []string {
	keys := make([]string, len(nodes))
	for i, r := range nodes {
		keys[i] = ports.SeenKey(r.Level, r.Node.ID)
	}
	return keys
}

// shownKeys names, for the seen set, the nodes the full read shows with
// their gist: the active ones. An archived id line shows no content, so
// recall may still bring its gist (docs/design/hooks.md#sessions-and-the-seen-set).
func (f FullRead) shownKeys() []string {
	var keys []string
	for _, gv := range []*GraphView{&f.User, f.Project} {
		if gv == nil {
			continue
		}
		for _, n := range gv.View.Active {
			keys = append(keys, ports.SeenKey(gv.Key.Level, n.ID))
		}
	}
	return keys
}

// nodeNotFound is the error for an id found in none of the graphs looked in.
func nodeNotFound(id string, level domain.Level) error {
	if level == "" {
		return domain.NotFoundf("id", "node %q not found in user or project graph", id)
	}
	return domain.NotFoundf("id", "node %q not found in %s graph", id, level)
}

// graphReader reads graphs for the use cases: a whole graph among several
// (spanned, full) and a node by id (byID, recall.go).
type graphReader struct {
	store  *graphstore.Store
	scope  *resolver
	clock  ports.Clock
	policy compaction.Policy
	log    *slog.Logger
}

// spanned gets the graph k for a request that spans several graphs
// (the full read, a search or a sync without a level, the graph read of
// the REST API). A graph that cannot be loaded does not fail such a
// request: down says which graph and why, and the request serves the
// others (docs/decisions/0008-faults-in-one-graph.md). Any other error, or
// a request given up, is err.
func (gr *graphReader) spanned(ctx context.Context, k domain.GraphKey) (e *graphstore.Entry, down, err error) {
	e, err = gr.store.Get(ctx, k)
	if err != nil && domain.KindOf(err) == domain.KindUnavailable && ctx.Err() == nil {
		return nil, err, nil
	}
	return e, nil, err
}

// noGraphLoads is the error of a request that spans graphs of which none
// could be loaded: unavailable, naming each graph and why on one line.
func noGraphLoads(downs []error) error {
	if len(downs) == 1 {
		return downs[0]
	}
	whys := make([]string, len(downs))
	for i, d := range downs {
		whys[i] = d.Error()
	}
	return domain.Unavailable(errors.Join(downs...), "%s", strings.Join(whys, "; "))
}

// full returns the view of the user graph and of the target's project.
// A graph that cannot be loaded is shown as unavailable, with why, and the
// other is served: one damaged graph must not keep every session from
// starting (docs/design/storage.md#loading-and-damage).
func (gr *graphReader) full(ctx context.Context, t target) (FullRead, error) {
	var full FullRead
	for _, k := range t.keys() {
		gv := GraphView{Key: k, Name: projectName(k.Project)}
		e, down, err := gr.spanned(ctx, k)
		switch {
		case err != nil:
			return full, err
		case down != nil:
			gv.Unavailable = down.Error()
		default:
			e.RLock()
			gv.View = fullread.Build(e.Graph(), gr.policy)
			e.RUnlock()
		}
		if k.Level == domain.LevelUser {
			full.User = gv
		} else {
			full.Project = &gv
		}
	}
	return full, nil
}
