package compaction

import (
	"container/heap"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kg-memory/kg/domain"
)

// Run runs compaction once on g at now
// (docs/design/compaction.md#one-compaction-run) and returns what it did. It is
// Plan followed by applying that plan, so a dry run and a real run
// can never disagree. Each node whose tier changes takes one seq, recorded as
// its TierSeq, and keeps its version; a node archived and then orphaned in the
// same run changes once, straight to orphaned.
//
// A run on a graph within both budgets returns at once: it reads the
// incrementally kept Stats and allocates nothing.
func Run(g *domain.Graph, now domain.Micros, p Policy) Moves {
	return RunListing(g, now, p, -1)
}

// RunListing is Run listing at most list moves in Steps, each with
// its rank and reason, and counting the others in Unlisted; list < 0 lists
// every move. The id lists (Archived, Orphaned, ...) are whole either way.
// A run can move every node of a graph, and a listed move costs about 250
// bytes (its reason, its rank, the move): the compaction run of an import
// of 500,000 nodes listed a million moves, 200 MB held until the answer was
// written (docs/performance.md#import-memory). A move not listed costs 4
// bytes while the run lasts, and its reason is never built.
func RunListing(g *domain.Graph, now domain.Micros, p Policy, list int) Moves {
	m, s := plan(g, now, p, list)
	if s == nil || len(s.stepNode) == 0 { // s.stepNode holds the unlisted moves too
		return m
	}
	// Apply the plan's final tiers. Each node that changes takes one seq,
	// in the order of its first move, which is deterministic; the changes
	// themselves are made in slot order, which walks the index (and the
	// nodes, allocated in about that order) front to back instead of
	// jumping around it. Nothing depends on the order of the changes
	// beyond their seqs: each node changes once, and the counts are sums.
	seqs := make([]uint64, len(s.ids)) // 0: unchanged
	changed := uint64(0)
	for _, i := range s.stepNode {
		if seqs[i] == 0 && s.tier[i] != s.tier0[i] {
			changed++
			seqs[i] = changed
		}
	}
	g.SetTiers(now, s.slot, s.tier, seqs)
	return m
}

// Plan returns exactly what Run(g, now, p) would do to g, with the
// rank and reason of every move, without changing g.
func Plan(g *domain.Graph, now domain.Micros, p Policy) Moves {
	m, _ := plan(g, now, p, -1)
	return m
}

// plan is Plan listing at most list moves (RunListing), with
// the simulation that ends in the planned tiers; nil when the graph is
// within both budgets.
func plan(g *domain.Graph, now domain.Micros, p Policy, list int) (Moves, *sim) {
	return planOver(g, (*domain.Graph).MovableSlots, now, p, list)
}

// planOver is plan, with the simulation reading the nodes in slots(g),
// which must hold every active and archived node.
func planOver(g *domain.Graph, slots func(*domain.Graph) []int32, now domain.Micros, p Policy, list int) (Moves, *sim) {
	st := g.Stats()
	est := st.Estimate(p.EstimateNotes)
	m := Moves{EstimateBefore: est, EstimateAfter: est, OverBudget: est > p.MaxTokens}
	if est <= p.MaxTokens && domain.ArchivedIDTokens*st.Archived <= p.ArchivedBudget() {
		// Within both budgets: pass 1 and 1b do nothing, and pass 2 has
		// nothing to orphan. This is the run after almost every write.
		return m, nil
	}
	s := newSim(g, slots(g), now, p)
	s.list = list
	archived := s.archive(&m)
	if len(archived) > 0 {
		s.resurrect(&m, archived)
	}
	s.orphan(&m)
	m.EstimateAfter = s.est
	m.OverBudget = s.est > p.MaxTokens
	return m, s
}

