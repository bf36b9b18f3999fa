package compaction

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
)

// cpN describes a node of a hand-built test graph.
type cpN struct {
	id         string
	gist       int           // gist length in chars; 0 means 20 (cost 20 + 5 = 25 tokens)
	notes      []int         // note lengths
	ts, read   domain.Micros // last write, last read
	created    domain.Micros // 0: old
	tier       domain.Tier
	orphanedAt domain.Micros
	use        domain.Use // zero: none stored, so Restore gives the default
}

// cpE is an edge of a hand-built test graph, rel "r" unless given.
type cpE struct{ from, to string }

const cpNow = 100 * domain.Day

// cpGraph builds a checkpointed graph through Restore, as a backend would.
func cpGraph(t testing.TB, nodes []cpN, edges []cpE) *domain.Graph {
	t.Helper()
	var d domain.GraphData
	d.Schema = domain.SchemaVersion
	seq := uint64(0)
	for _, n := range nodes {
		gl := n.gist
		if gl == 0 {
			gl = 20
		}
		var notes []string
		for _, l := range n.notes {
			notes = append(notes, strings.Repeat("n", l))
		}
		seq++
		d.Nodes = append(d.Nodes, domain.Node{
			ID: n.id, Gist: strings.Repeat("g", gl), Notes: notes,
			Tier: n.tier, Created: n.created, LastRead: n.read, OrphanedAt: n.orphanedAt, Use: n.use,
			Version: domain.Version{V: 1, TS: n.ts, Seq: seq},
		})
	}
	for _, e := range edges {
		seq++
		d.Edges = append(d.Edges, domain.Edge{From: e.from, To: e.to, Rel: "r", Version: domain.Version{V: 1, TS: 1, Seq: seq}})
	}
	d.Seq = seq
	g, notes := domain.Restore(domain.GraphKey{Level: domain.LevelUser}, d, domain.RestoreOptions{})
	if len(notes) != 0 {
		t.Fatalf("Restore notes: %v", notes)
	}
	g.Checkpoint()
	return g
}

// tiers returns the tier of every node.
func tiers(g *domain.Graph) map[string]domain.Tier {
	m := map[string]domain.Tier{}
	for id, n := range nodeMap(g) {
		m[id] = n.Tier
	}
	return m
}

// line returns n old active nodes n1…n<n> with last writes 1…n and the
// default 25-token cost, so with no edges their rank order is n1, n2, ….
func line(n int, mod func(i int, c *cpN)) []cpN {
	var ns []cpN
	for i := 1; i <= n; i++ {
		c := cpN{id: "n" + string(rune('0'+i)), ts: domain.Micros(i)}
		if mod != nil {
			mod(i, &c)
		}
		ns = append(ns, c)
	}
	return ns
}

type stepSummary struct {
	ID   string
	Pass string
	To   domain.Tier
}

func summarize(m Moves) []stepSummary {
	var s []stepSummary
	for _, st := range m.Steps {
		s = append(s, stepSummary{st.ID, st.Pass, st.To})
	}
	return s
}

// cpUse is a use count of sessions (in whole sessions) last counted days
// before cpNow.
func cpUse(sessions uint64, days int32) domain.Use {
	return domain.Use{Count: sessions * domain.UseUnit, Day: domain.UseDay(cpNow) - days, Known: true}
}

// seedOnly marks a case whose order is the seed formula's (recency and
// connectedness); the other cases hold under both scorings.
var seedOnly = []Scoring{ScoringSeed}

// useOnly marks a case whose order is the use count's.
var useOnly = []Scoring{ScoringUse}

