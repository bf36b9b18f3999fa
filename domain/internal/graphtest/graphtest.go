// Package graphtest builds graphs for the tests of domain's rooms: a node, an
// edge or a tier change, failing the test on error. It is the fixture each
// room's tests shared by copy before; domain's own internal tests cannot
// import it (it imports domain) and keep theirs.
package graphtest

import "github.com/kg-memory/kg/domain"

// T is what the helpers need of a test (*testing.T, *testing.B or a
// property test's *rapid.T).
type T interface {
	Helper()
	Fatalf(format string, args ...any)
}

// At is the stamp of a change made at now by session ("" for none).
func At(now domain.Micros, session string) domain.Stamp {
	return domain.Stamp{Now: now, Session: session}
}

// Put puts a node at time 1 without a session.
func Put(t T, g *domain.Graph, id, gist string, notes, touches []string) *domain.Node {
	t.Helper()
	return PutAt(t, g, At(1, ""), id, gist, notes, touches)
}

// PutAt puts a node with stamp at.
func PutAt(t T, g *domain.Graph, at domain.Stamp, id, gist string, notes, touches []string) *domain.Node {
	t.Helper()
	n, err := g.PutNode(domain.NodeInput{ID: id, Gist: gist, Notes: notes, Touches: touches}, at)
	if err != nil {
		t.Fatalf("PutNode(%q): %v", id, err)
	}
	return n
}

// Edge puts an edge with stamp at.
func Edge(t T, g *domain.Graph, at domain.Stamp, from, rel, to string) *domain.Edge {
	t.Helper()
	e, err := g.PutEdge(domain.EdgeInput{From: from, To: to, Rel: rel}, at)
	if err != nil {
		t.Fatalf("PutEdge(%s --%s--> %s): %v", from, rel, to, err)
	}
	return e
}

// SetTier moves node id to tier at now, taking the next seq as its TierSeq,
// as one change of a compaction run does (Graph.SetTiers): a room cannot
// reach the graph's own setTier.
func SetTier(t T, g *domain.Graph, id string, tier domain.Tier, now domain.Micros) {
	t.Helper()
	si, ok := g.NodeSlot(id)
	if !ok {
		t.Fatalf("SetTier: no node %q", id)
	}
	g.SetTiers(now, []int32{si}, []domain.Tier{tier}, []uint64{1})
}
