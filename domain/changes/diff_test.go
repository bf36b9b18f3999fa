package changes

import (
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/internal/graphtest"
)

// The readable diff of a deleted node is its gist, gone; its notes and
// touches, empty before and after, are not shown. (It was the last check of
// domain's TestChangeLogEntries, whose node was archived before the
// deletion: a tier is no field of a diff.)
func TestDiffOfADeletedNode(t *testing.T) {
	g := domain.NewGraph(domain.UserGraph)
	at := domain.Stamp{Now: 100, Session: "s1"}
	if _, err := g.PutNode(domain.NodeInput{ID: "a", Gist: "one"}, at); err != nil {
		t.Fatal(err)
	}
	if _, err := g.PutEdge(domain.EdgeInput{From: "a", To: "b.go", Rel: "touches"}, at); err != nil {
		t.Fatal(err)
	}
	graphtest.SetTier(t, g, "a", domain.Archived, 300)
	g.StartChangeLog()
	if _, err := g.DeleteNode("a", domain.Stamp{Now: 400, Session: "s2"}); err != nil {
		t.Fatal(err)
	}
	es := g.TakeChangeLog(domain.Stamp{Now: 400, Session: "s2"}, domain.HistoryPut)
	if len(es) != 2 || es[1].Op != domain.HistoryDelete || es[1].ID != "a" || es[1].AfterNode != nil {
		t.Fatalf("delete logged %+v", es)
	}
	if d := Diff(es[1].ItemChange); len(d) != 1 || d[0].Field != "gist" || d[0].Before != "one" || d[0].After != "" {
		t.Fatalf("diff %+v", d)
	}
}
