package app

import (
	"context"
	"iter"
	"slices"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/ports"
)

// ArchiveResult is the outcome of ArchiveNodes.
type ArchiveResult struct {
	Level   domain.Level
	Project string
	// Archived are the nodes moved from active to archived, in the order
	// named; Unmoved those named that were not active.
	Archived []string
	Unmoved  []string
	// FirstSeq and LastSeq are the seqs the moves took (0 when none moved).
	FirstSeq, LastSeq uint64
}

// ArchiveNodes is POST /api/nodes/archive: a person moves several active
// nodes of one graph to the archived tier at once
// (docs/design/trust.md#archiving-by-hand). It is one write, logged as
// archive entries of the caller's session, so that POST /api/undo of that
// session moves them back (docs/decisions/0106-archive-by-hand.md). The
// level is required: a bulk action never guesses its graph. An unknown id
// refuses the whole archive.
//
// The write runs no compaction: archiving only lowers the active estimate,
// and a run's own moves would be logged under the same session as the
// archive — moves an undo of it must not reverse.
func (s *Service) ArchiveNodes(ctx context.Context, sc Scope, ids []string) (_ ArchiveResult, err error) {
	if len(ids) > compaction.MaxArchiveIDs {
		return ArchiveResult{}, domain.Invalidf("ids", "names %d nodes, over the limit of %d", len(ids), compaction.MaxArchiveIDs)
	}
	t, err := s.scope.resolve(ctx, sc)
	if err != nil {
		return ArchiveResult{}, err
	}
	defer s.countOp(t.session, &err)
	k, err := t.key(sc.Level)
	if err != nil {
		return ArchiveResult{}, err
	}
	s.store.Fresh(ctx, k) // team mode: nodes another server wrote a moment ago
	e, err := s.store.Get(ctx, k)
	if err != nil {
		return ArchiveResult{}, err
	}
	res := ArchiveResult{Level: k.Level, Project: k.Project}
	err = s.store.WriteLogged(ctx, e, t.session, domain.HistoryArchive, func(g *domain.Graph, at domain.Stamp) (iter.Seq[ports.Event], error) {
		first := g.Seq() + 1
		before := g.Stats().Estimate(s.compactor.policy.EstimateNotes)
		a, err := compaction.ArchiveNodes(g, ids, at.Now)
		if err != nil {
			return nil, err
		}
		res.Unmoved = a.Unmoved
		if len(a.Moved) == 0 {
			return nil, nil
		}
		res.FirstSeq, res.LastSeq = first, g.Seq()
		// The page hears it as it hears compaction's moves: the tiers
		// change, each move with its reason.
		m := compaction.Moves{Steps: a.Moved, EstimateBefore: before, EstimateAfter: g.Stats().Estimate(s.compactor.policy.EstimateNotes)}
		m.OverBudget = m.EstimateAfter > s.compactor.policy.MaxTokens
		for _, mv := range a.Moved {
			res.Archived = append(res.Archived, mv.ID)
			m.Archived = append(m.Archived, mv.ID)
		}
		ev := ports.GraphEvent(ports.EventCompacted, k, g.Seq(), at.Session)
		ev.Compaction = &m
		return slices.Values([]ports.Event{ev}), nil
	})
	if err != nil {
		return ArchiveResult{}, err
	}
	return res, nil
}