// sim is a compaction run simulated over a graph without changing it: the
// tier the run has given each node so far, and the estimate those tiers
// imply. A tier change updates the estimate in O(degree), so a whole run
// costs O((N + E) log N), the log for the sorts.
//
// The sim copies the graph's adjacency index once into arrays of node
// indexes (CSR). A run looks at each edge several times (scores twice,
// every move twice, pass 2 once); the arrays keep each node's edges
// together and its ends' tiers in one small array, where the graph's slots
// would cost a cache miss per step.
type sim struct {
	p Policy
	w ScoreWeights // p's score weights, defaults filled in

	// What the run needs of each node, read once: a run visits nodes in
	// rank order, and chasing each *Node again there costs a cache miss.
	ids       []string
	slot      []int32 // the node's end slot in the graph, for applying the plan
	nodes     []*domain.Node
	tier      []domain.Tier
	tier0     []domain.Tier // the tier before the run
	recency   []domain.Micros
	use       []uint64 // u(n): the use count decayed to the run's day
	useDay    []int32  // the day of the node's last count
	eligible  []bool   // past grace (orphaned nodes are excluded by tier)
	cost      []int32  // estimate of the node when active
	moved     []bool   // changed tier in pass 1 or 1b: at most once (docs/design/compaction.md#pass-1b)
	stepNode  []int32  // the node of each kept step of the plan, listed or not, for applying it
	list      int      // the most moves Moves.Steps lists; < 0: all (RunListing)
	archived0 int      // archived nodes before the run
	why       reason   // the buffer reasons are built in
	est       int

	// The edges touching node i are ends[adj[start[i]:start[i+1]]], a
	// self-loop once. Edges between two references are left out: no tier
	// change can show or hide them.
	ends  []simEdge
	start []int32
	adj   []int32
}

// simEdge is an edge as the indexes of its ends; -1 for an end that is not
// a node of the graph.
type simEdge struct{ from, to int32 }

// newSim reads the nodes in slots (in that order) into a sim. slots must
// hold every node the run may move: every active and archived node. An edge
// to a node left out (an orphaned one, which no run moves) is left out too:
// it is never shown and never counts as an edge to an active node, whatever
// the run does.
func newSim(g *domain.Graph, slots []int32, now domain.Micros, p Policy) *sim {
	s, degrees := newSimNodes(g, slots, now, p)
	degree := s.readEdges(g, degrees)
	s.buildAdjacency(degree)
	return s
}

// newSimNodes is a sim of the nodes in slots, without their edges, and the
// sum of their degrees.
func newSimNodes(g *domain.Graph, slots []int32, now domain.Micros, p Policy) (*sim, int) {
	n := len(slots)
	s := &sim{
		p:         p,
		w:         p.Weights(),
		ids:       make([]string, 0, n),
		slot:      slots,
		nodes:     make([]*domain.Node, 0, n),
		tier:      make([]domain.Tier, 0, n),
		tier0:     make([]domain.Tier, 0, n),
		recency:   make([]domain.Micros, 0, n),
		eligible:  make([]bool, 0, n),
		cost:      make([]int32, 0, n),
		moved:     make([]bool, n),
		list:      -1,
		est:       g.Stats().Estimate(p.EstimateNotes),
		archived0: g.Stats().Archived,
	}
	// The use count is read under either scoring: under seed it ranks
	// nothing, but the figures a person is shown include it.
	today := domain.UseDay(now)
	s.use, s.useDay = make([]uint64, 0, n), make([]int32, 0, n)
	degrees := 0
	for _, si := range slots {
		nd := g.SlotNode(si)
		s.ids = append(s.ids, nd.ID)
		s.nodes = append(s.nodes, nd)
		s.tier = append(s.tier, nd.Tier)
		s.tier0 = append(s.tier0, nd.Tier)
		s.recency = append(s.recency, nd.Recency())
		s.use = append(s.use, nd.Use.At(today))
		s.useDay = append(s.useDay, nd.Use.Day)
		s.eligible = append(s.eligible, graceLeft(nd.Created, now, p.Grace) == 0)
		c, withNotes := g.SlotCosts(si)
		if p.EstimateNotes {
			c = withNotes
		}
		s.cost = append(s.cost, domain.NodeBaseTokens+c)
		out, in := g.SlotEdges(si)
		degrees += len(out) + len(in)
	}
	return s, degrees
}

