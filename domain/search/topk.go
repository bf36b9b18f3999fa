package search

import (
	"cmp"
	"slices"
	"strings"
)

// Target is one graph searched: its index, the names of its slots, and
// where its hits rank among equal ones.
type Target struct {
	Index *Index // nil: not searched
	Names Names
	Slots int  // the graph's slots: the index's postings are of slots below it
	User  bool // at an equal score, hits of the user graph come first,
	Rank  int  // then by id, then by Rank: the graphs' order
}

// Names is what the search reads of a graph besides its index: the id of
// a hit, to order hits of equal score, and the slot of the node whose id
// is the whole query, which ranks first. Neither is asked per posting.
type Names interface {
	Name(si int32) string             // the id of the node of slot si
	NodeSlot(id string) (int32, bool) // the slot of the node of id, if one is
}

// Result is what Run found: at most limit hits, best first, the
// corrections it used and, when nothing matched, the nearest spelling of
// each term that matched nothing.
type Result struct {
	Hits        []Hit
	Corrections []Correction
	Nearest     []Suggestion
	Work        Work
}

// Hit is a node found: its target and slot, its score and the terms it
// matched, as they matched.
type Hit struct {
	Target  int
	Slot    int32
	Score   float64
	Matched []string
}

// Correction is a term that matched nothing and the word searched in its
// place.
type Correction struct{ Term, Used string }

// Suggestion is a term that matched nothing and the nearest spelling of it
// in the graphs.
type Suggestion struct{ Term, Nearest string }

// Run finds the nodes of targets that match query
// (docs/design/mcp.md#kg_search), at most limit of them (limit > 0).
//
// The terms are the query's tokens (text.go), repeats dropped. Each term
// is scored in every node by BM25 over the node's words (plan.go,
// rank.go); the scores add up over the terms, and a node whose id is the
// whole query ranks first. Hits are sorted by score (descending), then
// level (user first), then id, then Rank. Every node of an index is
// searched.
//
// Cost: top-k by WAND (searchGraph, docs/decisions/0045-word-index-for-search.md).
// Each word's posting list has a bound, the most a node in it can gain from
// it; a node whose lists' bounds cannot reach the k-th best score so far is
// never scored, so a query of a rare and a common word costs about what the
// rare word alone costs; and the slots are cut into blocks whose bounds
// (the most a node of the block counts each word) let whole blocks go
// unscored (docs/decisions/0053-search-index-on-first-search-and-block-max.md).
// Only the strong terms' lists are walked: a weak term (short, or common:
// IsWeak) is scored in the nodes they find, so a short or common word adds
// little to a query's cost
// (docs/decisions/0074-weak-terms-count-only-beside-a-strong-one.md).
// Run only reads the indexes, so searches may run side by side.
func Run(targets []Target, query string, limit int) Result {
	indexes := make([]*Index, len(targets))
	for i, t := range targets {
		indexes[i] = t.Index
	}
	p := planSearch(indexes, query, Terms(query))
	top := &searchTop{limit: limit, targets: targets}
	if p.n > 0 {
		for gi, t := range targets {
			if t.Index != nil {
				p.searchGraph(top, gi, &t)
			}
		}
	}
	res := Result{Corrections: p.correction}
	res.Hits = top.hits(p)
	if len(res.Hits) == 0 {
		for _, t := range p.unmatched {
			if near := nearWords(indexes, t, NearMax(len([]rune(t)))); len(near) > 0 {
				res.Nearest = append(res.Nearest, Suggestion{Term: t, Nearest: near[0].text})
			}
		}
	}
	res.Work = p.work
	return res
}

// searchTop keeps the best hits found so far, worst first.
type searchTop struct {
	limit   int
	targets []Target
	heap    []topHit // a min-heap by hit order: the root is the worst
}

type topHit struct {
	score float64
	gi    int32
	si    int32
}

// better reports whether hit a ranks before hit b: a higher score, then
// the user graph before projects, then the id, then the graphs' rank.
func (t *searchTop) better(a, b topHit) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return t.cmpTies(a, b) < 0
}

