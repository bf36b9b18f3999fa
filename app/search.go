package app

import (
	"context"
	"slices"

	"github.com/kg-memory/kg/app/graphstore"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/graphsearch"
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
	stale := s.store.Fresh(ctx, t.keys()...) // team mode: what other servers committed
	in := &searchGraphs{reader: s.reader}
	// The graphs a search of every graph loads are let go once it is done:
	// it must not keep every graph in memory (docs/design/team.md#scale).
	defer func() { s.store.GiveBack(in.borrowed) }()
	if err := in.gather(ctx, t, req); err != nil {
		return SearchResult{}, err
	}
	if len(in.entries) == 0 && len(in.downs) > 0 {
		return SearchResult{}, noGraphLoads(in.downs)
	}
	found, err := searchLocked(in.entries, req.Query, req.Limit)
	if err != nil {
		return SearchResult{}, err
	}
	res := SearchResult{Hits: make([]Hit, len(found.Hits)), Corrections: found.Corrections, Nearest: found.Nearest, Stale: stale}
	for i, h := range found.Hits {
		res.Hits[i] = Hit{Level: h.Key.Level, Project: h.Key.Project, Node: h.Node, Score: h.Score, Matched: h.Matched}
	}
	for _, down := range in.downs {
		res.Unavailable = append(res.Unavailable, down.Error())
	}
	if t.session != "" {
		s.sessions.See(t.session, hitKeys(res.Hits, t.project)...)
	}
	return res, nil
}

// searchGraphs are the graphs one search looks in.
type searchGraphs struct {
	reader  *graphReader
	entries []*graphstore.Entry
	// downs are the graphs that could not be loaded, with why: left out of
	// a search without a level.
	downs []error
	// borrowed are the graphs loaded for this search alone (All): given
	// back once it is done.
	borrowed []graphstore.Borrowed
}

// add adds graph k, or, when it cannot be loaded, why to downs.
func (in *searchGraphs) add(ctx context.Context, k domain.GraphKey) error {
	e, down, err := in.reader.spanned(ctx, k)
	switch {
	case err != nil:
		return err
	case down != nil:
		in.downs = append(in.downs, down)
	default:
		in.entries = append(in.entries, e)
	}
	return nil
}

// gather adds the graphs the search req of t looks in.
func (in *searchGraphs) gather(ctx context.Context, t target, req SearchRequest) error {
	st := in.reader.store
	switch {
	case req.All:
		keys, err := in.reader.everyGraph(ctx, t, req)
		if err != nil {
			return err
		}
		for _, k := range keys {
			had := st.IsLoaded(k)
			if err := in.add(ctx, k); err != nil {
				return err
			}
			if had || k.Level != domain.LevelProject || len(in.entries) == 0 || in.entries[len(in.entries)-1].Key() != k {
				continue // loaded before, the user graph, or not loaded at all
			}
			e := in.entries[len(in.entries)-1]
			in.borrowed = append(in.borrowed, e.Borrow())
		}
	case req.Level != "":
		k, err := t.key(req.Level)
		if err != nil {
			return err
		}
		e, err := st.Get(ctx, k)
		if err != nil {
			return err
		}
		in.entries = []*graphstore.Entry{e}
	case t.session != "" || t.project != "":
		for _, k := range t.keys() {
			if err := in.add(ctx, k); err != nil {
				return err
			}
		}
	default:
		if err := in.add(ctx, domain.UserGraphOf(t.owner)); err != nil {
			return err
		}
		in.entries = slices.DeleteFunc(st.Loaded(), func(e *graphstore.Entry) bool { return !t.mayRead(e.Key()) })
	}
	return nil
}

// searchLocked searches the graphs of entries under their read locks, taken
// in the store's one order (user graph first, then projects by path), so
// several readers and the committers can never deadlock.
func searchLocked(entries []*graphstore.Entry, query string, limit int) (graphsearch.Result, error) {
	graphs := make([]*domain.Graph, len(entries))
	for i, e := range entries {
		e.RLock()
		graphs[i] = e.Graph()
	}
	defer func() {
		for _, e := range entries {
			e.RUnlock()
		}
	}()
	return graphsearch.Find(graphs, query, limit)
}

// hitKeys are the seen-set keys of the hits of the user graph and of
// project's graph: the ones a session's seen set holds.
func hitKeys(hits []Hit, project string) []string {
	keys := make([]string, 0, len(hits))
	for _, h := range hits {
		if h.Level == domain.LevelUser || h.Project == project {
			keys = append(keys, ports.SeenKey(h.Level, h.Node.ID))
		}
	}
	return keys
}