// readEdges reads the edges of the sim's nodes into s.ends (degrees is the
// sum of their degrees) and returns each node's count of edge ends, with
// one spare entry at the end.
func (s *sim) readEdges(g *domain.Graph, degrees int) []int32 {
	n := len(s.slot)
	// Each edge is read from its from end when that is in the sim, else
	// from its to end; edges between two references are never reached.
	ix := newSlotIndex(s.slot, g.SlotCount())
	s.ends = make([]simEdge, 0, degrees)
	cursor := make([]int32, n+1) // degrees first, then fill positions
	for i, si := range s.slot {
		out, in := g.SlotEdges(si)
		for _, a := range out {
			to, ok := ix.of(a.Other)
			if !ok && g.SlotNode(a.Other) != nil {
				continue // to a node left out
			}
			s.ends = append(s.ends, simEdge{int32(i), to})
			cursor[i]++
			if to >= 0 && to != int32(i) {
				cursor[to]++
			}
		}
		for _, a := range in {
			if _, ok := ix.of(a.Other); ok || g.SlotNode(a.Other) != nil {
				continue // read from its from end, or from a node left out
			}
			s.ends = append(s.ends, simEdge{-1, int32(i)})
			cursor[i]++
		}
	}
	return cursor
}

// buildAdjacency builds s.start and s.adj, each node's edges in s.ends,
// from cursor, each node's count of edge ends; cursor is reused.
func (s *sim) buildAdjacency(cursor []int32) {
	n := len(s.slot)
	s.start = make([]int32, n+1)
	for i := range n {
		s.start[i+1] = s.start[i] + cursor[i]
	}
	copy(cursor, s.start)
	s.adj = make([]int32, s.start[n])
	for ei, e := range s.ends {
		if e.from >= 0 {
			s.adj[cursor[e.from]] = int32(ei)
			cursor[e.from]++
		}
		if e.to >= 0 && e.to != e.from {
			s.adj[cursor[e.to]] = int32(ei)
			cursor[e.to]++
		}
	}
}

// slotIndex maps the end slots of a sim's nodes to their indexes: an array
// by slot when the sim holds a good part of the graph, else a map, so that a
// sim of a few hundred nodes in a graph of 100k costs about those nodes.
type slotIndex struct {
	dense  []int32 // by slot: 1 + the node's index, 0 for none
	sparse map[int32]int32
}

func newSlotIndex(slots []int32, nslots int) slotIndex {
	if len(slots)*8 >= nslots {
		dense := make([]int32, nslots)
		for i, si := range slots {
			dense[si] = int32(i) + 1
		}
		return slotIndex{dense: dense}
	}
	sparse := make(map[int32]int32, len(slots))
	for i, si := range slots {
		sparse[si] = int32(i)
	}
	return slotIndex{sparse: sparse}
}

// of returns the index of the node in slot si, or -1 and false.
func (x slotIndex) of(si int32) (int32, bool) {
	if x.dense != nil {
		i := x.dense[si] - 1
		return i, i >= 0
	}
	if i, ok := x.sparse[si]; ok {
		return i, true
	}
	return -1, false
}

// edgesOf returns the indexes in s.ends of the edges touching node i.
func (s *sim) edgesOf(i int32) []int32 { return s.adj[s.start[i]:s.start[i+1]] }

// grow makes room for n more steps.
func (s *sim) grow(m *Moves, n int) {
	listed := n
	if s.list >= 0 {
		listed = min(n, max(s.list-len(m.Steps), 0))
	}
	m.Steps = slices.Grow(m.Steps, listed)
	s.stepNode = slices.Grow(s.stepNode, n)
}

// listed reports whether the next kept move is listed in m.Steps; when it
// is not, it is recorded with unlisted and its reason is not built.
func (s *sim) listed(m *Moves) bool { return s.list < 0 || len(m.Steps) < s.list }

