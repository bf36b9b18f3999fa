package compaction

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/kg-memory/kg/domain"
)

// The properties of docs/design/compaction.md#required-properties, checked on
// small random graphs. The graphs are small on purpose: few distinct times and
// few nodes make ties, shared edges and grace boundaries common, which is where
// the rules are subtle. rapid's default of 100 cases per property keeps the
// whole file well under a second.

const propNow = 100 * domain.Day

// propTimes are the times nodes are created, written and read at: few, so
// that recencies tie and grace boundaries are hit exactly.
var propTimes = []domain.Micros{0, 1, domain.Day, 90 * domain.Day, 95 * domain.Day, 99 * domain.Day, propNow}

func propID(i int) string { return fmt.Sprintf("n%02d", i) }

// propEnds are the strings edges join: node ids (some never created) and
// references.
func propEnd(t *rapid.T, label string) string {
	if rapid.IntRange(0, 4).Draw(t, label+"-kind") == 0 {
		return rapid.SampledFrom([]string{"src/a.go", "src/b.go", "https://x.test/doc"}).Draw(t, label+"-ref")
	}
	return propID(rapid.IntRange(0, 24).Draw(t, label+"-id"))
}

// genData draws the stored data of a graph in every tier.
func genData(t *rapid.T) domain.GraphData {
	d := domain.GraphData{Schema: domain.SchemaVersion}
	ids := rapid.SliceOfNDistinct(rapid.IntRange(0, 24), 0, 20, rapid.ID[int]).Draw(t, "ids")
	seq := uint64(0)
	for _, i := range ids {
		id := propID(i)
		seq++
		n := domain.Node{
			ID:       id,
			Gist:     strings.Repeat("g", rapid.IntRange(1, 60).Draw(t, id+"-gist")),
			Created:  rapid.SampledFrom(propTimes).Draw(t, id+"-created"),
			LastRead: rapid.SampledFrom(propTimes).Draw(t, id+"-read"),
			Tier:     rapid.SampledFrom([]domain.Tier{domain.Active, domain.Active, domain.Active, domain.Archived, domain.Archived, domain.Orphaned}).Draw(t, id+"-tier"),
			Version:  domain.Version{V: 1, TS: rapid.SampledFrom(propTimes).Draw(t, id+"-ts"), Seq: seq},
		}
		for range rapid.IntRange(0, 2).Draw(t, id+"-notes") {
			n.Notes = append(n.Notes, strings.Repeat("n", rapid.IntRange(1, 40).Draw(t, id+"-note")))
		}
		if n.Tier == domain.Orphaned {
			n.OrphanedAt = rapid.SampledFrom([]domain.Micros{1, 50 * domain.Day, 99 * domain.Day}).Draw(t, id+"-orphaned")
		}
		n.Use = genUse(t, id)
		d.Nodes = append(d.Nodes, n)
	}
	seen := map[domain.EdgeKey]bool{}
	for range rapid.IntRange(0, 40).Draw(t, "edges") {
		k := domain.EdgeKey{From: propEnd(t, "from"), To: propEnd(t, "to"), Rel: rapid.SampledFrom([]string{"r", "s"}).Draw(t, "rel")}
		if seen[k] {
			continue
		}
		seen[k] = true
		seq++
		d.Edges = append(d.Edges, domain.Edge{From: k.From, To: k.To, Rel: k.Rel, Version: domain.Version{V: 1, TS: 1, Seq: seq}})
	}
	d.Seq = seq
	return d
}

// genUse draws a stored use count: none (a node of an older file), or
// counts that tie, that decay to nothing, that saturate, stamped on days
// around propNow's, a day after it included.
func genUse(t *rapid.T, id string) domain.Use {
	if rapid.IntRange(0, 3).Draw(t, id+"-use-known") == 0 {
		return domain.Use{}
	}
	today := domain.UseDay(propNow)
	return domain.Use{
		Count: rapid.SampledFrom([]uint64{0, 1, domain.UseUnit, 98_303, 2 * domain.UseUnit, 5 * domain.UseUnit, domain.UseMax}).Draw(t, id+"-use"),
		Day:   today - rapid.SampledFrom([]int32{-1, 0, 0, 1, 7, 30, 93, 94, 95, today}).Draw(t, id+"-use-age"),
		Known: true,
	}
}

func genPolicy(t *rapid.T) Policy {
	return Policy{
		Scoring:       rapid.SampledFrom([]Scoring{ScoringUse, ScoringSeed}).Draw(t, "scoring"),
		MaxTokens:     rapid.IntRange(0, 500).Draw(t, "max"),
		EstimateNotes: rapid.Bool().Draw(t, "notes"),
		Grace:         rapid.SampledFrom([]domain.Micros{0, domain.Day, 5 * domain.Day, 10 * domain.Day}).Draw(t, "grace"),
		OrphanGrace:   rapid.SampledFrom([]domain.Micros{0, domain.Day, 365 * domain.Day}).Draw(t, "orphan-grace"),
		TombstoneTTL:  30 * domain.Day,
	}
}