// TestCompactWorkedCases checks each rule of a run on a graph small enough to
// compute by hand, under both scorings unless the case names one. Unless a
// case says otherwise a node costs 25 tokens and an edge 15; the nodes of
// line have no stored use count, so each is given one session's worth on the
// day of its recency (day 0): under use they all tie and rank by recency, as
// under seed when they have no edges.
func TestCompactWorkedCases(t *testing.T) {
	tests := []struct {
		name     string
		nodes    []cpN
		edges    []cpE
		policy   Policy
		scorings []Scoring // nil: both

		wantSteps  []stepSummary
		wantBefore int
		wantAfter  int
		wantOver   bool
	}{
		{
			// 125 > max 100: archive n1 (→100, still > target 80), n2 (→75).
			name:       "pass 1 archives in rank order and stops at the target",
			nodes:      line(5, nil),
			policy:     Policy{MaxTokens: 100},
			wantSteps:  []stepSummary{{"n1", PassArchive, domain.Archived}, {"n2", PassArchive, domain.Archived}},
			wantBefore: 125, wantAfter: 75,
		},
		{
			name:       "at max is within budget",
			nodes:      line(4, nil),
			policy:     Policy{MaxTokens: 100},
			wantBefore: 100, wantAfter: 100,
		},
		{
			// 90: above the target 80 but not above max: the hysteresis band.
			name:       "between target and max nothing moves",
			nodes:      line(3, func(i int, c *cpN) { c.gist = 40 }), // 30 each
			policy:     Policy{MaxTokens: 100},
			wantBefore: 90, wantAfter: 90,
		},
		{
			// n1, n2 are in grace: pass 1 skips them although they rank first.
			name:       "nodes in grace are never archived",
			nodes:      line(5, func(i int, c *cpN) { c.created = cpNow - domain.Day*domain.Micros(i) }),
			policy:     Policy{MaxTokens: 100, Grace: 3 * domain.Day}, // n1 (1 day old), n2 (2 days) in grace
			wantSteps:  []stepSummary{{"n3", PassArchive, domain.Archived}, {"n4", PassArchive, domain.Archived}},
			wantBefore: 125, wantAfter: 75,
		},
		{
			// Only n6 is past grace: 150 → 125, still over max.
			name: "grace alone keeps the graph over budget",
			nodes: line(6, func(i int, c *cpN) {
				if i < 6 {
					c.created = cpNow
				}
			}),
			policy:     Policy{MaxTokens: 100, Grace: 1},
			wantSteps:  []stepSummary{{"n6", PassArchive, domain.Archived}},
			wantBefore: 150, wantAfter: 125, wantOver: true,
		},
		{
			// a, b, c equal recency; conn a 33, c 66, b 99 → a first.
			// 75 + 4 edges = 135. Archive a: −25 and a→x.go (archived→file)
			// is hidden: −15 → 95, but a→b (archived→active) stays shown.
			// Archive c: −25, b→c stays shown → 70.
			name:       "archiving hides only the edges left without an active end",
			scorings:   seedOnly,
			nodes:      []cpN{{id: "a", ts: 1}, {id: "b", ts: 1}, {id: "c", ts: 1}},
			edges:      []cpE{{"a", "b"}, {"b", "c"}, {"a", "x.go"}, {"x.go", "y.go"}},
			policy:     Policy{MaxTokens: 100},
			wantSteps:  []stepSummary{{"a", PassArchive, domain.Archived}, {"c", PassArchive, domain.Archived}},
			wantBefore: 135, wantAfter: 70,
		},
		{
			// 25 + 7 × 15 = 130: archiving a leaves 105 of edges between
			// files, which no archiving can hide.
			name:       "shown edges between artifacts alone exceed the budget",
			nodes:      []cpN{{id: "a"}},
			edges:      []cpE{{"f1", "g"}, {"f2", "g"}, {"f3", "g"}, {"f4", "g"}, {"f5", "g"}, {"f6", "g"}, {"f7", "g"}},
			policy:     Policy{MaxTokens: 100},
			wantSteps:  []stepSummary{{"a", PassArchive, domain.Archived}},
			wantBefore: 130, wantAfter: 105, wantOver: true,
		},
		{
			// A 20-char gist and two 40-char notes: 25 tokens by gist, 45
			// with notes. 3 × 25 = 75 is within 100.
			name:       "notes not in the estimate by default",
			nodes:      line(3, func(i int, c *cpN) { c.notes = []int{40, 40} }),
			policy:     Policy{MaxTokens: 100},
			wantBefore: 75, wantAfter: 75,
		},
		{
			// 3 × 45 = 135 > 100: archive n1 (90), n2 (45).
			name:       "KG_ESTIMATE_NOTES charges the notes",
			nodes:      line(3, func(i int, c *cpN) { c.notes = []int{40, 40} }),
			policy:     Policy{MaxTokens: 100, EstimateNotes: true},
			wantSteps:  []stepSummary{{"n1", PassArchive, domain.Archived}, {"n2", PassArchive, domain.Archived}},
			wantBefore: 135, wantAfter: 45,
		},
		{
			// An orphaned node costs nothing, however long, and hides its
			// edges, even to active nodes.
			name:       "orphaned nodes and their edges are free",
			nodes:      []cpN{{id: "a"}, {id: "big", gist: 1000, tier: domain.Orphaned, orphanedAt: 1}},
			edges:      []cpE{{"a", "big"}, {"big", "a"}},
			policy:     Policy{MaxTokens: 100},
			wantBefore: 25, wantAfter: 25,
		},
		{
			// Pass 1: n1 (→100), n2 (→75). Pass 1b population: n1…n5 and p,
			// no edges so pc = 0.5 for all; recency pr n1 0, n2 .2, n3 .4,
			// n4 .6, n5 .8, p 1. j = n1, score(p) − score(n1) = 0.33 ≥ 0.05:
			// p comes back (→100 > 80), so n3, next in rank order, is
			// archived for it (→75). Then j = n2 but no p is left.
			name:     "pass 1b swap kept",
			scorings: seedOnly,
			nodes:    append(line(5, nil), cpN{id: "p", ts: 10, tier: domain.Archived}),
			policy:   Policy{MaxTokens: 100},
			wantSteps: []stepSummary{
				{"n1", PassArchive, domain.Archived}, {"n2", PassArchive, domain.Archived},
				{"p", PassResurrect, domain.Active}, {"n3", PassArchiveForSwap, domain.Archived},
			},
			wantBefore: 125, wantAfter: 75,
		},
		{
			// Under use all six tie at first (one session on day 0) but p,
			// used by four sessions today: pass 1 archives n1 and n2 by
			// recency (→75); in pass 1b the five tied nodes have
			// (0 + 4/2) / 5 = 0.4 and p 1, so p swaps in for n1, and n3, next
			// in rank order, is archived for it (→75). Under seed p, written
			// at 1, ties n1 and stays archived.
			name:     "pass 1b brings back an archived node used more",
			nodes:    append(line(5, nil), cpN{id: "p", ts: 1, tier: domain.Archived, use: cpUse(4, 0)}),
			policy:   Policy{MaxTokens: 100},
			scorings: useOnly,
			wantSteps: []stepSummary{
				{"n1", PassArchive, domain.Archived}, {"n2", PassArchive, domain.Archived},
				{"p", PassResurrect, domain.Active}, {"n3", PassArchiveForSwap, domain.Archived},
			},
			wantBefore: 125, wantAfter: 75,
		},
		{
			// 105 > 100. a was written last and both others point at it,
			// but one session used it 30 days ago (65536 × T[30] >> 16 =
			// 3,320), b three today, c two: a goes first (→80), and its
			// edges stay shown, to active ends.
			name: "pass 1 archives the least used first, whatever its edges and recency",
			nodes: []cpN{
				{id: "a", ts: 50, use: cpUse(1, 30)}, {id: "b", ts: 1, use: cpUse(3, 0)}, {id: "c", ts: 2, use: cpUse(2, 0)},
			},
			edges:      []cpE{{"b", "a"}, {"c", "a"}},
			policy:     Policy{MaxTokens: 100},
			scorings:   useOnly,
			wantSteps:  []stepSummary{{"a", PassArchive, domain.Archived}},
			wantBefore: 105, wantAfter: 80,
		},
		{
			// The same graph under seed: b, the oldest and least connected
			// (0.33 × 0 + 0.66 × 0.25 = 0.165), goes first.
			name: "seed archives the oldest, least connected first, whatever its use",
			nodes: []cpN{
				{id: "a", ts: 50, use: cpUse(1, 30)}, {id: "b", ts: 1, use: cpUse(3, 0)}, {id: "c", ts: 2, use: cpUse(2, 0)},
			},
			edges:      []cpE{{"b", "a"}, {"c", "a"}},
			policy:     Policy{MaxTokens: 100},
			scorings:   seedOnly,
			wantSteps:  []stepSummary{{"b", PassArchive, domain.Archived}},
			wantBefore: 105, wantAfter: 80,
		},
		{
			// Two sessions 7 days ago are worth 2 × 65536 × 32767 >> 16 =
			// 65,534, less than one today (65,536): a goes before b though
			// it was written later and used by more sessions.
			name: "a use halves in seven days",
			nodes: []cpN{
				{id: "a", ts: 30, use: cpUse(2, 7)}, {id: "b", ts: 20, use: cpUse(1, 0)},
				{id: "c", use: cpUse(5, 0)}, {id: "d", use: cpUse(5, 0)}, {id: "e", use: cpUse(5, 0)},
			},
			policy:     Policy{MaxTokens: 100},
			scorings:   useOnly,
			wantSteps:  []stepSummary{{"a", PassArchive, domain.Archived}, {"b", PassArchive, domain.Archived}},
			wantBefore: 125, wantAfter: 75,
		},
		{
			// As above, but n3…n5 are in grace: nothing can be archived to
			// make room for p, so the swap is undone and pass 1b stops.
			name: "pass 1b swap undone when it cannot fit",
			nodes: append(line(5, func(i int, c *cpN) {
				if i >= 3 {
					c.created = cpNow
				}
			}), cpN{id: "p", ts: 10, tier: domain.Archived}),
			policy:     Policy{MaxTokens: 100, Grace: domain.Day},
			wantSteps:  []stepSummary{{"n1", PassArchive, domain.Archived}, {"n2", PassArchive, domain.Archived}},
			wantBefore: 125, wantAfter: 75,
		},
		{
			// p ties n1 exactly (same recency, no edges): below the margin.
			name:       "pass 1b needs the margin",
			nodes:      append(line(5, nil), cpN{id: "p", ts: 1, tier: domain.Archived}),
			policy:     Policy{MaxTokens: 100},
			wantSteps:  []stepSummary{{"n1", PassArchive, domain.Archived}, {"n2", PassArchive, domain.Archived}},
			wantBefore: 125, wantAfter: 75,
		},
		{
			// Within budget: a recent archived node is not restored, because
			// pass 1b runs only after pass 1 archived something.
			name:       "no resurrection without pass 1",
			nodes:      append(line(4, nil), cpN{id: "p", ts: 10, tier: domain.Archived}),
			policy:     Policy{MaxTokens: 100},
			wantBefore: 100, wantAfter: 100,
		},
		{
			// Archived budget floor(0.3 × 130) = 39 → 7 ids. 10 archived: orphan
			// 3. Edges to active nodes: a1 2, a2 1, a3 1, a9 1, the rest 0.
			// Among the zeros by recency then id: a5, a6, a7 (5), a4 (10), …;
			// a9 has the oldest recency but an edge to an active node.
			// Estimate: h1 + h2 = 50, five shown edges = 75 → 125 ≤ 130.
			name: "pass 2 orphans the fewest edges first, then oldest, then lowest id",
			nodes: []cpN{
				{id: "h1", ts: 50}, {id: "h2", ts: 50},
				{id: "a1", ts: 1, tier: domain.Archived}, {id: "a2", ts: 1, tier: domain.Archived},
				{id: "a3", ts: 1, tier: domain.Archived}, {id: "a4", ts: 10, tier: domain.Archived},
				{id: "a5", ts: 5, tier: domain.Archived}, {id: "a6", ts: 5, tier: domain.Archived},
				{id: "a7", ts: 5, tier: domain.Archived}, {id: "a8", ts: 20, tier: domain.Archived},
				{id: "a9", ts: 0, tier: domain.Archived}, {id: "a10", ts: 30, tier: domain.Archived},
			},
			edges:  []cpE{{"a1", "h1"}, {"h1", "a1"}, {"a2", "h1"}, {"a3", "h2"}, {"a9", "h2"}, {"a6", "a7"}, {"a8", "file"}},
			policy: Policy{MaxTokens: 130},
			wantSteps: []stepSummary{
				{"a5", PassOrphan, domain.Orphaned}, {"a6", PassOrphan, domain.Orphaned}, {"a7", PassOrphan, domain.Orphaned},
			},
			wantBefore: 125, wantAfter: 125,
		},
		{
			// Pass 1 archives n1, n2 (→75); with 5 archived earlier that is 7
			// ids = 35 > budget 30: one goes. All have 0 edges and n1 ties
			// o1…o5 on recency (1), so the lowest id goes: n1, archived in
			// this very run. (The o's tie n1's score: no resurrection.)
			name: "pass 2 counts the nodes archived in this run",
			nodes: append(line(5, nil),
				cpN{id: "o1", ts: 1, tier: domain.Archived}, cpN{id: "o2", ts: 1, tier: domain.Archived},
				cpN{id: "o3", ts: 1, tier: domain.Archived}, cpN{id: "o4", ts: 1, tier: domain.Archived},
				cpN{id: "o5", ts: 1, tier: domain.Archived}),
			policy: Policy{MaxTokens: 100},
			wantSteps: []stepSummary{
				{"n1", PassArchive, domain.Archived}, {"n2", PassArchive, domain.Archived}, {"n1", PassOrphan, domain.Orphaned},
			},
			wantBefore: 125, wantAfter: 75,
		},
		{
			// h costs 20 (1-char gist); a01…a25 are archived, each with one
			// edge to h: 20 + 25 × 15 = 395 ≤ max 400. Archived budget 120 →
			// 24 ids: a01, the oldest, is orphaned and its edge hidden (−15).
			name:       "orphaning hides edges to active nodes",
			nodes:      orphanFan(25),
			edges:      fanEdges(25),
			policy:     Policy{MaxTokens: 400},
			wantSteps:  []stepSummary{{"a01", PassOrphan, domain.Orphaned}},
			wantBefore: 395, wantAfter: 380,
		},
	}
	for _, tt := range tests {
		scorings := tt.scorings
		if scorings == nil {
			scorings = []Scoring{ScoringUse, ScoringSeed}
		}
		for _, sc := range scorings {
			t.Run(tt.name+"/"+sc.String(), func(t *testing.T) {
				p := tt.policy
				p.Scoring = sc
				checkWorkedCase(t, tt.nodes, tt.edges, p, tt.wantSteps, tt.wantBefore, tt.wantAfter, tt.wantOver)
			})
		}
	}
}