func (t *searchTop) cmpTies(a, b topHit) int {
	ga, gb := &t.targets[a.gi], &t.targets[b.gi]
	if ga.User != gb.User {
		if ga.User {
			return -1
		}
		return 1
	}
	if c := strings.Compare(ga.Names.Name(a.si), gb.Names.Name(b.si)); c != 0 {
		return c
	}
	return cmp.Compare(ga.Rank, gb.Rank)
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
func (t *searchTop) hits(p *searchPlan) []Hit {
	slices.SortFunc(t.heap, func(a, b topHit) int {
		if t.better(a, b) {
			return -1
		}
		return 1
	})
	out := make([]Hit, len(t.heap))
	tf := p.scratch()
	for i, h := range t.heap {
		ix := t.targets[h.gi].Index
		out[i] = Hit{Target: int(h.gi), Slot: h.si, Score: h.score, Matched: p.matched(int(h.gi), ix, h.si, tf)}
	}
	return out
}

// scratch returns room for termScore: one entry per clause of the
// largest term.
func (p *searchPlan) scratch() []float64 {
	return make([]float64, p.scratchLen())
}

// scratchLen is the most clauses of a term: the room scratch makes.
func (p *searchPlan) scratchLen() int {
	n := 0
	for _, pt := range p.terms {
		n = max(n, len(pt.clauses))
	}
	return n
}

// matched returns the labels of the clauses through which a node scored,
// in the order of the terms, without repeats.
func (p *searchPlan) matched(gi int, ix *Index, si int32, tf []float64) []string {
	var out []string
	for ti := range p.terms {
		if v, c := p.termScore(ti, gi, ix, si, tf, nil); v > 0 {
			if l := p.terms[ti].clauses[c].label; !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
	}
	return out
}

// withExactID adds the query's bound to the score s of node slot si when
// its id is the whole query.
// exact is the slot of that node in si's graph, -1 for none.
func (p *searchPlan) withExactID(exact, si int32, s float64) float64 {
	if s > 0 && si == exact {
		s += p.bound
	}
	return s
}

// boundSlack keeps float rounding from pruning a node whose score equals
// the threshold: a bound counts as under the threshold only when it is
// under by more than this share.
const boundSlack = 1e-9

// searchGraph offers the nodes of graph gi that can rank among the best to
// top. First the nodes of the plan's unit of the highest bound are scored
// (the rarest term's own words): they would be visited anyway, and they
// set a threshold that the nodes holding only common words cannot reach.
// They are scored block by block, the block of the highest bound first, so
// that the threshold rises fast, until a block's bound cannot reach it.
// Then WAND (Broder et al., 2003) walks the posting lists of every unit in
// slot order: each list has a bound, the most a node in it can gain from
// it, and a node is scored only if the bounds of the lists it can be in add
// up to the threshold; the lists behind it skip ahead to it by binary
// search, and a block whose bound cannot reach the threshold is skipped
// whole. So a query of a rare word and a common one visits about the rare
// word's nodes, not the common word's, and one of two common words about
// the nodes of the blocks where both are frequent.
func (p *searchPlan) searchGraph(top *searchTop, gi int, t *Target) {
	ix := t.Index
	order := p.unitOrder(gi)
	if len(order) == 0 {
		return
	}
	// The node whose id is the query ranks first whatever it holds.
	exact := int32(-1)
	if si, ok := t.Names.NodeSlot(p.exactID); ok {
		exact = si
	}
	c := p.newScorer(gi, ix, exact)
	c.blocks = newBlockBounds(p, gi, ix, order, int(ix.block(int32(t.Slots-1)))+1)
	if exact >= 0 {
		c.consider(top, exact, order)
	}

	// Only the strong terms' units find nodes (docs/decisions/0074-weak-terms-count-only-beside-a-strong-one.md):
	// the weak ones are scored in the nodes found.
	finding := slices.DeleteFunc(slices.Clone(order), func(ui int) bool { return !p.strongUnit(ui) })
	if len(finding) == 0 {
		return
	}
	w := walk{p: p, c: c, top: top, order: order, exact: exact, weak: p.weakBound(order)}
	w.primed, w.lists = p.openLists(ix, gi, finding)
	w.scorePrimed(ix)
	w.run()
}

// unitOrder returns the units with words in graph gi, by ascending bound.
func (p *searchPlan) unitOrder(gi int) []int {
	order := make([]int, 0, len(p.units))
	for ui, u := range p.units {
		if len(u.words[gi]) > 0 {
			order = append(order, ui)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(p.units[a].bound, p.units[b].bound) })
	return order
}

// weakBound returns what the weak terms add to every bound: the most each
// can give over the graph, the best of its units in order.
func (p *searchPlan) weakBound(order []int) float64 {
	var weak float64
	for ti, pt := range p.terms {
		if !pt.weak {
			continue
		}
		tb := 0.0
		for _, ui := range order {
			if p.units[ui].term == ti {
				tb = max(tb, p.units[ui].bound)
			}
		}
		weak += tb
	}
	return weak
}

// openLists returns the slots of the nodes of the finding unit of the
// highest bound (the last), ascending, and a cursor per word of every
// finding unit; each list made at its size.
func (p *searchPlan) openLists(ix *Index, gi int, finding []int) ([]int32, []cursor) {
	first := finding[len(finding)-1]
	nPrimed, nLists := 0, 0
	for _, ui := range finding {
		nLists += len(p.units[ui].words[gi])
	}
	for _, tw := range p.units[first].words[gi] {
		nPrimed += len(ix.words[tw.word].posts)
	}
	p.work.Lists += nLists
	p.work.Postings += nPrimed
	primed := make([]int32, 0, nPrimed)
	lists := make([]cursor, 0, nLists)
	for _, ui := range finding {
		u := &p.units[ui]
		for _, tw := range u.words[gi] {
			lw := &ix.words[tw.word]
			if ui == first {
				for _, ps := range lw.posts {
					primed = append(primed, ps.slot)
				}
			}
			lists = append(lists, cursor{posts: lw.posts, term: u.term, bound: p.terms[u.term].clauses[tw.clause].weight * Saturate(float64(lw.maxTF))})
		}
	}
	if len(p.units[first].words[gi]) > 1 { // one word's postings are in order already
		slices.Sort(primed)
		primed = slices.Compact(primed)
	}
	return primed, lists
}

// walk is the top-k search of one graph: its primed nodes, then WAND over
// its lists.
type walk struct {
	p      *searchPlan
	c      *scorer
	top    *searchTop
	order  []int
	exact  int32   // the slot of the node whose id is the query, scored first; -1 for none
	weak   float64 // what the weak terms add to every bound
	primed []int32
	lists  []cursor
}

// scorePrimed scores the primed nodes block by block, the most promising
// block first, so that the threshold rises fast; once a block cannot
// reach it, no later one can, and their nodes never will (the threshold
// only rises).
func (w *walk) scorePrimed(ix *Index) {
	type primedBlock struct {
		from, to int // primed[from:to]
		bound    float64
	}
	var blocks []primedBlock
	for i := 0; i < len(w.primed); {
		j := ix.block(w.primed[i])
		to := i + countBefore(w.primed[i:], ix.blockStart(j+1))
		w.c.blocks.at(j)
		blocks = append(blocks, primedBlock{i, to, w.c.blocks.total})
		i = to
	}
	slices.SortStableFunc(blocks, func(a, b primedBlock) int { return cmp.Compare(b.bound, a.bound) })
	for _, b := range blocks {
		if b.bound*(1+boundSlack) < w.top.threshold() {
			break
		}
		for _, si := range w.primed[b.from:b.to] {
			if si != w.exact {
				w.c.consider(w.top, si, w.order)
			}
		}
	}
}

// run is WAND: the lists, in slot order, move to the next node whose
// lists' bounds reach the threshold, which is scored unless primed.
func (w *walk) run() {
	nextPrimed := 0
	slices.SortFunc(w.lists, func(a, b cursor) int { return int(a.doc() - b.doc()) })
	for len(w.lists) > 0 {
		pivot := w.pivot()
		if pivot < 0 {
			return
		}
		lists := w.lists
		at := lists[pivot].doc()
		moved := 0 // the lists moved are always the first ones
		if next, ok := w.c.blocks.hopeless(at, w.top.threshold()); ok {
			// No node of at's block can reach the threshold: every
			// list skips past it.
			for ; moved < len(lists) && lists[moved].doc() < next; moved++ {
				lists[moved].seek(next)
			}
		} else if lists[0].doc() == at {
			// Every list before the pivot is at its slot: score it.
			// The slots come in ascending order: the primed ones are
			// passed over with a place that only moves forward.
			for nextPrimed < len(w.primed) && w.primed[nextPrimed] < at {
				nextPrimed++
			}
			for moved < len(lists) && lists[moved].doc() == at {
				moved++
			}
			if (nextPrimed == len(w.primed) || w.primed[nextPrimed] != at) && at != w.exact && w.c.mayReach(w.top, at, lists[:moved]) {
				w.c.consider(w.top, at, w.order)
			}
			for i := range moved {
				lists[i].at++
			}
		} else {
			for ; moved < pivot; moved++ {
				lists[moved].seek(at)
			}
		}
		w.p.work.Postings += moved
		w.lists = resort(lists, moved)
	}
}

// pivot returns the first list at which the bounds of the lists up to it
// reach the threshold, or -1: no node before its slot can.
func (w *walk) pivot() int {
	th := w.top.threshold() * (1 - boundSlack)
	acc := 0.0
	for i := range w.lists {
		if acc += w.lists[i].bound; acc+w.weak >= th {
			return i
		}
	}
	return -1
}

// countBefore returns how many of the ascending slots are before si.
func countBefore(slots []int32, si int32) int {
	i, _ := slices.BinarySearch(slots, si)
	return i
}

// blockBounds gives, block by block of a graph's slots, the most a node
// of the block can gain from each term of a plan: the most of the term's
// units, each worked out from its words' most in the block
// (blockBounds.blockMaxTF). A block's bounds are worked out once, when
// first asked about, and kept for the rest of the search: the primed
// nodes, the order of their blocks and the walk all ask again.
// (docs/decisions/0053-search-index-on-first-search-and-block-max.md)
type blockBounds struct {
	p     *searchPlan
	gi    int
	ix    *Index
	order []int
	tf    []int32   // by clause of one term: Σ block maxima of its words
	place [][]int   // by unit, by word: the place of the last look into its postings
	memo  []float64 // by block: its terms' bounds, then their sum (len(p.terms)+1 each)
	known []bool    // by block: whether memo holds it
	block int32     // the block of term and total; -1 before the first
	term  []float64 // by term: the most a node of the block can gain from it
	total float64   // Σ term
}

// blockUnitWords is the most words a unit may have for its block bound to
// be worked out word by word; a unit of more (a short substring held by
// many words) keeps its bound over the graph.
const blockUnitWords = 32

// newBlockBounds returns the bounds of the nblocks blocks of graph gi.
func newBlockBounds(p *searchPlan, gi int, ix *Index, order []int, nblocks int) blockBounds {
	b := blockBounds{
		p: p, gi: gi, ix: ix, order: order, block: -1, place: make([][]int, len(p.units)),
		memo: make([]float64, nblocks*(len(p.terms)+1)), known: make([]bool, nblocks),
	}
	words := 0
	for _, ui := range order {
		words += len(p.units[ui].words[gi])
	}
	places := make([]int, words) // one backing array, as newScorer's
	for _, ui := range order {
		n := len(p.units[ui].words[gi])
		b.place[ui], places = places[:n:n], places[n:]
	}
	n := 0
	for _, pt := range p.terms {
		n = max(n, len(pt.clauses))
	}
	b.tf = make([]int32, n)
	return b
}

// at works out the bounds of block j.
func (b *blockBounds) at(j int32) {
	if b.block == j {
		return
	}
	b.block = j
	nt := len(b.p.terms)
	row := b.memo[int(j)*(nt+1) : int(j+1)*(nt+1)]
	b.term = row[:nt]
	if b.known[j] {
		b.total = row[nt]
		return
	}
	b.known[j] = true
	for _, ui := range b.order {
		u := &b.p.units[ui]
		ws := u.words[b.gi]
		if len(ws) > blockUnitWords {
			b.term[u.term] = max(b.term[u.term], u.bound)
			continue
		}
		clear(b.tf)
		for k, tw := range ws {
			b.tf[tw.clause] += b.blockMaxTF(tw.word, j, &b.place[ui][k])
		}
		v := 0.0
		for cl, tf := range b.tf {
			if tf > 0 {
				v = max(v, b.p.terms[u.term].clauses[cl].weight*Saturate(float64(tf)))
			}
		}
		b.term[u.term] = max(b.term[u.term], min(v, u.bound))
	}
	// A term scores by its best clause, so by one of its units. No
	// exact-id bonus: searchGraph considers that node first.
	b.total = 0
	for _, v := range b.term {
		b.total += v
	}
	row[nt] = b.total
}

// blockMaxTF returns at least the most a node of block j counts word w:
// its block maximum if it has them, else the most of its postings in the
// block (a word without block maxima has few), looked for from the place
// at of the last look (seekFrom): the search asks block after block.
func (b *blockBounds) blockMaxTF(w, j int32, at *int) int32 {
	lw := &b.ix.words[w]
	if bm := b.ix.blocksOf(w); bm != nil {
		if int(j) < len(bm) {
			return blockTF(bm[j], lw)
		}
		return 0
	}
	end := b.ix.blockStart(j + 1)
	m := int32(0)
	for i := seekFrom(lw.posts, at, b.ix.blockStart(j)); i < len(lw.posts) && lw.posts[i].slot < end; i++ {
		b.p.work.Postings++
		m = max(m, lw.posts[i].tf)
	}
	return m
}

// hopeless reports whether no node of the block of slot si can reach
// threshold th, and if so the first slot of the next block.
func (b *blockBounds) hopeless(si int32, th float64) (int32, bool) {
	if th <= 0 {
		return 0, false
	}
	j := b.ix.block(si)
	b.at(j)
	if b.total*(1+boundSlack) < th {
		return b.ix.blockStart(j + 1), true
	}
	return 0, false
}

// resort drops the lists that are done and puts the others back in slot
// order, when only the first moved of them moved, and only forward: the
// rest are still in order, so each moved list goes back to its place by
// stepping right past the lists it overtook. Lists at one slot stay side
// by side, as the scoring step needs.
func resort(lists []cursor, moved int) []cursor {
	for i := moved - 1; i >= 0; i-- {
		c := lists[i]
		if c.at >= len(c.posts) {
			lists = append(lists[:i], lists[i+1:]...)
			continue
		}
		d := c.doc()
		j := i
		for ; j+1 < len(lists) && lists[j+1].doc() < d; j++ {
			lists[j] = lists[j+1]
		}
		lists[j] = c
	}
	return lists
}

// cursor walks one posting list, with the most a node in it can gain
// from its word.
type cursor struct {
	posts []Posting
	at    int
	term  int // the term of its word
	bound float64
}

func (c *cursor) doc() int32 { return c.posts[c.at].slot }

// seek moves the cursor to the first slot at or after si.
func (c *cursor) seek(si int32) {
	seekFrom(c.posts, &c.at, si)
}

// scorer scores the nodes of one graph for searchGraph.
type scorer struct {
	p      *searchPlan
	gi     int
	ix     *Index
	exact  int32     // the slot of the node whose id is the query; -1 for none
	tf     []float64 // termScore's scratch room
	at     [][]int   // by term: termScore's places in its words' postings
	vals   []float64 // by term: its score in the node, once known
	done   []bool
	blocks blockBounds // held in the scorer: one allocation fewer per graph
}

func (p *searchPlan) newScorer(gi int, ix *Index, exact int32) *scorer {
	// One backing array for every term's places and one for the floats:
	// a search makes a scorer per graph, and a slice per term would cost
	// an allocation each.
	words := 0
	for ti := range p.terms {
		words += len(p.terms[ti].words[gi])
	}
	at := make([][]int, len(p.terms))
	places := make([]int, words)
	for ti := range p.terms {
		n := len(p.terms[ti].words[gi])
		at[ti], places = places[:n:n], places[n:]
	}
	nt := len(p.terms)
	floats := make([]float64, nt+p.scratchLen())
	return &scorer{p: p, gi: gi, ix: ix, exact: exact, tf: floats[nt:], at: at, vals: floats[:nt:nt], done: make([]bool, nt)}
}

// mayReach reports whether node slot si, which holds the words of the lists
// at it and no other strong word, may reach top's threshold, before it is
// scored. Each strong term can give it at most its lists' bounds, and its
// bound in si's block. The weak terms' bound over the graph lets the walk
// stop at a node holding one strong word, so a weak term of few words is
// looked up in the node (what consider would do first), and one of many
// words (a common substring) counts its bound in the block; a node that
// holds one strong word and none of the weak ones is passed over unscored.
func (c *scorer) mayReach(top *searchTop, si int32, at []cursor) bool {
	p := c.p
	th := top.threshold()
	if th <= 0 {
		return true
	}
	c.blocks.at(c.blocks.ix.block(si))
	clear(c.vals)
	for _, l := range at {
		c.vals[l.term] += l.bound
	}
	ub := 0.0
	for ti := range p.terms {
		pt := &p.terms[ti]
		switch {
		case !pt.weak:
			ub += min(c.vals[ti], c.blocks.term[ti])
		case len(pt.words[c.gi]) > blockUnitWords:
			ub += c.blocks.term[ti]
		default:
			v, _ := p.termScore(ti, c.gi, c.ix, si, c.tf, c.at[ti])
			ub += v
		}
	}
	return ub*(1+boundSlack) >= th
}

// consider scores node slot si and offers it to top: its terms from the
// unit of the highest bound down, while what the node can still gain may
// reach the threshold. A node that cannot is dropped; one whose every term
// was scored is offered with the terms' scores added in query order, the
// sum every path computes.
func (c *scorer) consider(top *searchTop, si int32, order []int) {
	p := c.p
	p.work.Nodes++
	// The terms' bounds in si's block: at most their bounds over the graph.
	c.blocks.at(c.blocks.ix.block(si))
	bound := c.blocks.term
	clear(c.done)
	th := top.threshold()
	known := 0.0
	rest := c.blocks.total // what the node may still gain: the bounds of the terms not scored yet
	if si == c.exact {
		rest += p.bound
	}
	for oi := len(order) - 1; oi >= 0; oi-- {
		u := &p.units[order[oi]]
		if c.done[u.term] {
			continue
		}
		if (known+rest)*(1+boundSlack) < th {
			return
		}
		v, _ := p.termScore(u.term, c.gi, c.ix, si, c.tf, c.at[u.term])
		c.vals[u.term], c.done[u.term] = v, true
		known += v
		rest -= bound[u.term]
	}
	s, strong := 0.0, !p.weak
	for ti := range p.terms {
		if c.done[ti] {
			s += c.vals[ti]
			strong = strong || c.vals[ti] > 0 && !p.terms[ti].weak
		}
	}
	if !strong {
		return // only weak terms: not a match (docs/decisions/0074-weak-terms-count-only-beside-a-strong-one.md)
	}
	if s = p.withExactID(c.exact, si, s); s*(1+boundSlack) < th {
		return
	}
	top.offer(topHit{s, int32(c.gi), si})
}
