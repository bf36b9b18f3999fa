package app

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"

	"github.com/kg-memory/kg/app/graphstore"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/undo"
	"github.com/kg-memory/kg/ports"
)

// History and undo (docs/design/trust.md#history-and-undo).

// The page sizes of a history read.
const (
	DefaultHistoryLimit = 50
	MaxHistoryLimit     = 500
)

// HistoryRequest is GET /api/history and kg history: a graph's change log,
// newest first. Zero fields select everything of the last HistoryDays.
type HistoryRequest struct {
	Scope     Scope  // the graph (Level required) and the caller's session
	ID        string // a node's entries (its own, its edges', graph entries naming it)
	Session   string // one session's entries
	SinceSeq  uint64 // entries above this seq
	BeforeSeq uint64 // entries below this seq (paging); 0: none
	// Since selects the entries of the last Since microseconds; 0: all kept.
	Since domain.Micros
	Limit int // 0: DefaultHistoryLimit
}

// HistoryResult is one page of a change log.
type HistoryResult struct {
	Level   domain.Level
	Project string
	Entries []domain.HistoryEntry
	// NextBeforeSeq is the before_seq of the next page; 0 when this page
	// is the last.
	NextBeforeSeq uint64
}

// historian reads the graphs' change logs and undoes from them
// (docs/design/trust.md#history-and-undo): the work behind History and Undo.
type historian struct {
	store     *graphstore.Store
	scope     *resolver
	clock     ports.Clock
	compactor compactor
	days      int // KG_HISTORY_DAYS; <= 0: DefaultHistoryDays
}

// historyRepo is the change log of the storage backend, if it keeps one.
func (hs *historian) historyRepo() (ports.HistoryRepository, error) {
	var repo any = hs.store.Graphs
	if hs.store.Shared != nil {
		repo = hs.store.Shared
	}
	hr, ok := repo.(ports.HistoryRepository)
	if !ok {
		return nil, domain.Unavailable(nil, "this storage backend keeps no change log")
	}
	return hr, nil
}

// notBefore is the oldest time a read of the change log returns: entries
// older than KG_HISTORY_DAYS are pruned, and until the tick prunes them no
// read shows them.
func (hs *historian) notBefore(since domain.Micros) domain.Micros {
	now := hs.clock.Now()
	days := hs.days
	if days <= 0 {
		days = DefaultHistoryDays
	}
	nb := now - domain.Micros(days)*domain.Day
	if since > 0 {
		nb = max(nb, now-since)
	}
	return nb
}

// History reads a graph's change log.
func (s *Service) History(ctx context.Context, req HistoryRequest) (HistoryResult, error) {
	limit := req.Limit
	switch {
	case limit == 0:
		limit = DefaultHistoryLimit
	case limit < 0 || limit > MaxHistoryLimit:
		return HistoryResult{}, domain.Invalidf("limit", "%d is out of range: from 1 to %d", limit, MaxHistoryLimit)
	}
	if req.Since < 0 {
		return HistoryResult{}, domain.Invalidf("since", "must not be negative")
	}
	if req.BeforeSeq != 0 && req.BeforeSeq <= req.SinceSeq+1 {
		return HistoryResult{}, domain.Invalidf("before_seq", "%d leaves nothing above since_seq %d", req.BeforeSeq, req.SinceSeq)
	}
	t, err := s.scope.resolve(ctx, req.Scope)
	if err != nil {
		return HistoryResult{}, err
	}
	k, err := t.key(req.Scope.Level)
	if err != nil {
		return HistoryResult{}, err
	}
	hr, err := s.history.historyRepo()
	if err != nil {
		return HistoryResult{}, err
	}
	es, err := hr.History(ctx, k, ports.HistoryQuery{ID: req.ID, Session: req.Session, SinceSeq: req.SinceSeq,
		BeforeSeq: req.BeforeSeq, NotBefore: s.history.notBefore(req.Since), Limit: limit + 1})
	if err != nil {
		return HistoryResult{}, err
	}
	res := HistoryResult{Level: k.Level, Project: k.Project, Entries: es}
	if len(es) > limit {
		res.Entries = es[:limit]
		res.NextBeforeSeq = es[limit-1].Seq
	}
	return res, nil
}

