package domain

import (
	"container/heap"
	"fmt"
	"slices"
)

// The passes a Move names (Move.Pass).
const (
	PassArchive        = "archive"          // pass 1: over max, archive in rank order down to the target
	PassResurrect      = "resurrect"        // pass 1b: an older archived node swapped back in
	PassArchiveForSwap = "archive-for-swap" // pass 1b: archived to make room for a resurrected node
	PassOrphan         = "orphan"           // pass 2: archived ids over the archived budget
	PassPrune          = "prune"            // maintenance: orphaned longer than the orphan grace
)

// Compact runs compaction once on g at now (compaction.md, One compaction
// run) and returns what it did. It is PlanCompaction followed by applying
// that plan, so a dry run and a real run can never disagree. Each node whose
// tier changes takes one seq, recorded as its TierSeq, and keeps its version;
// a node archived and then orphaned in the same run changes once, straight
// to orphaned.
//
// A run on a graph within both budgets returns at once: it reads the
// incrementally kept Stats and allocates nothing.
func (g *Graph) Compact(now Micros, p Policy) Moves {
	m := PlanCompaction(g, now, p)
	if len(m.Steps) == 0 {
		return m
	}
	final := make(map[string]Tier, len(m.Steps))
	for _, st := range m.Steps {
		final[st.ID] = st.To
	}
	// Apply in the order of each node's first move, which is deterministic,
	// so the seqs handed out are too.
	for _, st := range m.Steps {
		to, todo := final[st.ID]
		if !todo {
			continue
		}
		delete(final, st.ID)
		if g.nodes[st.ID].Tier != to {
			g.setTier(st.ID, to, now)
		}
	}
	return m
}

// PlanCompaction returns exactly what Compact(now, p) would do to g, with the
// rank and reason of every move, without changing g.
func PlanCompaction(g *Graph, now Micros, p Policy) Moves {
	st := g.Stats()
	est := st.Estimate(p.EstimateNotes)
	m := Moves{EstimateBefore: est, EstimateAfter: est, OverBudget: est > p.MaxTokens}
	if est <= p.MaxTokens && ArchivedIDTokens*st.Archived <= p.ArchivedBudget() {
		// Within both budgets: pass 1 and 1b do nothing, and pass 2 has
		// nothing to orphan. This is the run after almost every write.
		return m
	}
	s := newSim(g, now, p)
	archived := s.archive(&m)
	if len(archived) > 0 {
		s.resurrect(&m, archived)
	}
	s.orphan(&m)
	m.EstimateAfter = s.est
	m.OverBudget = s.est > p.MaxTokens
	return m
}

// sim is a compaction run simulated over a graph without changing it: the
// tier the run has given each node so far, and the estimate those tiers
// imply. A tier change updates the estimate from the adjacency index in
// O(degree), so a whole run costs O((N + E) log N), the log for the sorts.
type sim struct {
	g   *Graph
	now Micros
	p   Policy

	ids   []string
	nodes []*Node
	idx   map[string]int32
	tier  []Tier
	moved []bool // changed tier in pass 1 or 1b: at most once (compaction.md)
	est   int
}

func newSim(g *Graph, now Micros, p Policy) *sim {
	n := len(g.nodes)
	s := &sim{
		g: g, now: now, p: p,
		ids:   make([]string, 0, n),
		nodes: make([]*Node, 0, n),
		idx:   make(map[string]int32, n),
		tier:  make([]Tier, 0, n),
		moved: make([]bool, n),
		est:   g.Stats().Estimate(p.EstimateNotes),
	}
	for id, nd := range g.nodes {
		s.idx[id] = int32(len(s.ids))
		s.ids = append(s.ids, id)
		s.nodes = append(s.nodes, nd)
		s.tier = append(s.tier, nd.Tier)
	}
	return s
}

// end classifies an edge end under the simulated tiers.
func (s *sim) end(e string) endTier {
	i, ok := s.idx[e]
	if !ok {
		return endRef
	}
	switch s.tier[i] {
	case Active:
		return endActive
	case Archived:
		return endArchived
	}
	return endOrphaned
}

// active reports whether e names a node that is active in the simulation.
func (s *sim) active(e string) bool {
	i, ok := s.idx[e]
	return ok && s.tier[i] == Active
}

// nodeCost is what an active node adds to the estimate.
func (s *sim) nodeCost(i int32) int {
	gc, nc := nodeCosts(s.nodes[i])
	if s.p.EstimateNotes {
		return NodeBaseTokens + nc
	}
	return NodeBaseTokens + gc
}

