package compaction

import (
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
)

func TestPercentiles(t *testing.T) {
	tests := []struct {
		name string
		vals []int
		want []float64
	}{
		{"empty population", nil, []float64{}},
		{"one value is the median", []int{7}, []float64{0.5}},
		{"distinct values spread from 0 to 1", []int{1, 2, 3}, []float64{0, 0.5, 1}},
		{"distinct values in any order", []int{3, 1, 2}, []float64{1, 0, 0.5}},
		{"all equal share the middle", []int{5, 5, 5}, []float64{0.5, 0.5, 0.5}},
		// N-1 = 3. The two 1s: less 0, equal 2 → 0.5/3. The 2: less 2 → 2/3.
		{"ties at the bottom", []int{1, 1, 2, 3}, []float64{0.5 / 3, 0.5 / 3, 2.0 / 3, 1}},
		// The two 3s: less 2, equal 2 → 2.5/3, whatever their positions.
		{"interleaved ties", []int{3, 1, 3, 1}, []float64{2.5 / 3, 0.5 / 3, 2.5 / 3, 0.5 / 3}},
		// Two equal of two: (0 + 1/2) / 1.
		{"a pair that ties", []int{4, 4}, []float64{0.5, 0.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := percentiles(tt.vals)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("percentiles(%v) (-want +got):\n%s", tt.vals, diff)
			}
		})
	}
}

func TestCombineScore(t *testing.T) {
	tests := []struct {
		name   string
		pr, pc float64
		want   float64
	}{
		{"both lowest", 0, 0, 0},
		{"recency only", 1, 0, 0.33},
		{"connectedness only", 0, 1, 0.66},
		{"median of both", 0.5, 0.5, 0.495},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := combine(DefaultScoreWeights(), tt.pr, tt.pc); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("combine(%v, %v) = %v, want %v", tt.pr, tt.pc, got, tt.want)
			}
		})
	}
}

func TestRankOrder(t *testing.T) {
	ids := []string{"a", "b", "z", "Z"}
	const a, b, z, Z = 0, 1, 2, 3 // positions in ids
	tests := []struct {
		name string
		a, b rankKey
		want int // a compared with b
	}{
		{"lower score first", rankKey{k: z, score: 0.1, recency: 9}, rankKey{k: a, score: 0.2, recency: 1}, -1},
		{"equal score: older recency first", rankKey{k: z, score: 0.2, recency: 1}, rankKey{k: a, score: 0.2, recency: 2}, -1},
		{"equal score and recency: lower id first", rankKey{k: a, score: 0.2, recency: 1}, rankKey{k: b, score: 0.2, recency: 1}, -1},
		{"byte order of ids", rankKey{k: Z, score: 0.2}, rankKey{k: a, score: 0.2}, -1},
		{"same rank", rankKey{k: a, score: 0.2, recency: 1}, rankKey{k: a, score: 0.2, recency: 1}, 0},
	}
	order := rankOrder{func(k int32) string { return ids[k] }}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := order.cmp(tt.a, tt.b); got != tt.want {
				t.Errorf("cmp(a, b) = %d, want %d", got, tt.want)
			}
			if got := order.cmp(tt.b, tt.a); got != -tt.want {
				t.Errorf("cmp(b, a) = %d, want %d", got, -tt.want)
			}
		})
	}
}

func TestRestoreOrder(t *testing.T) {
	tests := []struct {
		name string
		a, b Rank
	}{
		{"higher score first", Rank{ID: "z", Score: 0.9}, Rank{ID: "a", Score: 0.8, Recency: 9}},
		{"equal score: higher recency first", Rank{ID: "z", Score: 0.9, Recency: 2}, Rank{ID: "a", Score: 0.9, Recency: 1}},
		// Not the reverse of the rank order: the id tie-break stays ascending.
		{"equal score and recency: lower id first", Rank{ID: "a", Score: 0.9, Recency: 1}, Rank{ID: "b", Score: 0.9, Recency: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cmpRestore(&tt.a, &tt.b); got != -1 {
				t.Errorf("cmpRestore(a, b) = %d, want -1", got)
			}
		})
	}
}