func restoreData(t *rapid.T, d domain.GraphData) *domain.Graph {
	g, _ := domain.Restore(domain.GraphKey{Level: domain.LevelUser}, d, domain.RestoreOptions{})
	g.Checkpoint()
	assertStats(t, g)
	return g
}

// genGraph draws a graph and a policy.
func genGraph(t *rapid.T) (*domain.Graph, domain.GraphData, Policy) {
	d := genData(t)
	return restoreData(t, d), d, genPolicy(t)
}

// cpRecomputeStats computes a graph's Stats from scratch, straight from the
// definitions of docs/design/compaction.md#token-estimate-of-a-graph, sharing
// no code with the incremental path.
func cpRecomputeStats(g *domain.Graph) domain.Stats {
	var s domain.Stats
	nodes := nodeMap(g)
	for _, n := range nodes {
		switch n.Tier {
		case domain.Active:
			s.Active++
			gl := utf8.RuneCountInString(n.Gist)
			nl := gl
			for _, note := range n.Notes {
				nl += utf8.RuneCountInString(note)
			}
			s.GistCost += gl / 4
			s.NotesCost += nl / 4
		case domain.Archived:
			s.Archived++
		case domain.Orphaned:
			s.Orphaned++
		}
	}
	for _, e := range g.Edges() {
		k := e.Key()
		s.Edges++
		from, fromNode := nodes[k.From]
		to, toNode := nodes[k.To]
		switch {
		case fromNode && from.Tier == domain.Orphaned, toNode && to.Tier == domain.Orphaned:
		case fromNode && from.Tier == domain.Active, toNode && to.Tier == domain.Active:
			s.ShownEdges++
		case !fromNode && !toNode:
			s.ShownEdges++
		}
	}
	return s
}

// assertStats checks the incremental counts against ones computed from
// scratch. (That the adjacency index follows the tier changes a run makes
// through Graph.SetTiers is checked in domain, by TestStatsPropIncremental:
// the index is not visible from here.)
func assertStats(t interface {
	Helper()
	Fatalf(string, ...any)
}, g *domain.Graph) {
	t.Helper()
	if diff := quickDiff(cpRecomputeStats(g), g.Stats()); diff != "" {
		t.Fatalf("incremental stats differ from recomputed (-scratch +kept):\n%s", diff)
	}
}

func TestCompactPropDeterministicOnShuffledCopy(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g, d, p := genGraph(t)
		shuffled := d
		shuffled.Nodes = rapid.Permutation(d.Nodes).Draw(t, "node-order")
		shuffled.Edges = rapid.Permutation(d.Edges).Draw(t, "edge-order")
		h := restoreData(t, shuffled)
		gRanked, gOthers := Ranks(g, propNow, p)
		hRanked, hOthers := Ranks(h, propNow, p)
		if diff := quickDiff(gRanked, hRanked); diff != "" {
			t.Fatalf("ranked nodes differ (-original +shuffled):\n%s", diff)
		}
		if diff := quickDiff(gOthers, hOthers); diff != "" {
			t.Fatalf("other nodes differ (-original +shuffled):\n%s", diff)
		}
		mg, mh := Run(g, propNow, p), Run(h, propNow, p)
		if diff := quickDiff(mg, mh); diff != "" {
			t.Fatalf("moves differ (-original +shuffled):\n%s", diff)
		}
		if diff := quickDiff(g.Data(), h.Data()); diff != "" {
			t.Fatalf("graphs differ after the run (-original +shuffled):\n%s", diff)
		}
	})
}

// allInGrace reports whether every active node of g is in grace.
func allInGrace(g *domain.Graph, p Policy) bool {
	for _, n := range nodeMap(g) {
		if n.Tier == domain.Active && graceLeft(n.Created, propNow, p.Grace) == 0 {
			return false
		}
	}
	return true
}

func TestCompactPropReachesTarget(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g, _, p := genGraph(t)
		m := Run(g, propNow, p)
		after := p.Estimate(g)
		if m.EstimateBefore > p.MaxTokens && after > p.Target() && !allInGrace(g, p) {
			// Whatever is left over the target is in grace or is edges
			// between artifacts; an eligible active node means pass 1
			// stopped early.
			t.Fatalf("estimate %d → %d, target %d, max %d, with eligible active nodes left; moves %v",
				m.EstimateBefore, after, p.Target(), p.MaxTokens, summarize(m))
		}
		if m.EstimateBefore <= p.MaxTokens && after > m.EstimateBefore {
			t.Fatalf("a run within max raised the estimate %d → %d", m.EstimateBefore, after)
		}
		if m.OverBudget != (after > p.MaxTokens) {
			t.Fatalf("OverBudget %v with estimate %d, max %d", m.OverBudget, after, p.MaxTokens)
		}
	})
}

