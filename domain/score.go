package domain

import (
	"cmp"
	"slices"
	"strings"
)

// Connectedness weights in integer hundredths: the seed's 0.66 × in +
// 0.33 × out, scaled so that equal values tie exactly (compaction.md).
const (
	inWeight  = 66
	outWeight = 33
)

// Score weights (compaction.md). They are applied as
// float64(0.33*pr) + float64(0.66*pc): the explicit conversions forbid the
// compiler to fuse the multiply and the add, which would change the last bit
// of a score on some platforms and with it a tie.
const (
	recencyWeight       = 0.33
	connectednessWeight = 0.66
)

// combineScore is the score of a node from its two percentiles.
func combineScore(pr, pc float64) float64 {
	return float64(recencyWeight*pr) + float64(connectednessWeight*pc)
}

// graceLeft returns how long a node created at created still has before
// it may be archived at now; 0 when past grace. A node with no
// created time counts as old.
func graceLeft(created, now, grace Micros) Micros {
	if created == 0 {
		return 0
	}
	if age := now - created; age < grace {
		return grace - age
	}
	return 0
}

// percentiles returns the tie-aware percentile of each value among vals:
// p = (less + (equal-1)/2) / (N-1), with 0.5 for a population of one. Equal
// values get equal percentiles whatever their order in vals. It sorts a copy
// of the positions, so it costs O(N log N).
func percentiles[T cmp.Ordered](vals []T) []float64 {
	n := len(vals)
	ps := make([]float64, n)
	if n == 1 {
		ps[0] = 0.5
	}
	if n <= 1 {
		return ps
	}
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(vals[a], vals[b]) })
	denom := float64(n - 1)
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n && vals[order[hi]] == vals[order[lo]] {
			hi++
		}
		// less = lo values below, equal = hi-lo values in the group.
		// The numerator is formed first, then divided, as the spec says.
		p := (float64(lo) + float64(hi-lo-1)/2) / denom
		for _, i := range order[lo:hi] {
			ps[i] = p
		}
		lo = hi
	}
	return ps
}

// cmpRank is the rank order of compaction.md, lowest (first archived)
// first: score ascending, then recency ascending, then id ascending.
func cmpRank(a, b *Rank) int {
	if c := cmp.Compare(a.Score, b.Score); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Recency, b.Recency); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// cmpRestore is the order in which pass 1b picks nodes to restore: highest
// score first, ties by higher recency, then lower id. It is not the reverse
// of the rank order, whose last tie-break is the higher id.
func cmpRestore(a, b *Rank) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Recency, a.Recency); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// scorePopulation fills the percentiles and scores of the n ranks that
// rank(k) returns, whose ID, Recency and Connectedness must already be set:
// the population is exactly those ranks.
func scorePopulation(n int, rank func(k int) *Rank) {
	rec := make([]Micros, n)
	con := make([]int, n)
	for k := range n {
		r := rank(k)
		rec[k], con[k] = r.Recency, r.Connectedness
	}
	pr := percentiles(rec)
	pc := percentiles(con)
	for k := range n {
		r := rank(k)
		r.PRecency, r.PConnectedness = pr[k], pc[k]
		r.Score = combineScore(pr[k], pc[k])
	}
}

// connectedness is 66 × in + 33 × out for node i of the simulation, where
// in counts the edges x → i whose x is an active node and out the edges
// i → y whose y is an active node (edges to references, to other tiers and
// across levels count 0). A self-loop of an active node counts both ways.
// It costs O(degree).
func (s *sim) connectedness(i int32) int {
	c := 0
	for _, ei := range s.edgesOf(i) {
		e := s.ends[ei]
		if e.to == i && s.active(e.from) {
			c += inWeight
		}
		if e.from == i && s.active(e.to) {
			c += outWeight
		}
	}
	return c
}

// Ranks explains where every node of g stands in compaction at now: the
// figures a person needs to see why pass 1 would archive one node before
// another. The population of the percentiles is the one pass 1 uses, the
// active eligible nodes; only their entries carry percentiles and a score.
// Every other node (active in grace, archived, orphaned) has an entry with
// its recency, connectedness, eligibility and, while in grace, the time left.
func Ranks(g *Graph, now Micros, p Policy) map[string]Rank {
	s := newSim(g, now, p)
	out := make(map[string]Rank, len(s.ids))
	var pop []Rank
	for i, n := range s.nodes {
		r := Rank{
			ID:            s.ids[i],
			Recency:       n.Recency(),
			Connectedness: s.connectedness(int32(i)),
			GraceLeft:     graceLeft(n.Created, now, p.Grace),
		}
		r.Eligible = n.Tier != Orphaned && r.GraceLeft == 0
		if r.Eligible && n.Tier == Active {
			pop = append(pop, r)
			continue
		}
		out[r.ID] = r
	}
	scorePopulation(len(pop), func(k int) *Rank { return &pop[k] })
	for _, r := range pop {
		out[r.ID] = r
	}
	return out
}

// RankOrder returns the ids of ranks that carry a score (the population of
// Ranks) in rank order, the order in which pass 1 would archive them.
func RankOrder(ranks map[string]Rank, g *Graph) []string {
	pop := make([]*Rank, 0, len(ranks))
	for id, r := range ranks {
		if n, ok := g.node(id); ok && n.Tier == Active && r.Eligible {
			pop = append(pop, &r)
		}
	}
	slices.SortFunc(pop, cmpRank)
	ids := make([]string, len(pop))
	for i, r := range pop {
		ids[i] = r.ID
	}
	return ids
}
