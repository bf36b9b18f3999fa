package compaction

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kg-memory/kg/domain"
)

// TestCompactListingListsTheFirstMovesAndMakesThemAll checks that a run told
// to list fewer moves makes exactly the moves of a full run: the same tiers,
// the same id lists, its listed steps the first steps of the full run, and
// the others counted.
func TestCompactListingListsTheFirstMovesAndMakesThemAll(t *testing.T) {
	nodes := append(line(5, nil),
		cpN{id: "p", ts: 10, tier: domain.Archived},
		cpN{id: "o1", ts: 2, tier: domain.Archived}, cpN{id: "o2", ts: 3, tier: domain.Archived},
		cpN{id: "o3", ts: 4, tier: domain.Archived}, cpN{id: "o4", ts: 5, tier: domain.Archived})
	// Seed scoring: these nodes carry no use count, and under the use
	// scoring their ties make fewer moves than the case needs.
	p := Policy{MaxTokens: 100, Scoring: ScoringSeed}
	full := cpGraph(t, nodes, nil)
	all := Run(full, cpNow, p)
	if len(all.Steps) < 4 {
		t.Fatalf("the full run made %d moves; the case needs several", len(all.Steps))
	}
	for _, list := range []int{0, 1, len(all.Steps) - 1, len(all.Steps), len(all.Steps) + 5} {
		g := cpGraph(t, nodes, nil)
		m := RunListing(g, cpNow, p, list)
		listed := min(list, len(all.Steps))
		if diff := cmp.Diff(all.Steps[:listed], m.Steps, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("list %d: steps are not the first of the full run (-full +listed):\n%s", list, diff)
		}
		if m.Unlisted != len(all.Steps)-listed {
			t.Errorf("list %d: %d unlisted, want %d", list, m.Unlisted, len(all.Steps)-listed)
		}
		short := m
		short.Steps, short.Unlisted = nil, 0
		whole := all
		whole.Steps = nil
		if diff := cmp.Diff(whole, short); diff != "" {
			t.Errorf("list %d: id lists and estimates differ (-full +listed):\n%s", list, diff)
		}
		if diff := cmp.Diff(tiers(full), tiers(g)); diff != "" {
			t.Errorf("list %d: tiers differ (-full +listed):\n%s", list, diff)
		}
	}
}
