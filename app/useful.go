package app

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/kg-memory/kg/app/graphstore"
	"github.com/kg-memory/kg/app/hookstate"
	"github.com/kg-memory/kg/app/sessiontable"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/recall"
	"github.com/kg-memory/kg/domain/render"
	"github.com/kg-memory/kg/ports"
)

// UsefulResult is what kg_useful marked.
type UsefulResult struct {
	SessionID string
	Marked    []UsefulNode // marked now
	Already   []UsefulNode // marked by this session before: unchanged
}

// UsefulNode names a node of one graph.
type UsefulNode struct {
	Level   domain.Level
	Project string
	ID      string
}

// Limits of kg_useful (docs/design/hooks.md#kg_useful).
const (
	MaxUsefulIDs        = 5
	MaxUsefulPerSession = 20
)

// MarkUseful is kg_useful and POST /api/nodes/useful: it marks each node of
// ids, looked up in the user graph and the session's project graph (an id in
// both marks both), as useful to the session: once per node per session, at
// most MaxUsefulPerSession per session. The marks are saved on the nodes
// durably, with no version and no seq, so no other session hears of them
// through kg_sync. An unknown id is an error naming it, and then nothing is
// marked; so is a call that would pass the session's allowance.
func (s *Service) MarkUseful(ctx context.Context, sessionID string, ids []string) (_ UsefulResult, err error) {
	if sessionID == "" {
		return UsefulResult{}, domain.Invalidf("session_id", "required; call kg_read with cwd to start a session")
	}
	// Team mode: a session of this person's, found on any server, with
	// the marks other servers stored for it.
	sess, err := s.scope.sessionFor(ctx, sessionID)
	if err != nil {
		return UsefulResult{}, err
	}
	s.sessions.HookPull(ctx, sess.ID)
	defer s.sessions.HookStore(ctx, sess.ID) // after countOp: with the operation counted
	defer s.countOp(sess.ID, &err)
	if ids, err = checkUsefulIDs(ids); err != nil {
		return UsefulResult{}, err
	}
	t := target{session: sess.ID, project: sess.ProjectPath, owner: s.scope.owner(ctx)}
	s.store.Fresh(ctx, t.keys()...) // team mode: what other servers committed
	// Find every id first: an unknown one marks nothing.
	found, err := findUseful(ctx, s.store, t, ids)
	if err != nil {
		return UsefulResult{}, err
	}
	fresh, already, err := reserveUseful(s.sessions, sess.ID, found)
	if err != nil {
		return UsefulResult{}, err
	}
	res := UsefulResult{SessionID: sess.ID, Already: already}
	for _, gi := range found {
		marks := gi.fresh(fresh)
		if len(marks) == 0 {
			continue
		}
		if err := saveUseful(ctx, s.store, gi.e, sess.ID, marks); err != nil {
			unreserveUseful(s.sessions, sess.ID, fresh, res.Marked)
			return UsefulResult{}, err
		}
		for _, id := range marks {
			res.Marked = append(res.Marked, gi.node(id))
		}
		s.countUseful(ctx, sess.ID, gi.e.Key(), marks)
	}
	return res, nil
}

// checkUsefulIDs returns ids without repeats, or an error naming the first
// that is not a node id, or the count out of 1 to MaxUsefulIDs.
func checkUsefulIDs(ids []string) ([]string, error) {
	ids = dedupe(ids)
	switch {
	case len(ids) == 0:
		return nil, domain.Invalidf("ids", "required: 1 to %d node ids", MaxUsefulIDs)
	case len(ids) > MaxUsefulIDs:
		return nil, domain.Invalidf("ids", "%d ids, limit %d", len(ids), MaxUsefulIDs)
	}
	for i, id := range ids {
		if id == "" || hookstate.CheckString("ids["+strconv.Itoa(i)+"]", id, domain.MaxIDLen*4) != nil {
			return nil, domain.Invalidf("ids["+strconv.Itoa(i)+"]", "%q is not a node id", id)
		}
	}
	return ids, nil
}

// usefulIDs are the ids of a kg_useful call that name nodes of one graph.
type usefulIDs struct {
	e   *graphstore.Entry
	ids []string
}

// fresh are the ids among gi's whose marks were reserved now (fresh holds
// their seen-set keys).
func (gi usefulIDs) fresh(fresh []string) []string {
	var marks []string
	for _, id := range gi.ids {
		if slices.Contains(fresh, ports.SeenKey(gi.e.Key().Level, id)) {
			marks = append(marks, id)
		}
	}
	return marks
}

// node names node id of gi's graph.
func (gi usefulIDs) node(id string) UsefulNode {
	return UsefulNode{Level: gi.e.Key().Level, Project: gi.e.Key().Project, ID: id}
}