func TestGraceLeft(t *testing.T) {
	const now = 100 * domain.Day
	tests := []struct {
		name           string
		created, grace domain.Micros
		want           domain.Micros
	}{
		{"no created time counts as old", 0, 5 * domain.Day, 0},
		{"exactly at the end of grace is past it", now - 5*domain.Day, 5 * domain.Day, 0},
		{"one microsecond short", now - 5*domain.Day + 1, 5 * domain.Day, 1},
		{"created now", now, 5 * domain.Day, 5 * domain.Day},
		{"grace 0 means never in grace", now, 0, 0},
		{"long past grace", now - 50*domain.Day, 5 * domain.Day, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := graceLeft(tt.created, now, tt.grace); got != tt.want {
				t.Errorf("graceLeft(%d, %d, %d) = %d, want %d", tt.created, now, tt.grace, got, tt.want)
			}
		})
	}
}

// TestRanks works one population by hand:
//
//	a: ts 100, read 300; in e→a (66), out a→b (33), a→file (0)  → conn 99,  rec 300
//	b: ts 200;           in a→b, c→b (132), out b→d archived (0) → conn 132, rec 200
//	c: ts 200;           out c→b (33)                            → conn 33,  rec 200
//	d: archived; e: in grace — not in the population.
//
// Recency percentiles (N=3): b, c tie at (0+0.5)/2 = 0.25, a = 1.
// Connectedness: c 0, a 0.5, b 1.
// Scores: a = 0.33 + 0.33 = 0.66, b = 0.0825 + 0.66 = 0.7425, c = 0.0825.
func TestRanks(t *testing.T) {
	const now = 100 * domain.Day
	g := cpGraph(t, []cpN{
		{id: "a", ts: 100, read: 300},
		{id: "b", ts: 200},
		{id: "c", ts: 200},
		{id: "d", ts: 50, tier: domain.Archived},
		{id: "e", ts: 400, created: now - 1},
	}, []cpE{{"a", "b"}, {"c", "b"}, {"b", "d"}, {"a", "src/file.go"}, {"e", "a"}})
	p := Policy{MaxTokens: 1000, Grace: 10, Scoring: ScoringSeed}
	ranked, others := Ranks(g, now, p)
	combineScore := func(pr, pc float64) float64 { return combine(DefaultScoreWeights(), pr, pc) }
	// Pass 1 takes the population in this order: c, a, b.
	wantRanked := []Rank{
		{ID: "c", Recency: 200, Connectedness: 33, PRecency: 0.25, PConnectedness: 0, Score: combineScore(0.25, 0), Eligible: true, Scoring: ScoringSeed},
		{ID: "a", Recency: 300, Connectedness: 99, PRecency: 1, PConnectedness: 0.5, Score: combineScore(1, 0.5), Eligible: true, Scoring: ScoringSeed},
		{ID: "b", Recency: 200, Connectedness: 132, PRecency: 0.25, PConnectedness: 1, Score: combineScore(0.25, 1), Eligible: true, Scoring: ScoringSeed},
	}
	wantOthers := []Rank{
		{ID: "d", Recency: 50, Connectedness: 66, Eligible: true, Scoring: ScoringSeed},
		{ID: "e", Recency: 400, Connectedness: 33, GraceLeft: 9, Scoring: ScoringSeed},
	}
	if diff := cmp.Diff(wantRanked, ranked); diff != "" {
		t.Fatalf("ranked (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantOthers, others); diff != "" {
		t.Fatalf("others (-want +got):\n%s", diff)
	}
	for i, score := range []float64{0.0825, 0.66, 0.7425} {
		if math.Abs(ranked[i].Score-score) > 1e-12 {
			t.Errorf("score of %s = %v, want %v", ranked[i].ID, ranked[i].Score, score)
		}
	}
	// The order is the one pass 1 archives in.
	var order []string
	for _, m := range newSim(g, g.NodeSlots(), now, p).population(domain.Active) {
		order = append(order, m.ID)
	}
	if diff := cmp.Diff([]string{"c", "a", "b"}, order); diff != "" {
		t.Errorf("rank order (-want +got):\n%s", diff)
	}
}

// TestRanksByUse: under the use scoring the ranked nodes carry their use count
// at now, the day it was last counted and its percentile, which is their
// score; their connectedness is given for comparison; the others carry their
// count and day too. A node stored without a count has one session's worth on
// the day of its recency.
func TestRanksByUse(t *testing.T) {
	const now = 100 * domain.Day
	today := domain.UseDay(now)
	g := cpGraph(t, []cpN{
		{id: "a", ts: 90 * domain.Day, use: cpUse(3, 7)},             // 3 × 32767 = 98,301
		{id: "b", ts: 10 * domain.Day, use: cpUse(2, 0)},             // 131,072
		{id: "c", ts: 20 * domain.Day},                               // none stored: 65,536 as of day 20, 80 days ago: 65536 × T[80] >> 16
		{id: "d", ts: 50, tier: domain.Archived, use: cpUse(9, 100)}, // decayed to nothing
		{id: "e", ts: 99 * domain.Day, created: now - 1, use: cpUse(1, 0)},
	}, []cpE{{"a", "b"}, {"c", "b"}, {"e", "a"}})
	ranked, others := Ranks(g, now, Policy{MaxTokens: 1000, Grace: 10})
	cUse := domain.Use{Count: domain.UseUnit, Day: today - 80, Known: true}.At(today) // UseUnit × T[80] >> 16
	wantRanked := []Rank{
		{ID: "c", Recency: 20 * domain.Day, Connectedness: 33, Use: cUse, UseDay: 20, PUse: 0, Score: 0, Eligible: true},
		{ID: "a", Recency: 90 * domain.Day, Connectedness: 33 + 66, Use: 98_301, UseDay: today - 7, PUse: 0.5, Score: 0.5, Eligible: true},
		{ID: "b", Recency: 10 * domain.Day, Connectedness: 132, Use: 2 * domain.UseUnit, UseDay: today, PUse: 1, Score: 1, Eligible: true},
	}
	wantOthers := []Rank{
		{ID: "d", Recency: 50, Use: 0, UseDay: today - 100, Eligible: true},
		{ID: "e", Recency: 99 * domain.Day, Connectedness: 33, Use: domain.UseUnit, UseDay: today, GraceLeft: 9},
	}
	if diff := cmp.Diff(wantRanked, ranked); diff != "" {
		t.Errorf("ranked (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantOthers, others); diff != "" {
		t.Errorf("others (-want +got):\n%s", diff)
	}
}

// TestConnectednessCountsActiveNodesOnly checks which edges count: only those
// whose other end is an active node of the same graph.
func TestConnectednessCountsActiveNodesOnly(t *testing.T) {
	g := cpGraph(t, []cpN{
		{id: "n"},
		{id: "act"},
		{id: "arc", tier: domain.Archived},
		{id: "orph", tier: domain.Orphaned, orphanedAt: 1},
	}, []cpE{
		{"act", "n"}, {"n", "act"}, // 66 + 33
		{"arc", "n"}, {"n", "arc"}, // archived: 0
		{"orph", "n"}, {"n", "orph"}, // orphaned: 0
		{"n", "docs/x.md"}, {"https://x.test/y", "n"}, // references: 0
		{"user-node", "n"}, // a user-graph id seen from a project graph is a reference: 0
		{"n", "n"},         // a self-loop of an active node counts both ways
	})
	want := 66 + 33 + 66 + 33
	s := newSim(g, g.NodeSlots(), cpNow, Policy{})
	n := int32(slices.Index(s.ids, "n"))
	if got := s.connectedness(n); got != want {
		t.Errorf("connectedness(n) = %d, want %d", got, want)
	}
}
