package domain

import (
	"slices"
	"strings"
)

// searchRRFK is the constant of reciprocal rank fusion: a node at rank r
// (0-based) of one term's ranking gains 1/(searchRRFK + r). 60 is the value
// of the replaced server (and of the original RRF paper); it keeps the
// first ranks from dominating the fused score.
const searchRRFK = 60

// Search finds the nodes of graphs that match query
// (docs/design/mcp.md#kg_search) and returns at most limit hits, best first.
//
// The terms are the query lower-cased and split on white space, duplicates
// dropped. A node's text is its id, gist, notes and touches and the far
// ends of its edges that are not nodes of its graph (file paths, artifacts,
// once per edge), each lower-cased; a term matches a node whose text
// contains it, and its weight there is the number of non-overlapping
// occurrences, added up over those pieces (a term holds no white space, so
// it never spans two). For
// each term the matching nodes of all graphs are ranked by occurrence count
// (descending; ties by id, then graph key: user before project, projects by
// path) and the node at rank r gains 1/(60+r). The scores add up over the
// terms; hits are sorted by score (descending), then id, then graph key.
// Every tier is searched. Search has no side effects: nothing is promoted or
// stamped.
//
// The query must pass ValidateQuery. A limit of 0 means DefaultSearchLim; a
// limit above MaxSearchLimit is clamped to MaxSearchLimit, because a search
// is a read without side effects and "the most you may have" is the useful
// answer to asking for more; a negative limit is an invalid-argument error
// naming "limit". Nil graphs are skipped.
//
// Cost: each graph's trigram index (searchindex.go) gives the nodes that
// hold every trigram of a term, and the term is counted in their cached
// lower-cased text only; a term shorter than three bytes is counted in
// every node. Then the matches are sorted, so a search costs about the
// matching nodes, not the graph. It only reads the graphs and their
// indexes, so searches may run side by side under a graph's read lock.
func Search(graphs []*Graph, query string, limit int) ([]SearchHit, error) {
	if err := ValidateQuery("query", query); err != nil {
		return nil, err
	}
	switch {
	case limit < 0:
		return nil, Invalidf("limit", "%d must be between 0 (default %d) and %d", limit, DefaultSearchLim, MaxSearchLimit)
	case limit == 0:
		limit = DefaultSearchLim
	case limit > MaxSearchLimit:
		limit = MaxSearchLimit
	}
	terms := searchTerms(query)
	m := searchMatches(graphs, terms)
	if len(m.hits) == 0 {
		return nil, nil
	}
	byID := m.sortByID(graphs)

	// Rank each term's matches by count (descending), ties in hit order:
	// a stable sort of the matches taken in that order. Terms are fused in
	// query order so that the float sums, and with them the order of hits
	// with near-equal scores, are the same on every run.
	score := make([]float64, len(m.hits))
	ms := make([]int32, 0, len(byID))
	for t := range terms {
		c := m.counts[t]
		ms = ms[:0]
		for _, h := range byID {
			if c[h] > 0 {
				ms = append(ms, h)
			}
		}
		slices.SortStableFunc(ms, func(a, b int32) int { return int(c[b]) - int(c[a]) })
		for r, h := range ms {
			score[h] += 1 / float64(searchRRFK+r)
		}
	}

	// The best limit hits by score (descending), ties in hit order: the
	// hits are visited in hit order, so a later one with the same score
	// never displaces an earlier one.
	top := make([]int32, 0, min(limit, len(m.hits)))
	for _, h := range byID {
		sc := score[h]
		if len(top) == cap(top) && sc <= score[top[len(top)-1]] {
			continue
		}
		at, _ := slices.BinarySearchFunc(top, sc, func(x int32, sc float64) int {
			if score[x] >= sc {
				return -1 // x stays before a hit that scores the same or less
			}
			return 1
		})
		if len(top) == cap(top) {
			top = top[:len(top)-1]
		}
		top = slices.Insert(top, at, h)
	}
	out := make([]SearchHit, len(top))
	for i, h := range top {
		g := graphs[m.hits[h].g]
		out[i] = SearchHit{Key: g.key, Node: g.ends[m.hits[h].si].node, Score: score[h]}
	}
	return out, nil
}