// step records a kept move of node i, listed.
func (s *sim) step(m *Moves, i int32, mv Move) {
	m.Steps = append(m.Steps, mv)
	s.stepNode = append(s.stepNode, i)
}

// unlisted records a kept move of node i that is only counted.
func (s *sim) unlisted(m *Moves, i int32) {
	m.Unlisted++
	s.stepNode = append(s.stepNode, i)
}

// rank is the rank a listed move points at. A full listing points into the
// population, which its moves keep alive anyway; a short one copies it, so
// that a few moves do not keep the whole population alive.
func (s *sim) rank(r *Rank) *Rank {
	if s.list < 0 {
		return r
	}
	c := *r
	return &c
}

// end classifies an edge end under the simulated tiers.
func (s *sim) end(j int32) domain.EndTier {
	if j < 0 {
		return domain.EndRef
	}
	return domain.TierEnd(s.tier[j])
}

// active reports whether j is a node that is active in the simulation.
func (s *sim) active(j int32) bool { return j >= 0 && s.tier[j] == domain.Active }

// move gives node i the tier to and updates the estimate: the node's own
// cost, and the edges it shows or hides. One pass over its edges judges each
// edge under the old and the new tier.
func (s *sim) move(i int32, to domain.Tier) {
	from := s.tier[i]
	if from == to {
		return
	}
	oldT, newT := domain.TierEnd(from), domain.TierEnd(to)
	d := 0
	for _, ei := range s.edgesOf(i) {
		e := s.ends[ei]
		fOld, fNew, tOld, tNew := s.end(e.from), s.end(e.from), s.end(e.to), s.end(e.to)
		if e.from == i {
			fOld, fNew = oldT, newT
		}
		if e.to == i {
			tOld, tNew = oldT, newT
		}
		if domain.EdgeShown(fOld, tOld) {
			d--
		}
		if domain.EdgeShown(fNew, tNew) {
			d++
		}
	}
	s.tier[i] = to
	s.est += domain.EdgeTokens * d
	if from == domain.Active {
		s.est -= int(s.cost[i])
	}
	if to == domain.Active {
		s.est += int(s.cost[i])
	}
}

// member is one node of a scored population.
type member struct {
	Rank
	i int32
}

// population scores the eligible nodes whose simulated tier is one of
// tiers, by the policy's scoring, and returns them in rank order
// (rankOrder). The sort moves 24-byte keys, not whole ranks.
func (s *sim) population(tiers ...domain.Tier) []member {
	idx := make([]int32, 0, len(s.tier))
	for i, t := range s.tier {
		if t == domain.Orphaned || !s.eligible[i] || !slices.Contains(tiers, t) {
			continue
		}
		idx = append(idx, int32(i))
	}
	if s.p.Scoring == ScoringUse {
		return s.usePopulation(idx)
	}
	return s.seedPopulation(idx)
}

// usePopulation scores the nodes idx by ScoringUse: score = p_use, the
// percentile of the node's use count decayed to the run's day
// (docs/design/compaction.md#score).
func (s *sim) usePopulation(idx []int32) []member {
	n := len(idx)
	rec := make([]domain.Micros, n)
	use := make([]uint64, n)
	for k, i := range idx {
		rec[k], use[k] = s.recency[i], s.use[i]
	}
	pu := percentiles(use)
	keys := make([]rankKey, n)
	for k := range keys {
		keys[k] = rankKey{score: pu[k], recency: rec[k], k: int32(k)}
	}
	slices.SortFunc(keys, rankOrder{func(k int32) string { return s.ids[idx[k]] }}.cmp)
	pop := make([]member, n)
	for j, key := range keys {
		k, i := key.k, idx[key.k]
		pop[j] = member{i: i, Rank: Rank{
			ID:       s.ids[i],
			Recency:  rec[k],
			Use:      use[k],
			UseDay:   s.useDay[i],
			PUse:     pu[k],
			Score:    key.score,
			Eligible: true,
		}}
	}
	return pop
}