// findUseful looks ids up in the graphs of t, and fails, naming them, when
// some are in none.
func findUseful(ctx context.Context, st *graphstore.Store, t target, ids []string) ([]usefulIDs, error) {
	var found []usefulIDs
	hit := map[string]bool{}
	for _, k := range t.keys() {
		e, err := st.Get(ctx, k)
		if err != nil {
			return nil, err
		}
		gi := usefulIDs{e: e}
		e.RLock()
		for _, id := range ids {
			if _, ok := e.Graph().Node(id); ok {
				gi.ids = append(gi.ids, id)
				hit[id] = true
			}
		}
		e.RUnlock()
		found = append(found, gi)
	}
	var missing []string
	for _, id := range ids {
		if !hit[id] {
			missing = append(missing, strconv.Quote(id))
		}
	}
	if len(missing) > 0 {
		where := "the user graph"
		if t.project != "" {
			where = "the user or project graph"
		}
		return nil, domain.NotFoundf("ids", "%s not found in %s; nothing was marked", strings.Join(missing, ", "), where)
	}
	return found, nil
}

// reserveUseful reserves the new marks of found in session, so that two
// calls at once cannot pass its allowance (a failed save gives them back,
// unreserveUseful). It returns the seen-set keys of the marks reserved and
// the nodes the session had marked already, or the error of a call that
// would pass the allowance, reserving nothing.
func reserveUseful(t *sessiontable.Table, session string, found []usefulIDs) (fresh []string, already []UsefulNode, err error) {
	t.WithHooks(session, func(h *hookstate.State) bool {
		var add []string
		for _, gi := range found {
			for _, id := range gi.ids {
				k := ports.SeenKey(gi.e.Key().Level, id)
				if h.Marked(k) || slices.Contains(add, k) {
					already = append(already, gi.node(id))
				} else {
					add = append(add, k)
				}
			}
		}
		if len(h.Useful)+len(add) > MaxUsefulPerSession {
			err = domain.Invalidf("ids", "a session marks at most %d nodes useful; this one has marked %d, and %d more would pass it; nothing was marked",
				MaxUsefulPerSession, len(h.Useful), len(add))
			return false
		}
		h.Useful = append(h.Useful, add...)
		fresh = add
		return len(add) > 0
	})
	if err != nil {
		return nil, nil, err
	}
	return fresh, already, nil
}

// saveUseful saves the marks on nodes marks of e's graph in one write; a
// node deleted meanwhile fails it, marking nothing of the graph.
func saveUseful(ctx context.Context, st *graphstore.Store, e *graphstore.Entry, session string, marks []string) error {
	return st.Write(ctx, e, session, func(g *domain.Graph, at domain.Stamp) ([]ports.Event, error) {
		for _, id := range marks {
			if _, ok := g.Node(id); !ok {
				return nil, domain.NotFoundf("ids", "node %q was deleted meanwhile; nothing of this graph was marked", id)
			}
		}
		for _, id := range marks {
			recordUsefulMark(g, id, at)
		}
		return nil, nil
	})
}

// UseCounter counts uses of nodes for compaction's importance signal
// (docs/design/compaction.md): a kg_useful mark is a use of its node by the
// session that made it, counted once per session like a read by id.
type UseCounter interface {
	CountUses(ctx context.Context, sessionID string, key domain.GraphKey, ids []string) error
}

// countUseful counts the nodes ids of graph key, just marked useful by
// session, as uses. The mark itself is saved already: a count that fails is
// logged, and the mark stands.
func (s *Service) countUseful(ctx context.Context, session string, key domain.GraphKey, ids []string) {
	if s.uses == nil {
		return
	}
	if err := s.uses.CountUses(ctx, session, key, ids); err != nil {
		s.log.Warn("useful marks saved but not counted as uses", "graph", key.String(), "ids", ids, "err", err)
	}
}

// recordUsefulMark records a useful mark on node id of g, within the write
// that saves it: the one place a mark is made.
func recordUsefulMark(g *domain.Graph, id string, at domain.Stamp) {
	_ = recall.MarkUseful(g, id, at.Now) // the caller checked that the node exists
}

// unreserveUseful gives back the reserved marks of fresh that were not
// saved (not in saved).
func unreserveUseful(t *sessiontable.Table, session string, fresh []string, saved []UsefulNode) {
	keep := map[string]bool{}
	for _, n := range saved {
		keep[ports.SeenKey(n.Level, n.ID)] = true
	}
	t.WithHooks(session, func(h *hookstate.State) bool {
		h.Useful = slices.DeleteFunc(h.Useful, func(k string) bool { return slices.Contains(fresh, k) && !keep[k] })
		return true
	})
}

// dedupe drops repeated strings, keeping the first of each.
func dedupe(list []string) []string {
	var out []string
	for _, s := range list {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Summary is kg_useful's result line (render.UsefulSummary); an id marked
// in both graphs is named once.
func (r UsefulResult) Summary() string {
	ids := func(ns []UsefulNode) []string {
		var out []string
		for _, n := range ns {
			if !slices.Contains(out, n.ID) {
				out = append(out, n.ID)
			}
		}
		return out
	}
	return render.UsefulSummary(ids(r.Marked), ids(r.Already))
}