// searchHits are the nodes that hold at least one term of a search.
type searchHits struct {
	hits   []hitRef  // each matching node once
	counts [][]int32 // counts[t][h]: occurrences of term t in hit h, 0 for none
}

// hitRef names a node of a search: the position of its graph in the
// graphs searched and its slot there. Hits stay this small until the best
// are picked, because a search can match most nodes of a large graph.
type hitRef struct{ g, si int32 }

// searchMatches finds every node of graphs that holds one of terms.
func searchMatches(graphs []*Graph, terms []string) searchHits {
	var m searchHits
	m.counts = make([][]int32, len(terms))
	type found struct{ si, count int32 }
	inGraph := make([][]found, len(terms)) // reused for every graph
	pos := make([]int, len(terms))
	for gi, g := range graphs {
		if g == nil {
			continue
		}
		most := 0 // hits in this graph at most
		for t, term := range terms {
			inGraph[t] = inGraph[t][:0]
			g.search.matchTerm(g, term, func(si int32, c int) { inGraph[t] = append(inGraph[t], found{si, int32(c)}) })
			pos[t] = 0
			most += len(inGraph[t])
		}
		m.hits = slices.Grow(m.hits, most)
		for t := range terms {
			m.counts[t] = slices.Grow(m.counts[t], most)
		}
		// Each term's matches come in ascending slot order: merging them
		// makes each matching node one hit, without a map.
		for {
			next := int32(-1)
			for t, fs := range inGraph {
				if pos[t] < len(fs) && (next < 0 || fs[pos[t]].si < next) {
					next = fs[pos[t]].si
				}
			}
			if next < 0 {
				break
			}
			m.hits = append(m.hits, hitRef{int32(gi), next})
			for t, fs := range inGraph {
				c := int32(0)
				if pos[t] < len(fs) && fs[pos[t]].si == next {
					c = fs[pos[t]].count
					pos[t]++
				}
				m.counts[t] = append(m.counts[t], c)
			}
		}
	}
	return m
}

// sortByID returns the positions of the hits in hit order: by node id,
// then graph key (user before project, projects by path). It sorts small
// keys, the id and the rank of the hit's graph key.
func (m searchHits) sortByID(graphs []*Graph) []int32 {
	order := make([]int, 0, len(graphs))
	for gi, g := range graphs {
		if g != nil {
			order = append(order, gi)
		}
	}
	slices.SortFunc(order, func(a, b int) int { return cmpGraphKey(graphs[a].key, graphs[b].key) })
	rank := make([]int32, len(graphs)) // by position in graphs; equal keys share a rank
	for i, gi := range order {
		rank[gi] = int32(i)
		if i > 0 && graphs[order[i-1]].key == graphs[gi].key {
			rank[gi] = rank[order[i-1]]
		}
	}
	type idKey struct {
		id    string
		graph int32 // the rank of the hit's graph key
		h     int32
	}
	ks := make([]idKey, len(m.hits))
	for h, r := range m.hits {
		ks[h] = idKey{graphs[r.g].ends[r.si].name, rank[r.g], int32(h)}
	}
	slices.SortFunc(ks, func(a, b idKey) int {
		if c := strings.Compare(a.id, b.id); c != 0 {
			return c
		}
		return int(a.graph - b.graph)
	})
	out := make([]int32, len(ks))
	for i, k := range ks {
		out[i] = k.h
	}
	return out
}

// searchTerms lower-cases the query, splits it on white space and drops
// repeated terms, keeping the first occurrence's position.
func searchTerms(query string) []string {
	fields := strings.Fields(strings.ToLower(query))
	terms := fields[:0]
	seen := make(map[string]struct{}, len(fields))
	for _, f := range fields {
		if _, dup := seen[f]; dup {
			continue
		}
		seen[f] = struct{}{}
		terms = append(terms, f)
	}
	return terms
}
