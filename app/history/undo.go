package history

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

// errNothingToUndo marks a graph whose log holds none of the changes named.
var errNothingToUndo = errors.New("nothing to undo")

// Undo undoes target's changes in each graph of keys, each in its own
// commit, as session by (docs/design/trust.md#undo); byRange tells a seq
// range from a session's changes, for the error when no graph holds any.
// With dryRun it only plans. A graph that fails is named in the result when
// another was undone; with one graph, or when none was, its error is
// returned.
func (l *Log) Undo(ctx context.Context, keys []domain.GraphKey, by string, target undo.Target, byRange, dryRun bool) (UndoResult, error) {
	hr, err := l.Repo()
	if err != nil {
		return UndoResult{}, err
	}
	res := UndoResult{DryRun: dryRun}
	var failed error
	for _, k := range keys {
		gu, err := l.undoGraph(ctx, hr, k, by, target, byRange, dryRun)
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
		return UndoResult{}, l.nothingToUndo(keys, target, byRange)
	case failed != nil && !slices.ContainsFunc(res.Graphs, func(g GraphUndo) bool { return g.Err == nil }):
		return UndoResult{}, failed
	}
	return res, nil
}

// nothingToUndo is the error of an undo that found none of the changes it
// names in the history of the graphs it covers.
func (l *Log) nothingToUndo(keys []domain.GraphKey, target undo.Target, byRange bool) error {
	if byRange {
		return domain.NotFoundf("seq_range", "the %s holds no change with a seq from %d to %d in its history (the last %d days)",
			graphstore.GraphName(keys[0]), target.From, target.To, l.KeptDays())
	}
	where := "the " + graphstore.GraphName(keys[0])
	if len(keys) > 1 {
		where = fmt.Sprintf("none of the %d graphs it could have written (the user graph and %d projects)", len(keys), len(keys)-1)
	}
	return domain.NotFoundf("session_id", "%s holds no change of session %q in its history (the last %d days)",
		where, target.Session, l.KeptDays())
}

// undoGraph undoes target's changes in graph k as one write of its own
// (errNothingToUndo when its log holds none). The plan is made again under
// the graph's write lock, on the graph as it is then: a change that lands
// between the read of the log and the write makes its item skipped, never
// overwritten.
func (l *Log) undoGraph(ctx context.Context, hr ports.HistoryRepository, k domain.GraphKey, by string,
	target undo.Target, byRange, dryRun bool) (GraphUndo, error) {
	nb := l.NotBefore(0)
	// The oldest change undone, then every entry from it on.
	q := ports.HistoryQuery{Session: target.Session, NotBefore: nb}
	if byRange {
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
	e, err := l.Store.Get(ctx, k)
	if err != nil {
		return GraphUndo{}, err
	}
	res := GraphUndo{Level: k.Level, Project: k.Project}
	if dryRun {
		e.RLock()
		plan := undo.NewPlan(e.Graph(), log, target)
		e.RUnlock()
		res.Applied, res.Skipped = plan.Steps, plan.Skipped
		return res, nil
	}
	err = l.Store.WriteLogged(ctx, e, by, domain.HistoryUndo, func(g *domain.Graph, at domain.Stamp) (iter.Seq[ports.Event], error) {
		plan := undo.NewPlan(g, log, target)
		applied, failed := undo.Apply(g, plan, at)
		res.Applied, res.Skipped = applied, append(plan.Skipped, failed...)
		evs := undoEvents(k, g, applied, at.Session)
		evs = append(evs, l.Compact(g, at)...)
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
