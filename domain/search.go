package domain

import (
	"slices"
	"strings"
)

// Search finds the nodes of graphs that match query
// (docs/design/mcp.md#kg_search) and returns at most limit hits, best first,
// with the corrections it used and, when nothing matched, the nearest
// spelling of each term that matched nothing.
//
// The terms are the query's tokens (searchtext.go), repeats dropped. Each
// term is scored in every node by BM25 over the node's words
// (searchrank.go); the scores add up over the terms, and a node whose id is
// the whole query ranks first. Hits are sorted by score (descending), then
// level (user first), then id, then project. Every tier is searched. Search
// has no side effects: nothing is promoted or stamped.
//
// The query must pass ValidateQuery. A limit of 0 means DefaultSearchLim; a
// limit above MaxSearchLimit is clamped to MaxSearchLimit, because a search
// is a read without side effects and "the most you may have" is the useful
// answer to asking for more; a negative limit is an invalid-argument error
// naming "limit". Nil graphs are skipped.
//
// Cost: top-k by MaxScore (docs/decisions/0045-word-index-for-search.md).
// Each term has a bound, the most it can add to a score; the terms whose
// bounds together stay under the k-th best score so far cannot bring a node
// into the top k on their own, so only the nodes holding one of the other
// terms are visited, and the rare terms are those. A query of a rare and a
// common word costs about what the rare word alone costs. Search only
// reads the graphs and their indexes, so searches may run side by side
// under a graph's read lock.
func Search(graphs []*Graph, query string, limit int) (SearchResult, error) {
	if err := ValidateQuery("query", query); err != nil {
		return SearchResult{}, err
	}
	switch {
	case limit < 0:
		return SearchResult{}, Invalidf("limit", "%d must be between 0 (default %d) and %d", limit, DefaultSearchLim, MaxSearchLimit)
	case limit == 0:
		limit = DefaultSearchLim
	case limit > MaxSearchLimit:
		limit = MaxSearchLimit
	}
	p := planSearch(graphs, query, searchTerms(query))
	top := &searchTop{limit: limit, graphs: graphs}
	if p.n > 0 {
		for gi, g := range graphs {
			if g != nil {
				p.searchGraph(top, gi, g)
			}
		}
	}
	res := SearchResult{Corrections: p.correction}
	res.Hits = top.hits(p)
	if len(res.Hits) == 0 {
		for _, t := range p.unmatched {
			if near := nearWords(graphs, t, nearMax(len([]rune(t)))); len(near) > 0 {
				res.Nearest = append(res.Nearest, Suggestion{Term: t, Nearest: near[0].text})
			}
		}
	}
	return res, nil
}

// searchTop keeps the best hits found so far, worst first.
type searchTop struct {
	limit  int
	graphs []*Graph
	heap   []topHit // a min-heap by hit order: the root is the worst
}

type topHit struct {
	score float64
	gi    int32
	si    int32
}

// better reports whether hit a ranks before hit b: a higher score, then
// the user graph before projects, then the id, then the project path.
func (t *searchTop) better(a, b topHit) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return t.cmpTies(a, b) < 0
}

func (t *searchTop) cmpTies(a, b topHit) int {
	ga, gb := t.graphs[a.gi], t.graphs[b.gi]
	if ua, ub := ga.key.Level == LevelUser, gb.key.Level == LevelUser; ua != ub {
		if ua {
			return -1
		}
		return 1
	}
	if c := strings.Compare(ga.ends[a.si].name, gb.ends[b.si].name); c != 0 {
		return c
	}
	return cmpGraphKey(ga.key, gb.key)
}

// threshold is the score a node must reach to be considered: that of the
// worst hit kept once the list is full, and 0 before.
func (t *searchTop) threshold() float64 {
	if len(t.heap) < t.limit {
		return 0
	}
	return t.heap[0].score
}