func TestCompactPropGraceAndOrphans(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g, _, p := genGraph(t)
		m := Run(g, propNow, p)
		nodes := nodeMap(g)
		for _, st := range m.Steps {
			if st.To != domain.Archived {
				continue
			}
			if n := nodes[st.ID]; graceLeft(n.Created, propNow, p.Grace) != 0 {
				t.Fatalf("%s archived in grace (created %d, grace %d)", st.ID, n.Created, p.Grace)
			}
			if st.From != domain.Active {
				t.Fatalf("%s archived from %s", st.ID, st.From)
			}
		}
		// Orphaned nodes and every edge touching one cost nothing.
		for _, e := range g.Edges() {
			k := e.Key()
			for _, end := range []string{k.From, k.To} {
				if n, ok := nodes[end]; ok && n.Tier == domain.Orphaned && g.Shown(k) {
					t.Fatalf("edge %s of orphaned %s is shown", k, end)
				}
			}
		}
		assertStats(t, g)
		if m.EstimateAfter != p.Estimate(g) {
			t.Fatalf("moves say estimate %d, graph says %d", m.EstimateAfter, p.Estimate(g))
		}
	})
}

func TestCompactPropArchivedBudget(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g, _, p := genGraph(t)
		Run(g, propNow, p)
		if a := g.Stats().Archived; domain.ArchivedIDTokens*a > p.ArchivedBudget() {
			t.Fatalf("%d archived ids cost %d > archived budget %d", a, domain.ArchivedIDTokens*a, p.ArchivedBudget())
		}
	})
}

func TestCompactPropWithinBudgetMovesNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g, _, p := genGraph(t)
		m := Run(g, propNow, p)
		if m.EstimateBefore > p.MaxTokens {
			return
		}
		for _, st := range m.Steps {
			if st.Pass != PassOrphan {
				t.Fatalf("within budget (%d ≤ %d) but %s %s", m.EstimateBefore, p.MaxTokens, st.Pass, st.ID)
			}
		}
	})
}

func TestCompactPropIdempotent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g, _, p := genGraph(t)
		Run(g, propNow, p)
		g.Checkpoint()
		before := g.Data()
		if m := Run(g, propNow, p); !m.Empty() {
			t.Fatalf("second run moved %v", summarize(m))
		}
		if diff := quickDiff(before, g.Data()); diff != "" {
			t.Fatalf("second run changed the graph:\n%s", diff)
		}
		if !g.Pending().Empty() {
			t.Fatalf("second run left pending changes %+v", g.Pending())
		}
	})
}

func TestCompactPropPlanEqualsRun(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g, _, p := genGraph(t)
		before, seq, pending := g.Data(), g.Seq(), g.Pending().Size()
		plan := Plan(g, propNow, p)
		if diff := quickDiff(before, g.Data()); diff != "" || g.Seq() != seq || g.Pending().Size() != pending {
			t.Fatalf("Plan changed the graph:\n%s", diff)
		}
		if diff := quickDiff(plan, Run(g, propNow, p)); diff != "" {
			t.Fatalf("plan and run differ (-plan +run):\n%s", diff)
		}
	})
}

// A run reads only the active and archived nodes; reading every node, as
// Ranks does, must give the very same plan, whatever the orphaned nodes and
// the edges to them.
func TestCompactPropMovableNodesPlanAsAllNodes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g, _, p := genGraph(t)
		// Some nodes orphaned first, so that the sims differ.
		Run(g, propNow, p)
		g.Checkpoint()
		orphan := map[string]bool{}
		for _, n := range g.Nodes() {
			if n.Tier == domain.Archived && rapid.Bool().Draw(t, "orphan "+n.ID) {
				orphan[n.ID] = true
			}
		}
		slots := g.NodeSlots()
		tiers, seqs := make([]domain.Tier, len(slots)), make([]uint64, len(slots))
		changed := uint64(0)
		for i, si := range slots {
			tiers[i] = g.SlotNode(si).Tier
			if orphan[g.SlotNode(si).ID] {
				tiers[i] = domain.Orphaned
				changed++
				seqs[i] = changed
			}
		}
		g.SetTiers(propNow, slots, tiers, seqs)
		now := propNow + domain.Micros(rapid.Int64Range(0, int64(2*domain.Day)).Draw(t, "later"))
		p.MaxTokens = rapid.IntRange(0, 400).Draw(t, "max after")
		all, _ := planOver(g, (*domain.Graph).NodeSlots, now, p, -1)
		movable, _ := planOver(g, (*domain.Graph).MovableSlots, now, p, -1)
		if diff := quickDiff(all, movable); diff != "" {
			t.Fatalf("plans differ (-all nodes +movable nodes):\n%s", diff)
		}
	})
}

