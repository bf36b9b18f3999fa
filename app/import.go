package app

import (
	"context"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// ImportResult is what an import did to one graph.
type ImportResult struct {
	Level   domain.Level
	Project string
	Mode    domain.ImportMode
	domain.ImportResult
	Compaction domain.Moves // what the compaction run of the same write moved
}

// Import is POST /api/import: it writes a document's nodes, edges and
// progress into the graph named by the scope (Scope.Level required), as one
// write through the write path: the whole document is validated before
// anything changes, applied and compacted in one batch that is saved
// durably once, and its events go out after that save. A document that
// fails validation, or a save that fails, changes nothing. See
// domain.Graph.Import for what is written and what ImportReplace deletes.
func (s *Service) Import(ctx context.Context, sc Scope, mode domain.ImportMode, doc domain.GraphData) (ImportResult, error) {
	t, err := s.resolve(ctx, sc)
	if err != nil {
		return ImportResult{}, err
	}
	k, err := t.key(sc.Level)
	if err != nil {
		return ImportResult{}, err
	}
	// Reject a bad document before a graph is loaded for it.
	if _, err := domain.ParseImportMode("mode", string(mode)); err != nil {
		return ImportResult{}, err
	}
	if doc, err = domain.ValidateImport(doc); err != nil {
		return ImportResult{}, err
	}
	e, err := s.store.get(ctx, k)
	if err != nil {
		return ImportResult{}, err
	}
	res := ImportResult{Level: k.Level, Project: k.Project, Mode: mode}
	err = s.store.write(ctx, e, t.session, func(g *domain.Graph, at domain.Stamp) ([]ports.Event, error) {
		r, err := g.Import(doc, mode, at)
		if err != nil {
			return nil, err
		}
		res.ImportResult = r
		evs := importEvents(k, r, at.Session, g)
		moves, cev := s.compactRun(g, at)
		res.Compaction = moves
		return append(evs, cev...), nil
	})
	if err != nil {
		return ImportResult{}, err
	}
	return res, nil
}

// importEvents are the events of an import, one per item it changed, in the
// order of their seqs: deletions first, then nodes, then edges.
func importEvents(k domain.GraphKey, r domain.ImportResult, session string, g *domain.Graph) []ports.Event {
	evs := make([]ports.Event, 0, len(r.DeletedNodes)+len(r.DeletedEdges)+len(r.Nodes)+len(r.Edges))
	for _, d := range r.DeletedNodes {
		tomb, _ := g.NodeTombstone(d.ID)
		ev := eventBase(ports.EventNodeDeleted, k, tomb.Seq, session)
		ev.NodeID, ev.EdgesDeleted = d.ID, d.EdgesDeleted
		evs = append(evs, ev)
	}
	for _, key := range r.DeletedEdges {
		tomb, _ := g.EdgeTombstone(key)
		ev := eventBase(ports.EventEdgeDeleted, k, tomb.Seq, session)
		kc := key
		ev.EdgeKey = &kc
		evs = append(evs, ev)
	}
	for _, n := range r.Nodes {
		ev := eventBase(ports.EventNodeUpdated, k, n.Version.Seq, session)
		ev.Node = n
		evs = append(evs, ev)
	}
	for _, ed := range r.Edges {
		ev := eventBase(ports.EventEdgeUpdated, k, ed.Version.Seq, session)
		ev.Edge = ed
		evs = append(evs, ev)
	}
	return evs
}