// shownAround counts the shown edges touching id, a self-loop once.
func (s *sim) shownAround(id string) int {
	c := 0
	for k := range s.g.out[id] {
		if edgeShown(s.end(k.From), s.end(k.To)) {
			c++
		}
	}
	for k := range s.g.in[id] {
		if k.From != id && edgeShown(s.end(k.From), s.end(k.To)) {
			c++
		}
	}
	return c
}

// move gives node i the tier to and updates the estimate: the node's own
// cost, and the edges it shows or hides.
func (s *sim) move(i int32, to Tier) {
	from := s.tier[i]
	if from == to {
		return
	}
	id := s.ids[i]
	before := s.shownAround(id)
	s.tier[i] = to
	s.est += EdgeTokens * (s.shownAround(id) - before)
	if from == Active {
		s.est -= s.nodeCost(i)
	}
	if to == Active {
		s.est += s.nodeCost(i)
	}
}

// member is one node of a scored population.
type member struct {
	Rank
	i int32
}

// population scores the eligible nodes whose simulated tier is one of
// tiers, with connectedness against the simulated active set, and returns
// them in rank order.
func (s *sim) population(tiers ...Tier) []member {
	var pop []member
	for i, nd := range s.nodes {
		t := s.tier[i]
		if t == Orphaned || !slices.Contains(tiers, t) || graceLeft(nd.Created, s.now, s.p.Grace) != 0 {
			continue
		}
		pop = append(pop, member{i: int32(i), Rank: Rank{
			ID:            s.ids[i],
			Recency:       nd.Recency(),
			Connectedness: s.g.connectedness(s.ids[i], s.active),
			Eligible:      true,
		}})
	}
	ranks := make([]Rank, len(pop))
	for k := range pop {
		ranks[k] = pop[k].Rank
	}
	scorePopulation(ranks)
	for k := range pop {
		pop[k].Rank = ranks[k]
	}
	slices.SortFunc(pop, func(a, b member) int { return cmpRank(&a.Rank, &b.Rank) })
	return pop
}

// archive is pass 1: over max, archive the active eligible nodes in rank
// order until the estimate is at or below the target. It returns the nodes
// it archived.
func (s *sim) archive(m *Moves) []int32 {
	limit, target := s.p.MaxTokens, s.p.Target()
	if s.est <= limit {
		return nil
	}
	start := s.est
	pop := s.population(Active)
	var archived []int32
	for k := range pop {
		if s.est <= target {
			break
		}
		r := &pop[k]
		reason := fmt.Sprintf("rank %d/%d, score %.4f; estimate %d > target %d (run started at %d > max %d)",
			k+1, len(pop), r.Score, s.est, target, start, limit)
		s.move(r.i, Archived)
		s.moved[r.i] = true
		archived = append(archived, r.i)
		m.Archived = append(m.Archived, r.ID)
		m.Steps = append(m.Steps, Move{ID: r.ID, From: Active, To: Archived, Pass: PassArchive, Rank: &r.Rank, Reason: reason})
	}
	return archived
}

// posHeap is a min-heap of positions in a population in rank order: its
// top is the node that comes first in rank order.
type posHeap []int32