// seedPopulation scores the nodes idx by ScoringSeed, with connectedness
// against the simulated active set: score = 0.33 × p_recency +
// 0.66 × p_connectedness (docs/design/compaction.md#score).
func (s *sim) seedPopulation(idx []int32) []member {
	n := len(idx)
	rec := make([]domain.Micros, n)
	con := make([]int, n)
	for k, i := range idx {
		rec[k], con[k] = s.recency[i], s.connectedness(i)
	}
	pr := percentiles(rec)
	pc := percentiles(con)
	keys := make([]rankKey, n)
	for k := range keys {
		keys[k] = rankKey{score: combine(s.w, pr[k], pc[k]), recency: rec[k], k: int32(k)}
	}
	slices.SortFunc(keys, rankOrder{func(k int32) string { return s.ids[idx[k]] }}.cmp)
	pop := make([]member, n)
	for j, key := range keys {
		k, i := key.k, idx[key.k]
		pop[j] = member{i: i, Rank: Rank{
			ID:             s.ids[i],
			Recency:        rec[k],
			Connectedness:  con[k],
			PRecency:       pr[k],
			PConnectedness: pc[k],
			Use:            s.use[i],
			UseDay:         s.useDay[i],
			Score:          key.score,
			Eligible:       true,
			Scoring:        ScoringSeed,
		}}
	}
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
	pop := s.population(domain.Active)
	// Decide first, then write the moves into slices of the exact size: a
	// run can archive nearly every node, and growing the moves by doubling
	// allocated several times their size.
	ests := make([]int, 0, len(pop)) // the estimate before each move
	for k := range pop {
		if s.est <= target {
			break
		}
		ests = append(ests, s.est)
		s.move(pop[k].i, domain.Archived)
		s.moved[pop[k].i] = true
	}
	archived := make([]int32, len(ests))
	m.Archived = slices.Grow(m.Archived, len(ests))
	// Room for pass 2 too, as it would be without pass 1b: growing the
	// steps there would copy every step made so far.
	keep := max(s.p.ArchivedBudget(), 0) / domain.ArchivedIDTokens
	s.grow(m, len(ests)+max(s.archived0+len(ests)-keep, 0))
	for k, est := range ests {
		r := &pop[k]
		archived[k] = r.i
		m.Archived = append(m.Archived, r.ID)
		if !s.listed(m) {
			s.unlisted(m, r.i)
			continue
		}
		s.step(m, r.i, Move{ID: r.ID, From: domain.Active, To: domain.Archived, Pass: PassArchive, Rank: s.rank(&r.Rank),
			Reason: s.why.str("rank ").num(k+1).str("/").num(len(pop)).str(", score ").score(r.Score).use(s.p, &r.Rank).
				str("; estimate ").num(est).str(" > target ").num(target).
				str(" (run started at ").num(start).str(" > max ").num(limit).str(")").done()})
	}
	return archived
}