// checkWorkedCase compacts the graph of nodes and edges with policy and
// checks the steps and estimates, that the plan is the run, the tiers and
// seqs the run leaves, and that a second run moves nothing.
func checkWorkedCase(t *testing.T, nodes []cpN, edges []cpE, policy Policy, wantSteps []stepSummary, wantBefore, wantAfter int, wantOver bool) {
	t.Helper()
	g := cpGraph(t, nodes, edges)
	before := tiers(g)
	seq := g.Seq()
	plan := Plan(g, cpNow, policy)
	m := Run(g, cpNow, policy)
	if diff := cmp.Diff(plan, m); diff != "" {
		t.Errorf("plan and run differ (-plan +run):\n%s", diff)
	}
	if diff := cmp.Diff(wantSteps, summarize(m)); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if m.EstimateBefore != wantBefore || m.EstimateAfter != wantAfter || m.OverBudget != wantOver {
		t.Errorf("estimate %d → %d over %v, want %d → %d over %v",
			m.EstimateBefore, m.EstimateAfter, m.OverBudget, wantBefore, wantAfter, wantOver)
	}
	if got := policy.Estimate(g); got != m.EstimateAfter {
		t.Errorf("graph estimate after the run %d, moves say %d", got, m.EstimateAfter)
	}
	// The graph's tiers are the plan's: the last move of each node.
	want := before
	for _, st := range m.Steps {
		want[st.ID] = st.To
	}
	if diff := cmp.Diff(want, tiers(g)); diff != "" {
		t.Errorf("tiers (-want +got):\n%s", diff)
	}
	// One seq per node that changed tier, none for the rest.
	changed := 0
	for id, tr := range tiers(g) {
		n := nodeMap(g)[id]
		if tr != before[id] || n.TierSeq > seq {
			changed++
			if n.TierSeq <= seq || n.Version.V != 1 {
				t.Errorf("%s: TierSeq %d (seq before %d), version %d; want a new TierSeq and version 1", id, n.TierSeq, seq, n.Version.V)
			}
		}
		if tr == domain.Orphaned && before[id] != domain.Orphaned && n.OrphanedAt != cpNow {
			t.Errorf("%s: orphaned at %d, want now %d", id, n.OrphanedAt, cpNow)
		}
	}
	if g.Seq() != seq+uint64(changed) {
		t.Errorf("seq %d → %d for %d changed nodes", seq, g.Seq(), changed)
	}
	if again := Run(g, cpNow, policy); !again.Empty() {
		t.Errorf("second run moved %v", summarize(again))
	}
}