func (h posHeap) Len() int           { return len(h) }
func (h posHeap) Less(a, b int) bool { return h[a] < h[b] }
func (h posHeap) Swap(a, b int)      { h[a], h[b] = h[b], h[a] }
func (h *posHeap) Push(x any)        { *h = append(*h, x.(int32)) }
func (h *posHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// resurrect is pass 1b: swap nodes archived before this run that now score
// clearly better back in for nodes archived in it, never leaving the
// estimate above the target (compaction.md, Resurrect). archived are the
// nodes pass 1 archived.
func (s *sim) resurrect(m *Moves, archived []int32) {
	target := s.p.Target()
	pop := s.population(Active, Archived) // scored once for the whole pass
	pos := make([]int32, len(s.ids))      // node → its position in pop
	for k := range pop {
		pos[pop[k].i] = int32(k)
	}

	// j candidates: archived in this run, not paired yet.
	js := make(posHeap, 0, len(archived))
	for _, i := range archived {
		js = append(js, pos[i])
	}
	heap.Init(&js)
	// p candidates: archived before this run (so not moved), best first.
	var ps []*member
	// Further archiving: nodes active since before the run, in rank order.
	var extras []*member
	for k := range pop {
		mb := &pop[k]
		switch {
		case s.tier[mb.i] == Archived && !s.moved[mb.i]:
			ps = append(ps, mb)
		case s.tier[mb.i] == Active:
			extras = append(extras, mb)
		}
	}
	slices.SortFunc(ps, func(a, b *member) int { return cmpRestore(&a.Rank, &b.Rank) })

	next := 0 // the next extra to try; those before it are archived for good
	for _, p := range ps {
		if js.Len() == 0 {
			return
		}
		j := &pop[js[0]]
		diff := p.Score - j.Score
		if diff < ResurrectionMargin {
			return
		}
		heap.Pop(&js) // j stays archived, paired
		before := s.est
		s.move(p.i, Active)
		swapped := s.est
		var steps []Move
		var added []int32
		for s.est > target && next < len(extras) {
			x := extras[next]
			next++
			if s.tier[x.i] != Active || s.moved[x.i] {
				continue
			}
			reason := fmt.Sprintf("rank %d/%d, score %.4f; estimate %d > target %d after restoring %s",
				pos[x.i]+1, len(pop), x.Score, s.est, target, p.ID)
			s.move(x.i, Archived)
			added = append(added, x.i)
			steps = append(steps, Move{ID: x.ID, From: Active, To: Archived, Pass: PassArchiveForSwap, Rank: &x.Rank, Reason: reason})
		}
		if s.est > target {
			// The swap cannot fit: put everything back and stop.
			for _, i := range slices.Backward(added) {
				s.move(i, Active)
			}
			s.move(p.i, Archived)
			return
		}
		s.moved[p.i] = true
		m.Restored = append(m.Restored, p.ID)
		m.Steps = append(m.Steps, Move{ID: p.ID, From: Archived, To: Active, Pass: PassResurrect, Rank: &p.Rank,
			Reason: fmt.Sprintf("score %.4f beats %.4f of %s (archived now) by %.4f >= margin %.2f; estimate %d -> %d (%d with it alone), target %d",
				p.Score, j.Score, j.ID, diff, ResurrectionMargin, before, s.est, swapped, target)})
		for _, i := range added {
			s.moved[i] = true
			m.Archived = append(m.Archived, s.ids[i])
			heap.Push(&js, pos[i])
		}
		m.Steps = append(m.Steps, steps...)
	}
}

// orphan is pass 2: while the archived ids cost more than the archived
// budget, orphan the archived node with the fewest edges to active nodes
// (ties: recency ascending, then id ascending). Orphaning an archived node
// does not change the active set, so those counts hold for the whole pass
// and one sort gives the order.
func (s *sim) orphan(m *Moves) {
	budget := s.p.ArchivedBudget()
	keep := max(budget, 0) / ArchivedIDTokens // 5 × |A| ≤ budget ⇔ |A| ≤ ⌊budget/5⌋
	type cand struct {
		i       int32
		edges   int
		recency Micros
	}
	var as []cand
	for i, t := range s.tier {
		if t == Archived {
			as = append(as, cand{i: int32(i)})
		}
	}
	if len(as) <= keep {
		return
	}
	for k := range as {
		c := &as[k]
		id := s.ids[c.i]
		for e := range s.g.out[id] {
			if s.active(e.To) {
				c.edges++
			}
		}
		for e := range s.g.in[id] {
			if e.From != id && s.active(e.From) {
				c.edges++
			}
		}
		c.recency = s.nodes[c.i].Recency()
	}
	slices.SortFunc(as, func(a, b cand) int {
		switch {
		case a.edges != b.edges:
			return a.edges - b.edges
		case a.recency != b.recency:
			if a.recency < b.recency {
				return -1
			}
			return 1
		}
		return cmpString(s.ids[a.i], s.ids[b.i])
	})
	left := len(as)
	for _, c := range as[:len(as)-keep] {
		id := s.ids[c.i]
		reason := fmt.Sprintf("%d edges to active nodes; %d archived ids x %d = %d tokens > archived budget %d",
			c.edges, left, ArchivedIDTokens, ArchivedIDTokens*left, budget)
		s.move(c.i, Orphaned)
		left--
		m.Orphaned = append(m.Orphaned, id)
		m.Steps = append(m.Steps, Move{ID: id, From: Archived, To: Orphaned, Pass: PassOrphan, Reason: reason})
	}
}
