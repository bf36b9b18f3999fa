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

// Search finds the nodes of graphs that match query (docs/design/mcp.md,
// kg_search) and returns at most limit hits, best first.
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
	hits, counts := searchMatches(graphs, terms)
	if len(hits) == 0 {
		return nil, nil
	}
	byID := sortHitsByID(graphs, hits)

	// Rank each term's matches by count (descending), ties in hit order:
	// a stable sort of the matches taken in that order. Terms are fused in
	// query order so that the float sums, and with them the order of hits
	// with near-equal scores, are the same on every run.
	var ms []int32
	for t := range terms {
		ms = ms[:0]
		for _, h := range byID {
			if counts[t][h] > 0 {
				ms = append(ms, h)
			}
		}
		c := counts[t]
		slices.SortStableFunc(ms, func(a, b int32) int { return int(c[b]) - int(c[a]) })
		for r, h := range ms {
			hits[h].Score += 1 / float64(searchRRFK+r)
		}
	}

	// The best limit hits by score (descending), ties in hit order: the
	// hits are visited in hit order, so a later one with the same score
	// never displaces an earlier one.
	top := make([]int32, 0, min(limit, len(hits)))
	for _, h := range byID {
		sc := hits[h].Score
		if len(top) == cap(top) && sc <= hits[top[len(top)-1]].Score {
			continue
		}
		at, _ := slices.BinarySearchFunc(top, sc, func(x int32, sc float64) int {
			if hits[x].Score >= sc {
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
		out[i] = hits[h]
	}
	return out, nil
}

// searchMatches returns every node of graphs that holds one of terms, as a
// hit without a score, and counts[t][h], the number of occurrences of term
// t in the text of hit h (0 for none).
func searchMatches(graphs []*Graph, terms []string) ([]SearchHit, [][]int32) {
	var hits []SearchHit
	counts := make([][]int32, len(terms))
	type found struct{ si, count int32 }
	inGraph := make([][]found, len(terms)) // reused for every graph
	pos := make([]int, len(terms))
	for _, g := range graphs {
		if g == nil {
			continue
		}
		for t, term := range terms {
			inGraph[t] = inGraph[t][:0]
			g.search.matchTerm(g, term, func(si int32, c int) { inGraph[t] = append(inGraph[t], found{si, int32(c)}) })
			pos[t] = 0
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
			hits = append(hits, SearchHit{Key: g.key, Node: g.ends[next].node})
			for t, fs := range inGraph {
				c := int32(0)
				if pos[t] < len(fs) && fs[pos[t]].si == next {
					c = fs[pos[t]].count
					pos[t]++
				}
				counts[t] = append(counts[t], c)
			}
		}
	}
	return hits, counts
}

// sortHitsByID returns the positions of hits in hit order: by node id,
// then graph key (user before project, projects by path). It sorts small keys, the id and the rank of its graph's key,
// rather than the hits.
func sortHitsByID(graphs []*Graph, hits []SearchHit) []int32 {
	keys := slices.Clone(graphs)
	keys = slices.DeleteFunc(keys, func(g *Graph) bool { return g == nil })
	slices.SortFunc(keys, func(a, b *Graph) int { return cmpGraphKey(a.key, b.key) })
	rankOf := func(k GraphKey) int32 {
		i, _ := slices.BinarySearchFunc(keys, k, func(g *Graph, k GraphKey) int { return cmpGraphKey(g.key, k) })
		return int32(i)
	}
	type idKey struct {
		id    string
		graph int32 // the rank of the hit's graph key
		h     int32
	}
	ks := make([]idKey, len(hits))
	var lastKey GraphKey
	var lastRank int32 = -1
	for h := range hits {
		if k := hits[h].Key; lastRank < 0 || k != lastKey {
			lastKey, lastRank = k, rankOf(k)
		}
		ks[h] = idKey{hits[h].Node.ID, lastRank, int32(h)}
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
