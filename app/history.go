package app

import (
	"context"

	"github.com/kg-memory/kg/app/history"
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
	es, next, err := s.history.Read(ctx, k, ports.HistoryQuery{ID: req.ID, Session: req.Session, SinceSeq: req.SinceSeq,
		BeforeSeq: req.BeforeSeq}, req.Since, limit)
	if err != nil {
		return HistoryResult{}, err
	}
	return HistoryResult{Level: k.Level, Project: k.Project, Entries: es, NextBeforeSeq: next}, nil
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
type UndoResult = history.UndoResult

// GraphUndo is what an undo did in one graph, in that graph's own commit.
type GraphUndo = history.GraphUndo

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
	keys, err := s.scope.undoGraphs(ctx, t, req)
	if err != nil {
		return UndoResult{}, err
	}
	if !req.DryRun {
		defer s.countOp(t.session, &err)
	}
	return s.history.Undo(ctx, keys, t.session, target, req.Range, req.DryRun)
}

// undoGraphs returns the graphs an undo covers: the one a seq range, a
// level or a project names, else every graph the session wrote — the user
// graph and the session's project, or, when the session is gone (expired,
// or of another server's past), the user graph and every project the
// caller may read, whose logs tell which it wrote.
func (r *resolver) undoGraphs(ctx context.Context, t target, req UndoRequest) ([]domain.GraphKey, error) {
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
	project, bound := r.projectOfSession(ctx, req.Session)
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
	projects, err := readableProjects(ctx, r.store, t)
	if err != nil {
		return nil, err
	}
	return append(keys, projects...), nil
}

// projectOfSession returns the project a session kg still knows is bound
// to. A session bound to a project writes no other project
// (docs/design/sync.md#sessions); one bound to none, or one kg no longer
// knows (expired), may have written any.
func (r *resolver) projectOfSession(ctx context.Context, id string) (project string, bound bool) {
	sess, err := r.sessionFor(ctx, id)
	if err != nil || sess.ProjectPath == "" {
		return "", false
	}
	return sess.ProjectPath, true
}
