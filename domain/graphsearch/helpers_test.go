package graphsearch

import (
	"testing"

	"github.com/kg-memory/kg/domain"
)

// failer is what the helpers need of a test.
type failer interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// coreAt is the stamp of a change made at now by session.
func coreAt(now domain.Micros, session string) domain.Stamp {
	return domain.Stamp{Now: now, Session: session}
}

// corePut puts a node at time 1 without a session and fails the test on
// error.
func corePut(t failer, g *domain.Graph, id, gist string, notes, touches []string) *domain.Node {
	t.Helper()
	n, err := g.PutNode(domain.NodeInput{ID: id, Gist: gist, Notes: notes, Touches: touches}, coreAt(1, ""))
	if err != nil {
		t.Fatalf("PutNode(%q): %v", id, err)
	}
	return n
}

// coreEdge puts an edge with stamp at and fails the test on error.
func coreEdge(t failer, g *domain.Graph, at domain.Stamp, from, rel, to string) *domain.Edge {
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

// hitNames renders hits as "key/id" for compact comparisons.
func hitNames(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Key.String() + "/" + h.Node.ID
	}
	return out
}

func hitNamesOf(t failer, g *domain.Graph, q string) []string {
	t.Helper()
	res, err := Find([]*domain.Graph{g}, q, 0)
	if err != nil {
		t.Fatalf("Find(%q): %v", q, err)
	}
	return hitNames(res.Hits)
}

func searchOne(t *testing.T, graphs []*domain.Graph, q string) Result {
	t.Helper()
	res, err := Find(graphs, q, 0)
	if err != nil {
		t.Fatalf("Find(%q): %v", q, err)
	}
	return res
}
