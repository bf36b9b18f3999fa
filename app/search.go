package app

import (
	"context"
	"slices"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Search is kg_search. With a session (or a project path) it searches the
// user graph and that project's graph, loading it if needed; without
// either, the user graph and every loaded project graph; with All, the user
// graph and every project graph, loaded or stored. Level narrows it to one
// graph. It has no side effects on the graphs.
//
// Without a level, a graph that cannot be loaded is left out and named in
// Unavailable, and the others are searched, as the full read serves the
// graph it can (docs/decisions/0008-faults-in-one-graph.md). A search that
// could look in no graph at all fails with the load error; one aimed at a
// level fails when that graph cannot be loaded.
func (s *Service) Search(ctx context.Context, req SearchRequest) (_ SearchResult, err error) {
	if err := domain.ValidateQuery("query", req.Query); err != nil {
		return SearchResult{}, err
	}
	t, err := s.scope.resolve(ctx, Scope{SessionID: req.SessionID, ProjectPath: req.ProjectPath, ProjectKey: req.ProjectKey})
	if err != nil {
		return SearchResult{}, err
	}
	defer s.countOp(t.session, &err)
	stale := s.store.fresh(ctx, t.keys()...) // team mode: what other servers committed
	var (
		res     SearchResult
		entries []*graphEntry
		downs   []error
	)
	spanned := func(k domain.GraphKey) error {
		e, down, err := s.reader.spanned(ctx, k)
		switch {
		case err != nil:
			return err
		case down != nil:
			downs = append(downs, down)
			res.Unavailable = append(res.Unavailable, down.Error())
		default:
			entries = append(entries, e)
		}
		return nil
	}
	switch {
	case req.All:
		keys, err := s.everyGraph(ctx, t, req)
		if err != nil {
			return SearchResult{}, err
		}
		// The graphs this search loads are let go once it is done: a
		// search of every graph must not keep every graph in memory
		// (docs/design/team.md#scale).
		var borrowed []borrowedGraph
		defer func() { s.store.giveBack(borrowed) }()
		for _, k := range keys {
			had := s.store.isLoaded(k)
			if err := spanned(k); err != nil {
				return SearchResult{}, err
			}
			if had || k.Level != domain.LevelProject || len(entries) == 0 || entries[len(entries)-1].key != k {
				continue // loaded before, the user graph, or not loaded at all
			}
			e := entries[len(entries)-1]
			borrowed = append(borrowed, borrowedGraph{e: e, used: e.used.Load()})
		}
	case req.Level != "":
		k, err := t.key(req.Level)
		if err != nil {
			return SearchResult{}, err
		}
		e, err := s.store.get(ctx, k)
		if err != nil {
			return SearchResult{}, err
		}
		entries = []*graphEntry{e}
	case t.session != "" || t.project != "":
		for _, k := range t.keys() {
			if err := spanned(k); err != nil {
				return SearchResult{}, err
			}
		}
	default:
		if err := spanned(domain.UserGraphOf(t.owner)); err != nil {
			return SearchResult{}, err
		}
		entries = slices.DeleteFunc(s.store.loaded(), func(e *graphEntry) bool { return !t.mayRead(e.key) })
	}
	if len(entries) == 0 && len(downs) > 0 {
		return SearchResult{}, noGraphLoads(downs)
	}
	// Read locks in the store's one order (user graph first, then projects
	// by path), so several readers and the committers can never deadlock.
	graphs := make([]*domain.Graph, len(entries))
	for i, e := range entries {
		e.mu.RLock()
		graphs[i] = e.g
	}
	found, err := domain.Search(graphs, req.Query, req.Limit)
	for _, e := range entries {
		e.mu.RUnlock()
	}
	if err != nil {
		return SearchResult{}, err
	}
	res.Hits = make([]Hit, len(found.Hits))
	for i, h := range found.Hits {
		res.Hits[i] = Hit{Level: h.Key.Level, Project: h.Key.Project, Node: h.Node, Score: h.Score, Matched: h.Matched}
	}
	res.Corrections, res.Nearest, res.Stale = found.Corrections, found.Nearest, stale
	if t.session != "" {
		keys := make([]string, 0, len(res.Hits))
		for _, h := range res.Hits {
			if h.Level == domain.LevelUser || h.Project == t.project {
				keys = append(keys, ports.SeenKey(h.Level, h.Node.ID))
			}
		}
		s.sessions.see(t.session, keys...)
	}
	return res, nil
}
