package changes

import (
	"slices"
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
)

// coreAt is a stamp at now in session.
func coreAt(now domain.Micros, session string) domain.Stamp {
	return domain.Stamp{Now: now, Session: session}
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

// setTier moves node id to tier at now, taking the next seq as its TierSeq,
// as one change of a compaction run does (Graph.SetTiers): the room cannot
// reach the graph's own setTier.
func setTier(g *domain.Graph, id string, tier domain.Tier, now domain.Micros) {
	for _, si := range g.NodeSlots() {
		if g.SlotNode(si).ID == id {
			g.SetTiers(now, []int32{si}, []domain.Tier{tier}, []uint64{1})
			return
		}
	}
	panic("setTier: no node " + id)
}

// pruneAt prunes, at at, every node orphaned before at.Now (a grace of
// none), and fails the test unless that is exactly want.
func pruneAt(t *testing.T, g *domain.Graph, at domain.Stamp, want ...string) {
	t.Helper()
	p := compaction.DefaultPolicy()
	p.OrphanGrace = 0
	if m := compaction.Prune(g, at, p); !slices.Equal(m.Pruned, want) {
		t.Fatalf("Prune pruned %v, want %v", m.Pruned, want)
	}
}