// TestCompactMovesExplainThemselves checks that every move carries the
// numbers that decided it.
func TestCompactMovesExplainThemselves(t *testing.T) {
	g := cpGraph(t, append(line(5, nil),
		cpN{id: "p", ts: 10, tier: domain.Archived},
		cpN{id: "o1", ts: 2, tier: domain.Archived}, cpN{id: "o2", ts: 3, tier: domain.Archived},
		cpN{id: "o3", ts: 4, tier: domain.Archived}, cpN{id: "o4", ts: 5, tier: domain.Archived}), nil)
	m := Run(g, cpNow, Policy{MaxTokens: 100, Scoring: ScoringSeed}) // under seed p, written last, is restored
	want := map[string][]string{
		PassArchive:        {"score 0.", "estimate 125 > target 80", "max 100"},
		PassResurrect:      {"score 0.", "margin 0.05", "target 80"},
		PassArchiveForSwap: {"score 0.", "target 80", "after restoring "},
		PassOrphan:         {"edges to active nodes", "archived budget 30"},
	}
	seen := map[string]bool{}
	for _, st := range m.Steps {
		seen[st.Pass] = true
		for _, s := range want[st.Pass] {
			if st.Pass == PassArchive && st.ID != "n1" && strings.HasPrefix(s, "estimate") {
				continue // later archive steps start from a lower estimate
			}
			if !strings.Contains(st.Reason, s) {
				t.Errorf("%s %s: reason %q lacks %q", st.Pass, st.ID, st.Reason, s)
			}
		}
		if (st.Rank == nil) != (st.Pass == PassOrphan) {
			t.Errorf("%s %s: rank %v; want a rank exactly for the scored passes", st.Pass, st.ID, st.Rank)
		}
	}
	for pass := range want {
		if !seen[pass] {
			t.Errorf("no %s step in %v", pass, summarize(m))
		}
	}
}

