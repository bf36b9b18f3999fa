package app

import (
	"context"
	"iter"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/domain/importing"
	"github.com/kg-memory/kg/domain/secrets"
	"github.com/kg-memory/kg/domain/secretscreen"
	"github.com/kg-memory/kg/ports"
)

// ImportResult is what an import did to one graph. Its Nodes are the nodes
// written, as the batch left them (after its compaction run).
type ImportResult struct {
	Level   domain.Level
	Project string
	Mode    importing.Mode
	domain.ImportResult
	Compaction compaction.Moves // what the compaction run of the same write moved
	// Redacted names each secret replaced by [REDACTED:<kind>] (KG_SECRETS=redact).
	Redacted []secrets.Finding
}

// ImportOptions are the choices of an import beyond its mode and document.
type ImportOptions struct {
	// ListMoves is the most moves of the import's compaction run the
	// result lists, each with its rank and reason (Compaction.Steps); the
	// others are counted (Compaction.Unlisted) and named in the id lists.
	// Negative lists every move: about 250 bytes a move while the import
	// runs, and a large import moves nearly every node
	// (docs/performance.md#import-memory).
	ListMoves int
}

// ImportMovesListed is how many compaction moves POST /api/import lists
// unless the request asks for another number (docs/api.md).
const ImportMovesListed = 1000

// Import is POST /api/import: it writes a document's nodes, edges and
// progress into the graph named by the scope (Scope.Level required), as one
// write through the write path: the whole document is validated before
// anything changes, applied and compacted in one batch that is saved
// durably once, and its events go out after that save. A document that
// fails validation, or a save that fails, changes nothing. See
// importing.Import for what is written and what importing.Replace deletes.
func (s *Service) Import(ctx context.Context, sc Scope, mode importing.Mode, doc domain.GraphData, opt ImportOptions) (_ ImportResult, err error) {
	t, err := s.scope.resolve(ctx, sc)
	if err != nil {
		return ImportResult{}, err
	}
	defer s.countOp(t.session, &err)
	k, err := t.key(sc.Level)
	if err != nil {
		return ImportResult{}, err
	}
	// Reject a bad document before a graph is loaded for it.
	if _, err := importing.ParseMode("mode", string(mode)); err != nil {
		return ImportResult{}, err
	}
	if doc, err = importing.Validate(doc); err != nil {
		return ImportResult{}, err
	}
	doc, redacted, err := secretscreen.Import(doc, s.cfg.Secrets)
	if err != nil {
		return ImportResult{}, err
	}
	e, err := s.store.Get(ctx, k)
	if err != nil {
		return ImportResult{}, err
	}
	res := ImportResult{Level: k.Level, Project: k.Project, Mode: mode, Redacted: redacted}
	var hop domain.HistoryOp // merge: each item's put or delete
	if mode == importing.Replace {
		hop = domain.HistoryImportReplace // one entry (docs/design/trust.md#history-and-undo)
	}
	err = s.store.WriteLogged(ctx, e, t.session, hop, func(g *domain.Graph, at domain.Stamp) (iter.Seq[ports.Event], error) {
		r, err := importing.Import(g, doc, mode, at)
		// The graph holds what it took; the document can go before the save
		// (docs/performance.md#import-memory). A change is applied once.
		doc = domain.GraphData{}
		if err != nil {
			return nil, err
		}
		// The result names the nodes written as the batch leaves them
		// (compaction archives most of a large import). It lets go of the
		// versions the import made while compaction runs: each one it
		// replaces is then garbage at once, not a second copy of the node
		// held to the end of the save (docs/performance.md#import-memory).
		ids := make([]string, len(r.Nodes))
		for i, n := range r.Nodes {
			ids[i], r.Nodes[i] = n.ID, nil
		}
		moves, cev := s.compactor.runListing(ports.CompactionOnWrite, g, at, opt.ListMoves)
		for i, id := range ids {
			// Compaction moves nodes between tiers and deletes none.
			r.Nodes[i], _ = g.Node(id)
		}
		res.ImportResult = r
		evs := importEvents(k, r, at.Session, g)
		res.Compaction = moves
		return func(yield func(ports.Event) bool) {
			for ev := range evs {
				if !yield(ev) {
					return
				}
			}
			for _, ev := range cev {
				if !yield(ev) {
					return
				}
			}
		}, nil
	})
	if err != nil {
		return ImportResult{}, err
	}
	return res, nil
}

// importEvents are the events of an import, one per item it changed, in the
// order of their seqs: deletions first, then nodes, then edges. The node and
// edge events are made as they are published, from the items the import
// wrote (never changed in place afterwards), instead of half a million held
// through the save; the few deletions are made now, while their tombstones
// are the import's.
func importEvents(k domain.GraphKey, r domain.ImportResult, session string, g *domain.Graph) iter.Seq[ports.Event] {
	deletions := make([]ports.Event, 0, len(r.DeletedNodes)+len(r.DeletedEdges))
	for _, d := range r.DeletedNodes {
		tomb, _ := g.NodeTombstone(d.ID)
		ev := ports.GraphEvent(ports.EventNodeDeleted, k, tomb.Seq, session)
		ev.NodeID, ev.EdgesDeleted = d.ID, d.EdgesDeleted
		deletions = append(deletions, ev)
	}
	for _, key := range r.DeletedEdges {
		tomb, _ := g.EdgeTombstone(key)
		ev := ports.GraphEvent(ports.EventEdgeDeleted, k, tomb.Seq, session)
		kc := key
		ev.EdgeKey = &kc
		deletions = append(deletions, ev)
	}
	nodes, edges := r.Nodes, r.Edges
	return func(yield func(ports.Event) bool) {
		for _, ev := range deletions {
			if !yield(ev) {
				return
			}
		}
		for _, n := range nodes {
			ev := ports.GraphEvent(ports.EventNodeUpdated, k, n.Version.Seq, session)
			ev.Node = n
			if !yield(ev) {
				return
			}
		}
		for _, ed := range edges {
			ev := ports.GraphEvent(ports.EventEdgeUpdated, k, ed.Version.Seq, session)
			ev.Edge = ed
			if !yield(ev) {
				return
			}
		}
	}
}
