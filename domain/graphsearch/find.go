package graphsearch

import (
	"slices"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/search"
)

// Find finds the nodes of graphs that match query
// (docs/design/mcp.md#kg_search) and returns at most limit hits, best first,
// with the corrections it used and, when nothing matched, the nearest
// spelling of each term that matched nothing (search.Run says how). Hits
// are sorted by score (descending), then level (user first), then id, then
// project. Every tier is searched. Find has no side effects: nothing is
// promoted or stamped.
//
// The query must pass domain.ValidateQuery. A limit of 0 means
// domain.DefaultSearchLim; a limit above domain.MaxSearchLimit is clamped to
// it, because a search is a read without side effects and "the most you may
// have" is the useful answer to asking for more; a negative limit is an
// invalid-argument error naming "limit". Nil graphs are skipped.
//
// A graph's first search builds its index (Graph.SearchTarget); after that,
// Find only reads the graphs and their indexes, so searches may run side
// by side under a graph's read lock.
func Find(graphs []*domain.Graph, query string, limit int) (Result, error) {
	res, _, err := findWithWork(graphs, query, limit)
	return res, err
}

// findWithWork is Find, and also says what it read (search.Work).
func findWithWork(graphs []*domain.Graph, query string, limit int) (Result, search.Work, error) {
	if err := domain.ValidateQuery("query", query); err != nil {
		return Result{}, search.Work{}, err
	}
	switch {
	case limit < 0:
		return Result{}, search.Work{}, domain.Invalidf("limit", "%d must be between 0 (default %d) and %d", limit, domain.DefaultSearchLim, domain.MaxSearchLimit)
	case limit == 0:
		limit = domain.DefaultSearchLim
	case limit > domain.MaxSearchLimit:
		limit = domain.MaxSearchLimit
	}
	found := search.Run(targets(graphs), query, limit)
	res := Result{Hits: make([]Hit, len(found.Hits))}
	for i, h := range found.Hits {
		g := graphs[h.Target]
		res.Hits[i] = Hit{Key: g.Key(), Node: g.SlotNode(h.Slot), Score: h.Score, Matched: h.Matched}
	}
	for _, c := range found.Corrections {
		res.Corrections = append(res.Corrections, Correction{Term: c.Term, Used: c.Used})
	}
	for _, s := range found.Nearest {
		res.Nearest = append(res.Nearest, Suggestion{Term: s.Term, Nearest: s.Nearest})
	}
	return res, found.Work, nil
}

// targets returns the graphs as search targets, building the indexes not
// built yet; a nil graph is a target without an index. A graph's rank is
// its place in the order of graph keys, the last tie-break of hits.
func targets(graphs []*domain.Graph) []search.Target {
	byKey := make([]int, 0, len(graphs))
	for i, g := range graphs {
		if g != nil {
			byKey = append(byKey, i)
		}
	}
	slices.SortStableFunc(byKey, func(a, b int) int { return graphs[a].Key().Compare(graphs[b].Key()) })
	ts := make([]search.Target, len(graphs))
	for rank, i := range byKey {
		if rank > 0 && graphs[byKey[rank-1]].Key().Compare(graphs[i].Key()) == 0 {
			rank = ts[byKey[rank-1]].Rank
		}
		ts[i] = graphs[i].SearchTarget(rank)
	}
	return ts
}