// offer keeps h if it ranks among the best limit.
func (t *searchTop) offer(h topHit) {
	if len(t.heap) < t.limit {
		t.heap = append(t.heap, h)
		for i := len(t.heap) - 1; i > 0; {
			parent := (i - 1) / 2
			if !t.better(t.heap[parent], t.heap[i]) {
				break
			}
			t.heap[parent], t.heap[i] = t.heap[i], t.heap[parent]
			i = parent
		}
		return
	}
	if !t.better(h, t.heap[0]) {
		return
	}
	t.heap[0] = h
	for i := 0; ; {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < len(t.heap) && t.better(t.heap[worst], t.heap[l]) {
			worst = l
		}
		if r < len(t.heap) && t.better(t.heap[worst], t.heap[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		t.heap[i], t.heap[worst] = t.heap[worst], t.heap[i]
		i = worst
	}
}

// hits returns the kept hits, best first, with the terms each matched.
func (t *searchTop) hits(p *searchPlan) []SearchHit {
	slices.SortFunc(t.heap, func(a, b topHit) int {
		if t.better(a, b) {
			return -1
		}
		return 1
	})
	out := make([]SearchHit, len(t.heap))
	tf := p.scratch()
	for i, h := range t.heap {
		g := t.graphs[h.gi]
		out[i] = SearchHit{Key: g.key, Node: g.ends[h.si].node, Score: h.score, Matched: p.matched(int(h.gi), &g.search.nodes[h.si], tf)}
	}
	return out
}

// scratch returns room for termScore: one entry per clause of the
// largest term.
func (p *searchPlan) scratch() []float64 {
	n := 0
	for _, pt := range p.terms {
		n = max(n, len(pt.clauses))
	}
	return make([]float64, n)
}

// matched returns the labels of the clauses through which a node scored,
// in the order of the terms, without repeats.
func (p *searchPlan) matched(gi int, nt *nodeText, tf []float64) []string {
	var out []string
	for ti := range p.terms {
		if v, c := p.termScore(ti, gi, nt, tf); v > 0 {
			if l := p.terms[ti].clauses[c].label; !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
	}
	return out
}

// score returns the score of node slot si of graph gi: its terms' scores
// added in query order, plus the bound of the query if its id is the whole
// query.
func (p *searchPlan) score(gi int, g *Graph, si int32, tf []float64) float64 {
	s := 0.0
	nt := &g.search.nodes[si]
	for ti := range p.terms {
		v, _ := p.termScore(ti, gi, nt, tf)
		s += v
	}
	if s > 0 && g.ends[si].name == p.exactID {
		s += p.bound
	}
	return s
}

// boundSlack keeps float rounding from pruning a node whose score equals
// the threshold: a bound counts as under the threshold only when it is
// under by more than this share.
const boundSlack = 1e-9

// searchGraph offers the nodes of graph gi that can rank among the best to
// top, by MaxScore: the terms are taken in rising order of bound, and
// those whose bounds add up to less than the threshold are not essential.
// Only the nodes holding an essential term are visited; for each, the
// essential terms are scored, then the others while the score can still
// reach the threshold.
func (p *searchPlan) searchGraph(top *searchTop, gi int, g *Graph) {
	ix := g.search
	tf := p.scratch()
	order := make([]int, 0, len(p.terms))
	for ti, pt := range p.terms {
		if len(pt.words[gi]) > 0 {
			order = append(order, ti)
		}
	}
	if len(order) == 0 {
		return
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch ba, bb := p.terms[a].bound, p.terms[b].bound; {
		case ba < bb:
			return -1
		case ba > bb:
			return 1
		}
		return 0
	})
	prefix := make([]float64, len(order)+1) // prefix[i]: Σ bounds of order[:i]
	for i, ti := range order {
		prefix[i+1] = prefix[i] + p.terms[ti].bound
	}

	// The node whose id is the query ranks first whatever it holds.
	exact := int32(-1)
	if si, ok := g.endIx[p.exactID]; ok && g.ends[si].node != nil {
		exact = si
		if s := p.score(gi, g, si, tf); s > 0 {
			top.offer(topHit{s, int32(gi), si})
		}
	}

	// A cursor per posting list of each term.
	var cursors []cursor
	for oi, ti := range order {
		for _, tw := range p.terms[ti].words[gi] {
			cursors = append(cursors, cursor{posts: ix.words[tw.word].posts, term: oi})
		}
	}
	last := len(order) - 1

	// First every node of the term of the highest bound, the rarest: they
	// would all be visited anyway, and they set the threshold that makes
	// the common terms not essential.
	primer := make([]cursor, 0, len(cursors))
	for _, c := range cursors {
		if c.term == last {
			primer = append(primer, c)
		}
	}
	for si := nextSlot(primer, last); si >= 0; si = nextSlot(primer, last) {
		if si != exact {
			p.consider(top, gi, g, si, order, len(order)-1, prefix, tf)
		}
	}

	essential := 0 // order[essential:] are essential
	update := func() {
		th := top.threshold()
		for essential < len(order) && prefix[essential+1] < th*(1-boundSlack) {
			essential++
		}
	}
	update()
	for {
		// The next node: the lowest slot under an essential cursor.
		next := int32(-1)
		for i := range cursors {
			c := &cursors[i]
			if c.term < essential || c.at >= len(c.posts) {
				continue
			}
			if s := c.posts[c.at]; next < 0 || s < next {
				next = s
			}
		}
		if next < 0 {
			return
		}
		primed := false
		for i := range cursors {
			c := &cursors[i]
			if c.term >= essential && c.at < len(c.posts) && c.posts[c.at] == next {
				c.at++
				primed = primed || c.term == last
			}
		}
		if primed || next == exact {
			continue
		}
		p.consider(top, gi, g, next, order, essential, prefix, tf)
		update()
	}
}

// cursor walks one posting list; term is its term's position in the
// order of bounds.
type cursor struct {
	posts []int32
	at    int
	term  int
}

// nextSlot returns the lowest slot under the cursors of term and moves
// past it, or -1 when they are done.
func nextSlot(cs []cursor, term int) int32 {
	next := int32(-1)
	for i := range cs {
		c := &cs[i]
		if c.term == term && c.at < len(c.posts) && (next < 0 || c.posts[c.at] < next) {
			next = c.posts[c.at]
		}
	}
	for i := range cs {
		c := &cs[i]
		if c.term == term && c.at < len(c.posts) && c.posts[c.at] == next {
			c.at++
		}
	}
	return next
}

// consider scores node slot si of graph gi and offers it to top: the
// essential terms order[essential:] first, then the others from the
// highest bound while what is left can still reach the threshold.
func (p *searchPlan) consider(top *searchTop, gi int, g *Graph, si int32, order []int, essential int, prefix []float64, tf []float64) {
	if p.visit != nil {
		p.visit()
	}
	nt := &g.search.nodes[si]
	th := top.threshold()
	s := 0.0
	for oi := len(order) - 1; oi >= essential; oi-- {
		v, _ := p.termScore(order[oi], gi, nt, tf)
		s += v
	}
	for oi := essential - 1; oi >= 0; oi-- {
		if (s+prefix[oi+1])*(1+boundSlack) < th {
			return
		}
		v, _ := p.termScore(order[oi], gi, nt, tf)
		s += v
	}
	if s*(1+boundSlack) < th {
		return
	}
	// The score as every path computes it: terms in query order.
	top.offer(topHit{p.score(gi, g, si, tf), int32(gi), si})
}