// UndoRequest is POST /api/undo and kg undo: the changes of one session,
// or of a seq range of one graph.
type UndoRequest struct {
	// Scope holds the undoer's session, which the undo's writes carry, and
	// the graph: required for a seq range; for a session, Level and the
	// project only narrow the undo to that graph (docs/design/trust.md#undo).
	Scope   Scope
	Session string // the session whose changes are undone
	// From and To bound the seqs of the changes undone, both included,
	// when Range is set.
	Range    bool
	From, To uint64
	DryRun   bool
}

// UndoResult is what an undo did, or with DryRun would do, graph by graph.
type UndoResult struct {
	DryRun bool
	Graphs []GraphUndo // the graphs that held changes undone, user graph first
}

// GraphUndo is what an undo did in one graph, in that graph's own commit.
type GraphUndo struct {
	Level   domain.Level
	Project string
	Applied []undo.Step // with their seqs when not a dry run
	Skipped []undo.Skip
	// Err is why this graph could not be undone when others were (its
	// commit failed); the other graphs' undos stand.
	Err error
}

func (r UndoRequest) target() (undo.Target, error) {
	switch {
	case r.Session != "" && r.Range:
		return undo.Target{}, domain.Invalidf("session_id", "give session_id or seq_range, not both")
	case r.Session == "" && !r.Range:
		return undo.Target{}, domain.Invalidf("session_id", "required: the session whose changes to undo, or seq_range")
	case r.Range && r.From == 0:
		return undo.Target{}, domain.Invalidf("seq_range", "from must be 1 or more")
	case r.Range && r.From > r.To:
		return undo.Target{}, domain.Invalidf("seq_range", "from %d is above to %d: the range is empty", r.From, r.To)
	}
	return undo.Target{Session: r.Session, From: r.From, To: r.To}, nil
}

// errNothingToUndo marks a graph whose log holds none of the changes named.
var errNothingToUndo = errors.New("nothing to undo")

// Undo puts back, as new writes, the state each item had before the
// changes undone, skipping (and naming) the items someone else changed
// since. A session's changes are undone in every graph it wrote — its user
// graph and its project, or every project when the session is no longer
// known — each graph in its own commit; Level and the project narrow it to
// one graph. A seq range names one graph.
func (s *Service) Undo(ctx context.Context, req UndoRequest) (_ UndoResult, err error) {
	target, err := req.target()
	if err != nil {
		return UndoResult{}, err
	}
	t, err := s.scope.resolve(ctx, req.Scope)
	if err != nil {
		return UndoResult{}, err
	}
	keys, err := s.history.undoGraphs(ctx, t, req)
	if err != nil {
		return UndoResult{}, err
	}
	hr, err := s.history.historyRepo()
	if err != nil {
		return UndoResult{}, err
	}
	if !req.DryRun {
		defer s.countOp(t.session, &err)
	}
	res := UndoResult{DryRun: req.DryRun}
	var failed error
	for _, k := range keys {
		gu, err := s.history.undoGraph(ctx, hr, k, t.session, target, req)
		switch {
		case errors.Is(err, errNothingToUndo):
			continue
		case err != nil && len(keys) == 1:
			return UndoResult{}, err
		case err != nil:
			failed = err
			gu = GraphUndo{Level: k.Level, Project: k.Project, Err: err}
		}
		res.Graphs = append(res.Graphs, gu)
	}
	switch {
	case len(res.Graphs) == 0:
		return UndoResult{}, s.history.nothingToUndo(keys, target, req.Range)
	case failed != nil && !slices.ContainsFunc(res.Graphs, func(g GraphUndo) bool { return g.Err == nil }):
		return UndoResult{}, failed
	}
	return res, nil
}

