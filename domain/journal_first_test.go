package domain

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestJournalKeepsTheFirstChangeOfAnItem checks that an item changed several
// times in one batch is journaled once, with its value at the checkpoint:
// the versions in between are not held until the save (an import compacted
// in the same batch would keep each imported node under the version
// compaction made of it), and Rollback still returns to the checkpoint.
func TestJournalKeepsTheFirstChangeOfAnItem(t *testing.T) {
	g := cpGraph(t, line(3, nil), []cpE{{"n1", "n2"}})
	before := g.Data()
	at := Stamp{Now: cpNow, Session: "s"}
	for i, gist := range []string{"one", "two", "three"} {
		if _, err := g.PutNode(NodeInput{ID: "new", Gist: gist}, at); err != nil {
			t.Fatal(err)
		}
		if _, err := g.PutNode(NodeInput{ID: "n1", Gist: gist}, at); err != nil {
			t.Fatal(err)
		}
		if _, err := g.PutEdge(EdgeInput{From: "n1", To: "n2", Rel: "r", Notes: []string{gist}}, at); err != nil {
			t.Fatalf("change %d: %v", i, err)
		}
	}
	// Archived, as a compaction run would: another version of each.
	setTiers(g, cpNow, map[string]Tier{"n1": Archived, "n2": Archived, "n3": Archived, "new": Archived})
	if pn := len(g.Pending().Nodes); pn < 3 || len(g.nodeUndos) != pn || len(g.edgeUndos) != 1 {
		t.Errorf("journal holds %d node and %d edge entries for %d nodes and 1 edge changed; want one per item changed", len(g.nodeUndos), len(g.edgeUndos), pn)
	}
	for _, u := range g.nodeUndos {
		if old := before.nodeByID(u.id); (old == nil) != (u.old == nil) || (old != nil && old.Gist != u.old.Gist) {
			t.Errorf("journal entry of %s holds %+v, want its value at the checkpoint %+v", u.id, u.old, old)
		}
	}
	g.Rollback()
	after := g.Data()
	after.Seq = before.Seq
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("after rollback (-before +after):\n%s", diff)
	}
}

// nodeByID is the node of d with id, or nil.
func (d GraphData) nodeByID(id string) *Node {
	for i := range d.Nodes {
		if d.Nodes[i].ID == id {
			return &d.Nodes[i]
		}
	}
	return nil
}
