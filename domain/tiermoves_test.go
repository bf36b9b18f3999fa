package domain

import "testing"

// The seams domain keeps for compaction's tier moves by id and its
// deletions (docs/decisions/0111-tier-moves-in-compaction.md) on what the
// room never hands them: a name that is no node, a tombstone that is not
// there. The room's own tests (domain/compaction) check them on the rest.
func TestTierMoveSeamsOnMissingItems(t *testing.T) {
	g := cpGraph(t, []cpN{{id: "a"}}, []cpE{{"a", "file.go"}})
	if si, ok := g.NodeSlot("a"); !ok || g.SlotNode(si).ID != "a" {
		t.Fatalf("NodeSlot(a) = %d, %v: want a's slot", si, ok)
	}
	for _, id := range []string{"file.go", "nope"} { // an edge end only; nothing
		if _, ok := g.NodeSlot(id); ok {
			t.Errorf("NodeSlot(%q) found a node", id)
		}
	}
	seq := g.Seq()
	if _, err := g.PruneNode("nope", Stamp{Now: cpNow}); KindOf(err) != KindNotFound {
		t.Errorf("PruneNode(nope) = %v, want not found", err)
	}
	g.DropTombstones([]string{"a", "nope"}, []EdgeKey{{From: "a", To: "file.go", Rel: "r"}})
	if g.Seq() != seq || !g.Pending().Empty() || g.NodeCount() != 1 || g.EdgeCount() != 1 {
		t.Errorf("seq %d → %d, pending %+v, %d nodes, %d edges: want nothing changed",
			seq, g.Seq(), g.Pending(), g.NodeCount(), g.EdgeCount())
	}
}
