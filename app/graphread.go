package app

import (
	"context"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
)

// GraphContents is every node (of every tier) and every edge of one graph,
// as a person tending the memory sees it: unlike the full read, nothing is
// hidden or shortened.
type GraphContents struct {
	Key        domain.GraphKey
	Nodes      []*domain.Node // by id; must not be modified
	Edges      []GraphEdge    // by (from, rel, to)
	Stats      domain.Stats
	Estimate   int // token estimate of the full read
	MaxTokens  int
	Target     int    // the estimate a compaction run brings the graph down to
	Seq        uint64 // the last seq handed out
	DurableSeq uint64 // the highest seq known to be on disk
	// Unavailable is set, and the rest empty but for Key, when the graph
	// cannot be loaded: it says which graph and why. The other graph of
	// the read is served.
	Unavailable string
}

// GraphEdge is an edge with whether the full read shows it
// (docs/design/compaction.md#shown-edges).
type GraphEdge struct {
	Edge  *domain.Edge // must not be modified
	Shown bool
}

// GraphRead is what GET /api/graph/read returns: the user graph and, when
// the request names a project, that project's graph.
type GraphRead struct {
	User    GraphContents
	Project *GraphContents // nil when no project was named
	// Stale is set when the read is from memory that may be behind what
	// other servers committed (as ReadResult.Stale).
	Stale bool
}

// ReadGraphs is GET /api/graph/read: every item of the user graph and of
// the project named by the scope (a session's or a path; none is fine),
// loading the project graph if needed. It is a read: it stamps nothing and
// promotes nothing, so a page can show any node's details without
// recalling it. A graph that cannot be loaded is shown as unavailable and
// the other is served (docs/decisions/0008-faults-in-one-graph.md); when
// none can be, ReadGraphs fails with the load error.
func (s *Service) ReadGraphs(ctx context.Context, sc Scope) (_ GraphRead, err error) {
	t, err := s.scope.resolve(ctx, Scope{SessionID: sc.SessionID, ProjectPath: sc.ProjectPath, ProjectKey: sc.ProjectKey})
	if err != nil {
		return GraphRead{}, err
	}
	defer s.countOp(t.session, &err)
	var res GraphRead
	res.Stale = s.store.Fresh(ctx, t.keys()...) // team mode: what other servers committed
	var downs []error
	for _, k := range t.keys() {
		e, down, err := s.reader.spanned(ctx, k)
		if err != nil {
			return GraphRead{}, err
		}
		var gc GraphContents
		if down != nil {
			downs = append(downs, down)
			gc = GraphContents{Key: k, MaxTokens: s.cfg.Policy.MaxTokens, Target: s.cfg.Policy.Target(), Unavailable: down.Error()}
		} else {
			e.RLock()
			gc = contents(e.Graph(), s.cfg.Policy)
			e.RUnlock()
		}
		if k.Level == domain.LevelUser {
			res.User = gc
		} else {
			res.Project = &gc
		}
	}
	if len(downs) == len(t.keys()) {
		return GraphRead{}, noGraphLoads(downs)
	}
	return res, nil
}

// contents lists g, its estimate and budget under policy p. The caller
// holds g's read lock. Nodes and edges are
// never changed in place (a change replaces them), so the pointers stay
// valid after the lock is let go.
func contents(g *domain.Graph, p compaction.Policy) GraphContents {
	gc := GraphContents{
		Key: g.Key(), Nodes: g.Nodes(), Stats: g.Stats(),
		Estimate: p.Estimate(g), MaxTokens: p.MaxTokens, Target: p.Target(),
		Seq: g.Seq(), DurableSeq: g.DurableSeq(),
	}
	edges := g.Edges()
	gc.Edges = make([]GraphEdge, len(edges))
	for i, ed := range edges {
		gc.Edges[i] = GraphEdge{Edge: ed, Shown: g.Shown(ed.Key())}
	}
	return gc
}