// restorable reports whether some node could be restored by pass 1b: an
// eligible node archived before this run. Without one, scoring the pass's
// population would be wasted.
func (s *sim) restorable() bool {
	for i, t := range s.tier {
		if t == domain.Archived && s.eligible[i] && !s.moved[i] {
			return true
		}
	}
	return false
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
// clearly better back in for nodes archived in it, never leaving the estimate
// above the target (docs/design/compaction.md#pass-1b). archived are the nodes
// pass 1 archived.
func (s *sim) resurrect(m *Moves, archived []int32) {
	if !s.restorable() {
		return // no p: the pass stops before it starts, whatever the scores
	}
	target := s.p.Target()
	pop := s.population(domain.Active, domain.Archived) // scored once for the whole pass
	pos := make([]int32, len(s.ids))                    // node → its position in pop
	for k := range pop {
		pos[pop[k].i] = int32(k)
	}

	// j candidates: archived in this run, not paired yet.
	js := make(posHeap, 0, len(archived))
	for _, i := range archived {
		js = append(js, pos[i])
	}
	heap.Init(&js)
	ps, extras := s.resurrectCandidates(pop)

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
		s.move(p.i, domain.Active)
		swapped := s.est
		steps, added := s.archiveForSwap(m, p, extras, &next, pos, len(pop))
		if s.est > target {
			// The swap cannot fit: put everything back and stop.
			for _, i := range slices.Backward(added) {
				s.move(i, domain.Active)
			}
			s.move(p.i, domain.Archived)
			return
		}
		s.moved[p.i] = true
		m.Restored = append(m.Restored, p.ID)
		if s.listed(m) {
			s.step(m, p.i, Move{ID: p.ID, From: domain.Archived, To: domain.Active, Pass: PassResurrect, Rank: s.rank(&p.Rank),
				Reason: s.why.str("score ").score(p.Score).use(s.p, &p.Rank).str(" beats ").score(j.Score).str(" of ").str(j.ID).
					str(" (archived now) by ").score(diff).str(" >= margin ").score(ResurrectionMargin).
					str("; estimate ").num(before).str(" -> ").num(s.est).
					str(" (").num(swapped).str(" with it alone), target ").num(target).done()})
		} else {
			s.unlisted(m, p.i)
		}
		for k, i := range added {
			s.moved[i] = true
			m.Archived = append(m.Archived, s.ids[i])
			if k < len(steps) && s.listed(m) {
				s.step(m, i, steps[k])
			} else {
				s.unlisted(m, i)
			}
			heap.Push(&js, pos[i])
		}
	}
}

// resurrectCandidates are pass 1b's p candidates, the nodes archived before
// this run (so not moved), best first, and the extras that may be archived
// to make room, the nodes active since before the run, in rank order.
func (s *sim) resurrectCandidates(pop []member) (ps, extras []*member) {
	for k := range pop {
		mb := &pop[k]
		switch {
		case s.tier[mb.i] == domain.Archived && !s.moved[mb.i]:
			ps = append(ps, mb)
		case s.tier[mb.i] == domain.Active:
			extras = append(extras, mb)
		}
	}
	slices.SortFunc(ps, func(a, b *member) int { return cmpRestore(&a.Rank, &b.Rank) })
	return ps, extras
}

// archiveForSwap archives extras from *next on while the estimate is over
// the target after restoring p, and returns the nodes it archived and, when
// m lists steps, their moves. pos is each node's position in the
// population of popLen.
func (s *sim) archiveForSwap(m *Moves, p *member, extras []*member, next *int, pos []int32, popLen int) (steps []Move, added []int32) {
	target := s.p.Target()
	for s.est > target && *next < len(extras) {
		x := extras[*next]
		*next++
		if s.tier[x.i] != domain.Active || s.moved[x.i] {
			continue
		}
		if s.listed(m) { // the same for every extra of this swap: m.Steps does not change here
			reason := s.why.str("rank ").num(int(pos[x.i])+1).str("/").num(popLen).str(", score ").score(x.Score).use(s.p, &x.Rank).
				str("; estimate ").num(s.est).str(" > target ").num(target).str(" after restoring ").str(p.ID).done()
			steps = append(steps, Move{ID: x.ID, From: domain.Active, To: domain.Archived, Pass: PassArchiveForSwap, Rank: s.rank(&x.Rank), Reason: reason})
		}
		s.move(x.i, domain.Archived)
		added = append(added, x.i)
	}
	return steps, added
}