func TestCompactPropTierChangesOnceInPassesOneAndOneB(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g, _, p := genGraph(t)
		m := Run(g, propNow, p)
		seen := map[string]string{}
		for _, st := range m.Steps {
			if st.Pass == PassOrphan {
				continue
			}
			if prev, ok := seen[st.ID]; ok {
				t.Fatalf("%s moved twice in passes 1/1b: %s then %s", st.ID, prev, st.Pass)
			}
			seen[st.ID] = st.Pass
		}
		if len(m.Restored) > 0 && m.EstimateAfter > p.Target() {
			t.Fatalf("restored %v but ended at %d > target %d", m.Restored, m.EstimateAfter, p.Target())
		}
	})
}

// TestScoringsDifferential runs both scorings on the same generated graphs:
// each is deterministic (a shuffled copy plans the same), reaches the target
// from above max unless what is left is in grace, keeps the archived ids
// within their budget, never archives a node in grace, and the use scoring
// never archives a node its policy's grace protects, however little it was
// used. The two do not always agree: that is the point, and the test checks
// they sometimes differ.
func TestScoringsDifferential(t *testing.T) {
	differ := 0
	rapid.Check(t, func(t *rapid.T) {
		d := genData(t)
		p := genPolicy(t)
		shuffled := d
		shuffled.Nodes = rapid.Permutation(d.Nodes).Draw(t, "node-order")
		shuffled.Edges = rapid.Permutation(d.Edges).Draw(t, "edge-order")
		plans := map[Scoring]Moves{}
		for _, sc := range []Scoring{ScoringUse, ScoringSeed} {
			p.Scoring = sc
			g, h := restoreData(t, d), restoreData(t, shuffled)
			m := Run(g, propNow, p)
			if diff := quickDiff(m, Run(h, propNow, p)); diff != "" {
				t.Fatalf("%s: a shuffled copy compacts differently (-original +shuffled):\n%s", sc, diff)
			}
			if diff := quickDiff(g.Data(), h.Data()); diff != "" {
				t.Fatalf("%s: graphs differ after the run (-original +shuffled):\n%s", sc, diff)
			}
			after := p.Estimate(g)
			if m.EstimateBefore > p.MaxTokens && after > p.Target() && !allInGrace(g, p) {
				t.Fatalf("%s: estimate %d → %d, target %d, with eligible active nodes left", sc, m.EstimateBefore, after, p.Target())
			}
			if a := g.Stats().Archived; domain.ArchivedIDTokens*a > p.ArchivedBudget() {
				t.Fatalf("%s: %d archived ids over the archived budget %d", sc, a, p.ArchivedBudget())
			}
			nodes := nodeMap(g)
			for _, st := range m.Steps {
				if st.To == domain.Archived && st.From == domain.Active && graceLeft(nodes[st.ID].Created, propNow, p.Grace) != 0 {
					t.Fatalf("%s: %s archived in grace", sc, st.ID)
				}
			}
			plans[sc] = m
		}
		if !cmp.Equal(plans[ScoringUse].Archived, plans[ScoringSeed].Archived) {
			differ++
		}
	})
	if differ == 0 {
		t.Error("the two scorings archived the same nodes on every graph")
	}
}

// TestCompactPropListingChangesNothingButTheList checks RunListing
// against Run on the same graph: the same tiers and seqs afterwards, the
// same id lists and estimates, its steps the first of the full run's, and
// the others counted.
func TestCompactPropListingChangesNothingButTheList(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g, d, p := genGraph(t)
		other := restoreData(t, d)
		list := rapid.IntRange(0, 12).Draw(t, "list")
		all := Run(g, propNow, p)
		some := RunListing(other, propNow, p, list)
		listed := min(list, len(all.Steps))
		if diff := quickDiff(all.Steps[:listed], some.Steps, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("listed steps are not the first of the full run (-full +listed):\n%s", diff)
		}
		if some.Unlisted != len(all.Steps)-listed {
			t.Fatalf("%d unlisted, want %d", some.Unlisted, len(all.Steps)-listed)
		}
		all.Steps, some.Steps, some.Unlisted = nil, nil, 0
		if diff := quickDiff(all, some, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("id lists or estimates differ (-full +listed):\n%s", diff)
		}
		if diff := quickDiff(withoutSeq(g.Data()), withoutSeq(other.Data())); diff != "" || g.Seq() != other.Seq() {
			t.Fatalf("graphs differ after the runs (-full +listed):\n%s", diff)
		}
	})
}