// undoGraphs returns the graphs an undo covers: the one a seq range, a
// level or a project names, else every graph the session wrote — the user
// graph and the session's project, or, when the session is gone (expired,
// or of another server's past), the user graph and every project the
// caller may read, whose logs tell which it wrote.
func (hs *historian) undoGraphs(ctx context.Context, t target, req UndoRequest) ([]domain.GraphKey, error) {
	named := req.Scope.ProjectPath != "" || req.Scope.ProjectKey != ""
	level := req.Scope.Level
	switch {
	case req.Range:
		k, err := t.key(level)
		return []domain.GraphKey{k}, err
	case level == domain.LevelUser:
		if named {
			return nil, domain.Invalidf("project_path", "level user takes no project_path")
		}
		return []domain.GraphKey{domain.UserGraphOf(t.owner)}, nil
	case named && (level == domain.LevelProject || level == ""):
		return []domain.GraphKey{domain.ProjectGraph(t.project)}, nil
	case level != domain.LevelProject && level != "":
		return nil, domain.Invalidf("level", "%q is not a level: one of user, project, or none for every graph the session wrote", level)
	}
	project, bound := hs.projectOfSession(ctx, req.Session)
	if level == domain.LevelProject {
		if project == "" {
			return nil, domain.Invalidf("project_path", "level project needs project_path: session %q is not bound to a project that kg still knows of", req.Session)
		}
		return []domain.GraphKey{domain.ProjectGraph(project)}, nil
	}
	keys := []domain.GraphKey{domain.UserGraphOf(t.owner)}
	if bound {
		return append(keys, domain.ProjectGraph(project)), nil
	}
	projects, err := hs.readableProjects(ctx, t)
	if err != nil {
		return nil, err
	}
	return append(keys, projects...), nil
}

// projectOfSession returns the project a session kg still knows is bound
// to. A session bound to a project writes no other project
// (docs/design/sync.md#sessions); one bound to none, or one kg no longer
// knows (expired), may have written any.
func (hs *historian) projectOfSession(ctx context.Context, id string) (project string, bound bool) {
	sess, err := hs.scope.sessionFor(ctx, id)
	if err != nil || sess.ProjectPath == "" {
		return "", false
	}
	return sess.ProjectPath, true
}

