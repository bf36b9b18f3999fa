package compaction

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/kg-memory/kg/domain"
)

// ranked is what a pass-1 move says of its node's rank.
type ranked struct {
	ID      string
	Score   float64
	Recency domain.Micros
}

// scratchUse is u(n) at now computed from the definitions of
// docs/design/compaction.md#the-use-count: the decay factor of k days by k
// multiplications, and day(t) by division; no table, no code of use.go.
func scratchUse(u domain.Use, now domain.Micros) uint64 {
	k := now/(86_400*1_000_000) - domain.Micros(u.Day)
	if k <= 0 {
		return u.Count
	}
	f := uint64(65536)
	for range k {
		f = f * 59358 >> 16
	}
	return u.Count * f >> 16
}

// scratchRankOrder returns the population of pass 1 (the active eligible
// nodes of g) sorted in rank order (rankOrder), with every score computed
// here from the definitions of docs/design/compaction.md#scores and the
// policy's scoring and weights, sharing no code with compaction but the
// order itself.
func scratchRankOrder(g *domain.Graph, now domain.Micros, p Policy) []ranked {
	w := p.Score
	if w == (ScoreWeights{}) {
		w = DefaultScoreWeights()
	}
	nodes := nodeMap(g)
	active := func(id string) bool { n, ok := nodes[id]; return ok && n.Tier == domain.Active }
	type fig struct {
		id      string
		recency domain.Micros
		conn    int
	}
	var pop []fig
	for id, n := range nodes {
		if n.Tier != domain.Active || (n.Created != 0 && now-n.Created < p.Grace) {
			continue
		}
		f := fig{id: id, recency: max(n.Version.TS, n.LastRead)}
		for _, e := range g.Edges() {
			if e.To == id && active(e.From) {
				f.conn += w.In
			}
			if e.From == id && active(e.To) {
				f.conn += w.Out
			}
		}
		pop = append(pop, f)
	}
	percentile := func(v int, vals []int) float64 {
		if len(vals) == 1 {
			return 0.5
		}
		less, equal := 0, 0
		for _, x := range vals {
			switch {
			case x < v:
				less++
			case x == v:
				equal++
			}
		}
		return (float64(less) + float64(equal-1)/2) / float64(len(vals)-1)
	}
	recs, conns := make([]int, len(pop)), make([]int, len(pop))
	for i, f := range pop {
		recs[i], conns[i] = int(f.recency), f.conn
	}
	uses := make([]int, len(pop))
	for i, f := range pop {
		uses[i] = int(scratchUse(nodes[f.id].Use, now)) // < 2^48: an int holds it
	}
	keys := make([]rankKey, len(pop))
	for i, f := range pop {
		pr, pc := percentile(recs[i], recs), percentile(conns[i], conns)
		score := float64(w.Recency*pr) + float64(w.Connectedness*pc)
		if p.Scoring == ScoringUse {
			score = percentile(uses[i], uses)
		}
		keys[i] = rankKey{score: score, recency: f.recency, k: int32(i)}
	}
	slices.SortFunc(keys, rankOrder{func(k int32) string { return pop[k].id }}.cmp)
	out := make([]ranked, len(keys))
	for i, k := range keys {
		out[i] = ranked{ID: pop[k.k].id, Score: k.score, Recency: k.recency}
	}
	return out
}

// TestCompactPropArchivesInRankOrder: pass 1 archives the first nodes of
// the rank order, in that order, each with the score the definitions give,
// under either scoring, and under seed whether the policy keeps the default
// weights or sets its own.
func TestCompactPropArchivesInRankOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g, _, p := genGraph(t)
		if rapid.Bool().Draw(t, "own-weights") {
			p.Score = ScoreWeights{
				Recency:       rapid.SampledFrom([]float64{0, 0.1, 0.33, 0.5, 1}).Draw(t, "w-recency"),
				Connectedness: rapid.SampledFrom([]float64{0, 0.1, 0.66, 0.5, 1}).Draw(t, "w-connectedness"),
				In:            rapid.IntRange(0, 100).Draw(t, "w-in"),
				Out:           rapid.IntRange(0, 100).Draw(t, "w-out"),
			}
		}
		want := scratchRankOrder(g, propNow, p)
		var got []ranked
		for _, st := range Plan(g, propNow, p).Steps {
			if st.Pass == PassArchive {
				got = append(got, ranked{ID: st.ID, Score: st.Rank.Score, Recency: st.Rank.Recency})
			}
		}
		if len(got) > len(want) {
			t.Fatalf("pass 1 archived %d nodes of a population of %d", len(got), len(want))
		}
		if diff := cmp.Diff(want[:len(got)], got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("pass 1 archive order is not the rank order (-rank order +archived):\n%s", diff)
		}
	})
}

// TestScoreWeightsDecideTheOrder: the freshest node has no edges, the
// oldest has the most. The spec's weights favour connectedness, so the
// fresh node goes first (c: 0.33, b: 0.495, a: 0.66); weights that count
// recency only turn the order round.
func TestScoreWeightsDecideTheOrder(t *testing.T) {
	g := cpGraph(t, []cpN{
		{id: "a", ts: 100},
		{id: "b", ts: 200},
		{id: "c", ts: 300},
	}, []cpE{{"b", "a"}})
	tests := []struct {
		name    string
		weights ScoreWeights
		want    []string
	}{
		{"zero weights mean the spec's", ScoreWeights{}, []string{"c", "b", "a"}},
		{"the spec's, spelled out", DefaultScoreWeights(), []string{"c", "b", "a"}},
		{"recency only", ScoreWeights{Recency: 1}, []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Policy{MaxTokens: 1, Score: tt.weights, Scoring: ScoringSeed}
			var got []string
			for _, m := range newSim(g, g.NodeSlots(), cpNow, p).population(domain.Active) {
				got = append(got, m.ID)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("rank order (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, Plan(g, cpNow, p).Archived); diff != "" {
				t.Errorf("archived (-want +got):\n%s", diff)
			}
		})
	}
}