// TestCompactWithinBudgetAllocatesNothing checks the O(1) path: a run on a
// graph within both budgets reads the kept counts and returns.
func TestCompactWithinBudgetAllocatesNothing(t *testing.T) {
	g := cpGraph(t, line(3, nil), []cpE{{"n1", "n2"}})
	p := DefaultPolicy()
	allocs := testing.AllocsPerRun(100, func() {
		if m := Run(g, cpNow, p); !m.Empty() {
			t.Fatalf("moved %v", summarize(m))
		}
	})
	if allocs != 0 {
		t.Errorf("a run within budget allocated %v times", allocs)
	}
}

// TestCompactRollback checks that the tier changes of a run are journaled: a
// rollback returns every node to its tier.
func TestCompactRollback(t *testing.T) {
	g := cpGraph(t, append(line(5, nil), cpN{id: "p", ts: 10, tier: domain.Archived}), nil)
	before := g.Data()
	m := Run(g, cpNow, Policy{MaxTokens: 100, Scoring: ScoringSeed}) // under seed p, written last, is restored
	if m.Empty() {
		t.Fatal("the run moved nothing")
	}
	if len(g.Pending().Nodes) != 4 {
		t.Errorf("pending nodes %v, want the 4 moved", g.Pending().Nodes)
	}
	g.Rollback()
	after := g.Data()
	after.Seq = before.Seq // the counter never goes back
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("after rollback (-before +after):\n%s", diff)
	}
}