// readableProjects returns every project graph stored or loaded that t
// may read, sorted.
func (hs *historian) readableProjects(ctx context.Context, t target) ([]domain.GraphKey, error) {
	stored, err := hs.store.Graphs.List(ctx)
	if err != nil {
		return nil, wrapErr(err, "list projects")
	}
	seen := map[domain.GraphKey]bool{}
	var out []domain.GraphKey
	add := func(k domain.GraphKey) {
		if k.Level == domain.LevelProject && !seen[k] && t.mayRead(k) {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, sg := range stored {
		add(sg.Key)
	}
	for _, e := range hs.store.Loaded() {
		add(e.Key())
	}
	slices.SortFunc(out, graphstore.CompareKeys)
	return out, nil
}

// nothingToUndo is the error of an undo that found none of the changes it
// names in the history of the graphs it covers.
func (hs *historian) nothingToUndo(keys []domain.GraphKey, target undo.Target, byRange bool) error {
	if byRange {
		return domain.NotFoundf("seq_range", "the %s holds no change with a seq from %d to %d in its history (the last %d days)",
			graphName(keys[0]), target.From, target.To, hs.historyDays())
	}
	where := "the " + graphName(keys[0])
	if len(keys) > 1 {
		where = fmt.Sprintf("none of the %d graphs it could have written (the user graph and %d projects)", len(keys), len(keys)-1)
	}
	return domain.NotFoundf("session_id", "%s holds no change of session %q in its history (the last %d days)",
		where, target.Session, hs.historyDays())
}

// undoGraph undoes target's changes in graph k as one write of its own
// (errNothingToUndo when its log holds none). The plan is made again under
// the graph's write lock, on the graph as it is then: a change that lands
// between the read of the log and the write makes its item skipped, never
// overwritten.
func (hs *historian) undoGraph(ctx context.Context, hr ports.HistoryRepository, k domain.GraphKey, by string,
	target undo.Target, req UndoRequest) (GraphUndo, error) {
	nb := hs.notBefore(0)
	// The oldest change undone, then every entry from it on.
	q := ports.HistoryQuery{Session: target.Session, NotBefore: nb}
	if req.Range {
		q.SinceSeq, q.BeforeSeq = target.From-1, target.To+1
	}
	mine, err := hr.History(ctx, k, q)
	if err != nil {
		return GraphUndo{}, err
	}
	mine = slices.DeleteFunc(mine, func(e domain.HistoryEntry) bool { return e.Op == domain.HistoryMove })
	if len(mine) == 0 {
		return GraphUndo{}, errNothingToUndo
	}
	first := mine[len(mine)-1].Seq
	log, err := hr.History(ctx, k, ports.HistoryQuery{SinceSeq: first - 1, NotBefore: nb})
	if err != nil {
		return GraphUndo{}, err
	}
	slices.Reverse(log) // oldest first
	e, err := hs.store.Get(ctx, k)
	if err != nil {
		return GraphUndo{}, err
	}
	res := GraphUndo{Level: k.Level, Project: k.Project}
	if req.DryRun {
		e.RLock()
		plan := undo.NewPlan(e.Graph(), log, target)
		e.RUnlock()
		res.Applied, res.Skipped = plan.Steps, plan.Skipped
		return res, nil
	}
	err = hs.store.WriteLogged(ctx, e, by, domain.HistoryUndo, func(g *domain.Graph, at domain.Stamp) (iter.Seq[ports.Event], error) {
		plan := undo.NewPlan(g, log, target)
		applied, failed := undo.Apply(g, plan, at)
		res.Applied, res.Skipped = applied, append(plan.Skipped, failed...)
		evs := undoEvents(k, g, applied, at.Session)
		_, cev := hs.compactor.run(g, at)
		evs = append(evs, cev...)
		if len(evs) == 0 {
			return nil, nil
		}
		return slices.Values(evs), nil
	})
	if err != nil {
		return GraphUndo{}, err
	}
	return res, nil
}

// historyDays is how many days the change log keeps.
func (hs *historian) historyDays() int {
	if hs.days <= 0 {
		return DefaultHistoryDays
	}
	return hs.days
}

// undoEvents are the events of an undo's steps, as the same puts and
// deletes by a client publish.
func undoEvents(k domain.GraphKey, g *domain.Graph, applied []undo.Step, session string) []ports.Event {
	var evs []ports.Event
	var retiered []undo.Step
	for _, st := range applied {
		switch {
		case st.Action == undo.Retier:
			retiered = append(retiered, st)
		case st.Edge && st.Action == undo.Delete:
			tomb, _ := g.EdgeTombstone(st.Key)
			ev := eventBase(ports.EventEdgeDeleted, k, tomb.Seq, session)
			kc := st.Key
			ev.EdgeKey = &kc
			evs = append(evs, ev)
		case st.Edge:
			ed, ok := g.Edge(st.Key)
			if !ok {
				continue
			}
			ev := eventBase(ports.EventEdgeUpdated, k, ed.Version.Seq, session)
			ev.Edge = ed
			evs = append(evs, ev)
		case st.Action == undo.Delete:
			tomb, _ := g.NodeTombstone(st.ID)
			ev := eventBase(ports.EventNodeDeleted, k, tomb.Seq, session)
			ev.NodeID = st.ID
			evs = append(evs, ev)
		default:
			n, ok := g.Node(st.ID)
			if !ok {
				continue
			}
			ev := eventBase(ports.EventNodeUpdated, k, n.Version.Seq, session)
			ev.Node = n
			evs = append(evs, ev)
		}
	}
	return append(evs, retierEvents(k, g, retiered, session)...)
}
