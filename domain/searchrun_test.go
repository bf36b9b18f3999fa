package domain

import (
	"fmt"
	"slices"

	"github.com/kg-memory/kg/domain/search"
)

// kg_search across graphs is domain/graphsearch's
// (docs/decisions/0112-full-read-and-search-rooms.md), which domain cannot
// import. The tests of the search index that need the graph's internals
// (the index itself, a rebuild with other block sizes, the work a search
// did) stay here and search through the same seam as the room:
// Graph.SearchTarget and search.Run. searchGraphs is graphsearch.Find as
// those tests use it, written again here: the same check of the query and
// limit, the same ranking of the graphs and the same reading of the hits.
// domain/graphsearch's own tests check Find itself, and
// TestSearchGraphsIsFind (searchrun_find_test.go) holds the two to the same
// answers.

// searchResult is graphsearch.Result.
type searchResult struct {
	Hits        []searchHit
	Corrections []correction
	Nearest     []suggestion
}

// searchHit is graphsearch.Hit.
type searchHit struct {
	Key     GraphKey
	Node    *Node
	Score   float64
	Matched []string
}

// correction is graphsearch.Correction.
type correction struct{ Term, Used string }

// suggestion is graphsearch.Suggestion.
type suggestion struct{ Term, Nearest string }

// searchGraphs is graphsearch.Find.
func searchGraphs(graphs []*Graph, query string, limit int) (searchResult, error) {
	res, _, err := searchWithWork(graphs, query, limit)
	return res, err
}

// searchWithWork is searchGraphs, and also says what it read (search.Work).
func searchWithWork(graphs []*Graph, query string, limit int) (searchResult, search.Work, error) {
	if err := ValidateQuery("query", query); err != nil {
		return searchResult{}, search.Work{}, err
	}
	switch {
	case limit < 0:
		return searchResult{}, search.Work{}, Invalidf("limit", "%d must be between 0 (default %d) and %d", limit, DefaultSearchLim, MaxSearchLimit)
	case limit == 0:
		limit = DefaultSearchLim
	case limit > MaxSearchLimit:
		limit = MaxSearchLimit
	}
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
	found := search.Run(ts, query, limit)
	res := searchResult{Hits: make([]searchHit, len(found.Hits))}
	for i, h := range found.Hits {
		g := graphs[h.Target]
		res.Hits[i] = searchHit{Key: g.Key(), Node: g.SlotNode(h.Slot), Score: h.Score, Matched: h.Matched}
	}
	for _, c := range found.Corrections {
		res.Corrections = append(res.Corrections, correction{Term: c.Term, Used: c.Used})
	}
	for _, s := range found.Nearest {
		res.Nearest = append(res.Nearest, suggestion{Term: s.Term, Nearest: s.Nearest})
	}
	return res, found.Work, nil
}

// SearchLinesForTest is searchGraphs's answer as lines, for
// TestSearchGraphsIsFind (package domain_test, which may import
// domain/graphsearch): one per hit (key, node pointer, score, matched
// terms), then one per correction and per suggestion.
func SearchLinesForTest(graphs []*Graph, query string, limit int) ([]string, error) {
	res, err := searchGraphs(graphs, query, limit)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, h := range res.Hits {
		out = append(out, fmt.Sprintf("hit %s %p %v %q", h.Key, h.Node, h.Score, h.Matched))
	}
	for _, c := range res.Corrections {
		out = append(out, "correction "+c.Term+" "+c.Used)
	}
	for _, n := range res.Nearest {
		out = append(out, "nearest "+n.Term+" "+n.Nearest)
	}
	return out, nil
}
