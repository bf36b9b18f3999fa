package compaction

import (
	"cmp"
	"slices"
	"strings"

	"github.com/kg-memory/kg/domain"
)

// combine is the score of a node from its two percentiles, applied as
// float64(Recency*pr) + float64(Connectedness*pc): the explicit conversions
// forbid the compiler to fuse the multiply and the add, which would change
// the last bit of a score on some platforms and with it a tie.
func combine(w ScoreWeights, pr, pc float64) float64 {
	return float64(w.Recency*pr) + float64(w.Connectedness*pc)
}

// graceLeft returns how long a node created at created still has before
// it may be archived at now; 0 when past grace. A node with no
// created time counts as old.
func graceLeft(created, now, grace domain.Micros) domain.Micros {
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

// rankKey is where a node stands in the rank order: its score and its
// recency, and k, which names the node to the rank order's id function.
type rankKey struct {
	score   float64
	recency domain.Micros
	k       int32
}

// rankOrder is the rank order of docs/design/compaction.md#scores, lowest
// (first archived) first: score ascending, then recency ascending, then id
// ascending (byte order), where id(k) is the id of the node key k names. It is the one
// definition of that order: pass 1, pass 1b and Ranks all sort their
// population with its cmp.
type rankOrder struct{ id func(k int32) string }

// cmp compares two keys in rank order. It is the comparator of the sorts
// itself, so a sort pays one call per comparison, and the id is read only
// when score and recency tie, so a sort of a large population seldom
// leaves its small keys. (Scores are never NaN: percentiles and weights
// are finite.)
func (o rankOrder) cmp(a, b rankKey) int {
	switch {
	case a.score < b.score:
		return -1
	case a.score > b.score:
		return 1
	case a.recency < b.recency:
		return -1
	case a.recency > b.recency:
		return 1
	}
	return strings.Compare(o.id(a.k), o.id(b.k))
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

// connectedness is In × in + Out × out for node i of the simulation
// (weights of the policy's ScoreWeights), where in counts the edges x → i
// whose x is an active node and out the edges i → y whose y is an active
// node (edges to references, to other tiers and across levels count 0). A
// self-loop of an active node counts both ways. It costs O(degree).
func (s *sim) connectedness(i int32) int {
	c := 0
	for _, ei := range s.edgesOf(i) {
		e := s.ends[ei]
		if e.to == i && s.active(e.from) {
			c += s.w.In
		}
		if e.from == i && s.active(e.to) {
			c += s.w.Out
		}
	}
	return c
}

// Ranks explains where every node of g stands in compaction at now: the
// figures a person needs to see why pass 1 would archive one node before
// another. ranked is the population pass 1 uses, the active eligible nodes,
// scored by the same code and in the same rank order, so its first entry is
// the node a run would archive first; only these carry percentiles and a
// score. others holds every other node (active in grace, archived,
// orphaned), by id, with its recency, connectedness, eligibility and, while
// in grace, the time left.
//
// Every node also carries its use count at now and the day it was last
// counted, and under ScoringUse the ranked ones their connectedness too, for
// a person to compare, though it does not enter their score.
func Ranks(g *domain.Graph, now domain.Micros, p Policy) (ranked, others []Rank) {
	s := newSim(g, g.NodeSlots(), now, p)
	pop := s.population(domain.Active)
	ranked = make([]Rank, len(pop))
	inPop := make([]bool, len(s.ids))
	for k, m := range pop {
		ranked[k] = m.Rank
		ranked[k].Connectedness = s.connectedness(m.i)
		inPop[m.i] = true
	}
	others = make([]Rank, 0, len(s.ids)-len(pop))
	for i, n := range s.nodes {
		if inPop[i] {
			continue
		}
		r := Rank{
			Scoring:       s.p.Scoring,
			ID:            s.ids[i],
			Recency:       s.recency[i],
			Connectedness: s.connectedness(int32(i)),
			GraceLeft:     graceLeft(n.Created, now, p.Grace),
			Use:           s.use[i],
			UseDay:        s.useDay[i],
		}
		r.Eligible = n.Tier != domain.Orphaned && r.GraceLeft == 0
		others = append(others, r)
	}
	slices.SortFunc(others, func(a, b Rank) int { return strings.Compare(a.ID, b.ID) })
	return ranked, others
}