// orphan is pass 2: while the archived ids cost more than the archived
// budget, orphan the archived node with the fewest edges to active nodes
// (ties: recency ascending, then id ascending). Orphaning an archived node
// does not change the active set, so those counts hold for the whole pass
// and one sort gives the order.
func (s *sim) orphan(m *Moves) {
	budget := s.p.ArchivedBudget()
	keep := max(budget, 0) / domain.ArchivedIDTokens // 5 × |A| ≤ budget ⇔ |A| ≤ ⌊budget/5⌋
	type cand struct {
		i       int32
		edges   int
		recency domain.Micros
	}
	n := 0
	for _, t := range s.tier {
		if t == domain.Archived {
			n++
		}
	}
	if n <= keep {
		return
	}
	as := make([]cand, 0, n)
	for i, t := range s.tier {
		if t == domain.Archived {
			as = append(as, cand{i: int32(i)})
		}
	}
	m.Orphaned = slices.Grow(m.Orphaned, n-keep)
	s.grow(m, n-keep)
	for k := range as {
		c := &as[k]
		for _, ei := range s.edgesOf(c.i) {
			e := s.ends[ei]
			other := e.to
			if other == c.i {
				other = e.from // also for a self-loop, which is not active
			}
			if s.active(other) {
				c.edges++
			}
		}
		c.recency = s.recency[c.i]
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
		return strings.Compare(s.ids[a.i], s.ids[b.i])
	})
	left := len(as)
	for _, c := range as[:len(as)-keep] {
		id := s.ids[c.i]
		if s.listed(m) {
			reason := s.why.num(c.edges).str(" edges to active nodes; ").num(left).str(" archived ids x ").num(domain.ArchivedIDTokens).
				str(" = ").num(domain.ArchivedIDTokens * left).str(" tokens > archived budget ").num(budget).done()
			s.step(m, c.i, Move{ID: id, From: domain.Archived, To: domain.Orphaned, Pass: PassOrphan, Reason: reason})
		} else {
			s.unlisted(m, c.i)
		}
		s.move(c.i, domain.Orphaned)
		left--
		m.Orphaned = append(m.Orphaned, id)
	}
}

// reason builds the one-line reason of a move from strings, ints and
// scores (four decimals, as strconv's 'f' format with precision 4). A run
// can make a move per node, so it appends straight into one reused buffer:
// one allocation per line, for the string.
type reason struct{ b []byte }

func (r *reason) str(s string) *reason { r.b = append(r.b, s...); return r }

func (r *reason) num(n int) *reason { r.b = strconv.AppendInt(r.b, int64(n), 10); return r }

func (r *reason) score(v float64) *reason { r.b = appendFixed4(r.b, v); return r }

// use says, under ScoringUse, what a score is the percentile of: " = p_use
// of 1.50 sessions", the node's use count at the run's day in sessions,
// truncated to two decimals. Under ScoringSeed it adds nothing, so the
// reasons stay those of before the use count.
func (r *reason) use(p Policy, rk *Rank) *reason {
	if p.Scoring != ScoringUse {
		return r
	}
	hundredths := rk.Use * 100 / domain.UseUnit // Use ≤ 2^48: no overflow
	r.b = append(r.b, " = p_use of "...)
	r.b = strconv.AppendUint(r.b, hundredths/100, 10)
	r.b = append(r.b, '.', byte('0'+hundredths%100/10), byte('0'+hundredths%10))
	r.b = append(r.b, " sessions"...)
	return r
}

// done returns the line and empties the buffer for the next one.
func (r *reason) done() string {
	s := string(r.b)
	r.b = r.b[:0]
	return s
}

// appendFixed4 appends v as strconv.AppendFloat(b, v, 'f', 4, 64) does, but
// without strconv's multiprecision path for a fixed precision: for a
// non-negative v below 1024, v×10⁴ is computed with an error below 10⁻⁸,
// so unless its fraction is within 10⁻⁶ of one half, rounding it to an
// integer gives the correctly rounded four-decimal value. Everything else
// (halfway cases, negatives, -0, NaN, large values) goes to strconv.
func appendFixed4(b []byte, v float64) []byte {
	if v >= 0 && v < 1024 && !math.Signbit(v) {
		x := v * 10000
		q := math.Floor(x)
		if f := x - q; f < 0.5-1e-6 || f > 0.5+1e-6 {
			u := uint64(q)
			if f > 0.5 {
				u++
			}
			b = strconv.AppendUint(b, u/10000, 10)
			r := u % 10000
			return append(b, '.', byte('0'+r/1000), byte('0'+r/100%10), byte('0'+r/10%10), byte('0'+r%10))
		}
	}
	return strconv.AppendFloat(b, v, 'f', 4, 64)
}
