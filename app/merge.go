package app

import (
	"context"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/domain/merge"
	"github.com/kg-memory/kg/ports"
)

// MergeResult is what a merge of two nodes did, or would do (DryRun).
type MergeResult struct {
	Level   domain.Level
	Project string
	DryRun  bool
	// Plan is what the merge does: the merged content, each edge of the
	// node merged and what becomes of it, the secrets redacted.
	Plan merge.MergePlan
	// Node is the node kept, as the write left it (after its compaction
	// run); nil for a dry run.
	Node *domain.Node
	// Written are the edges created or changed; EdgesDeleted counts the
	// edges deleted with the node merged. None for a dry run.
	Written      []*domain.Edge
	EdgesDeleted int
	Compaction   compaction.Moves
	// FirstSeq and LastSeq are the seqs the merge took, from the kept
	// node's write to the merged node's deletion (its compaction run's
	// after them): the range an undo of the merge names. 0 for a dry run.
	FirstSeq, LastSeq uint64
}

// MergeNodes is POST /api/nodes/merge (docs/design/trust.md#merging-two-nodes):
// node in.From is merged into node in.Into of the graph named by the scope
// (Scope.Level required) as one write — one batch, saved durably once, whose
// events are the usual ones (Into updated, each edge written, From deleted),
// followed by its compaction run. The merged text is screened for secrets
// under KG_SECRETS. A dry run says what the merge would do and changes
// nothing, not even read stamps.
func (s *Service) MergeNodes(ctx context.Context, sc Scope, in merge.MergeInput, dryRun bool) (_ MergeResult, err error) {
	t, e, err := s.scope.graphOf(ctx, sc)
	if err != nil {
		return MergeResult{}, err
	}
	defer s.countOp(t.session, &err)
	k := e.Key()
	res := MergeResult{Level: k.Level, Project: k.Project, DryRun: dryRun}
	if dryRun {
		e.RLock()
		res.Plan, err = merge.PlanMerge(e.Graph(), in, s.cfg.Secrets)
		e.RUnlock()
		if err != nil {
			return MergeResult{}, err
		}
		return res, nil
	}
	err = s.store.Write(ctx, e, t.session, func(g *domain.Graph, at domain.Stamp) ([]ports.Event, error) {
		m, err := merge.MergeNodes(g, in, s.cfg.Secrets, at)
		if err != nil {
			return nil, err
		}
		ev := ports.GraphEvent(ports.EventNodeUpdated, k, m.Node.Version.Seq, at.Session)
		ev.Node = m.Node
		evs := []ports.Event{ev}
		for _, ed := range m.Written {
			ev := ports.GraphEvent(ports.EventEdgeUpdated, k, ed.Version.Seq, at.Session)
			ev.Edge = ed
			evs = append(evs, ev)
		}
		tomb, _ := g.NodeTombstone(m.From)
		res.FirstSeq, res.LastSeq = m.Node.Version.Seq, tomb.Seq
		ev = ports.GraphEvent(ports.EventNodeDeleted, k, tomb.Seq, at.Session)
		ev.NodeID, ev.EdgesDeleted = m.From, m.EdgesDeleted
		evs = append(evs, ev)
		moves, cev := s.compactor.run(g, at)
		res.Plan, res.Written, res.EdgesDeleted, res.Compaction = m.MergePlan, m.Written, m.EdgesDeleted, moves
		res.Node, _ = g.Node(m.Into) // its tier after the run
		return append(evs, cev...), nil
	})
	if err != nil {
		return MergeResult{}, err
	}
	// A session is not reminded of what it just wrote
	// (docs/design/hooks.md#sessions-and-the-seen-set).
	s.sessions.See(t.session, ports.SeenKey(k.Level, in.Into))
	return res, nil
}