// orphanFan is an active hub h of 20 tokens and n archived nodes a01…
// with last writes 1, 2, 2, ….
func orphanFan(n int) []cpN {
	ns := []cpN{{id: "h", gist: 1, ts: 9}}
	for i := 1; i <= n; i++ {
		ns = append(ns, cpN{id: fmt.Sprintf("a%02d", i), ts: domain.Micros(min(i, 2)), tier: domain.Archived})
	}
	return ns
}

// fanEdges joins each of a01… to h.
func fanEdges(n int) []cpE {
	var es []cpE
	for i := 1; i <= n; i++ {
		es = append(es, cpE{fmt.Sprintf("a%02d", i), "h"})
	}
	return es
}

// ExamplePlan shows a dry run: what a run would do now, and why.
// Three nodes of 25 tokens and one edge of 15 are 90 tokens, over a budget
// of 80; the run archives in rank order down to the target of 64. Under the
// seed scoring gamma has no edge, so it ranks lowest; an edge in counts twice
// an edge out, so beta ranks above alpha.
func ExamplePlan() {
	g := domain.NewGraph(domain.GraphKey{Level: domain.LevelUser})
	at := domain.Stamp{Now: domain.Days(1)}
	for _, id := range []string{"alpha", "beta", "gamma"} {
		if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: "twenty chars of gist"}, at); err != nil {
			panic(err)
		}
	}
	if _, err := g.PutEdge(domain.EdgeInput{From: "alpha", To: "beta", Rel: "uses"}, at); err != nil {
		panic(err)
	}
	p := DefaultPolicy()
	p.MaxTokens, p.Grace, p.Scoring = 80, 0, ScoringSeed

	plan := Plan(g, domain.Days(10), p)
	for _, st := range plan.Steps {
		fmt.Println(st.Pass, st.ID+":", st.Reason)
	}
	fmt.Println("estimate", plan.EstimateBefore, "->", plan.EstimateAfter)
	// Output:
	// archive gamma: rank 1/3, score 0.1650; estimate 90 > target 64 (run started at 90 > max 80)
	// archive alpha: rank 2/3, score 0.4950; estimate 65 > target 64 (run started at 90 > max 80)
	// estimate 90 -> 40
}
