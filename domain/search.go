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

// Search finds the nodes of graphs that match query (mcp.md, kg_search) and
// returns at most limit hits, best first.
//
// The terms are the query lower-cased and split on white space, duplicates
// dropped. A node's text is its id, gist, notes and touches joined with
// newlines and lower-cased; a term matches a node whose text contains it,
// and its weight there is the number of non-overlapping occurrences. For
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
// Cost: one pass over each node's text to lower-case it (no copy for text
// that is already lower-case ASCII) and one substring count per term,
// O(terms × total text), plus sorting the matches. There is no cache of
// lower-cased text: searches may run side by side under a graph's read
// lock, and a cache filled during a read would need a lock of its own for a
// saving of one linear pass that the counting repeats anyway.
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

	type match struct {
		hit   int // index into hits
		count int
	}
	var hits []SearchHit
	perTerm := make([][]match, len(terms))
	var fields []string // reused for every node
	for _, g := range graphs {
		if g == nil {
			continue
		}
		for _, n := range g.allNodes() {
			fields = searchFields(fields[:0], n)
			idx := -1
			for t, term := range terms {
				c := 0
				for _, f := range fields {
					c += strings.Count(f, term)
				}
				if c == 0 {
					continue
				}
				if idx < 0 {
					idx = len(hits)
					hits = append(hits, SearchHit{Key: g.key, Node: n})
				}
				perTerm[t] = append(perTerm[t], match{hit: idx, count: c})
			}
		}
	}
	// Terms are fused in query order so that the float sums, and with them
	// the order of hits with near-equal scores, are the same on every run.
	for _, ms := range perTerm {
		slices.SortFunc(ms, func(a, b match) int {
			if a.count != b.count {
				return b.count - a.count
			}
			return cmpHit(hits[a.hit], hits[b.hit])
		})
		for r, m := range ms {
			hits[m.hit].Score += 1 / float64(searchRRFK+r)
		}
	}
	slices.SortFunc(hits, func(a, b SearchHit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return cmpHit(a, b)
	})
	if len(hits) > limit {
		hits = slices.Clip(hits[:limit])
	}
	return hits, nil
}

// cmpHit is the tie-break of search: id, then graph key.
func cmpHit(a, b SearchHit) int {
	if c := strings.Compare(a.Node.ID, b.Node.ID); c != 0 {
		return c
	}
	return cmpGraphKey(a.Key, b.Key)
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

// searchFields appends to buf the lower-cased fields a node is searched
// by: id, gist, notes and touches. Counting a term in each field and adding
// up equals counting it in the fields joined with newlines, because a term
// holds no white space and so never spans two fields; keeping the fields
// apart means text that is already lower-case ASCII (most ids, touches and
// many notes) is searched without a copy.
func searchFields(buf []string, n *Node) []string {
	buf = append(buf, strings.ToLower(n.ID), strings.ToLower(n.Gist))
	for _, s := range n.Notes {
		buf = append(buf, strings.ToLower(s))
	}
	for _, s := range n.Touches {
		buf = append(buf, strings.ToLower(s))
	}
	return buf
}
