package fullread

import (
	"testing"

	"github.com/kg-memory/kg/domain"
)

// coreAt is a stamp at now in session.
func coreAt(now domain.Micros, session string) domain.Stamp {
	return domain.Stamp{Now: now, Session: session}
}

// corePut puts a node at time 1 without a session and fails the test on
// error.
func corePut(t *testing.T, g *domain.Graph, id, gist string, notes, touches []string) *domain.Node {
	t.Helper()
	return corePutAt(t, g, coreAt(1, ""), id, gist, notes, touches)
}

// corePutAt puts a node with stamp at and fails the test on error.
func corePutAt(t *testing.T, g *domain.Graph, at domain.Stamp, id, gist string, notes, touches []string) *domain.Node {
	t.Helper()
	n, err := g.PutNode(domain.NodeInput{ID: id, Gist: gist, Notes: notes, Touches: touches}, at)
	if err != nil {
		t.Fatalf("PutNode(%q): %v", id, err)
	}
	return n
}

// coreEdge puts an edge with stamp at and fails the test on error.
func coreEdge(t *testing.T, g *domain.Graph, at domain.Stamp, from, rel, to string) *domain.Edge {
	t.Helper()
	e, err := g.PutEdge(domain.EdgeInput{From: from, To: to, Rel: rel}, at)
	if err != nil {
		t.Fatalf("PutEdge(%s --%s--> %s): %v", from, rel, to, err)
	}
	return e
}

// setTier moves node id to tier at now, as one compaction run of a single
// move does (Graph.SetTiers).
func setTier(t *testing.T, g *domain.Graph, id string, tier domain.Tier, now domain.Micros) {
	t.Helper()
	for si := range int32(g.SlotCount()) {
		if n := g.SlotNode(si); n != nil && n.ID == id {
			g.SetTiers(now, []int32{si}, []domain.Tier{tier}, []uint64{1})
			return
		}
	}
	t.Fatalf("setTier: no node %q", id)
}
