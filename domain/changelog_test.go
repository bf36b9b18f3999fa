package domain

import (
	"fmt"
	"strings"
	"testing"
)

// An identical re-put by another session is a put in the change log: it
// bumps the version and the seq like any put (issue 28, item 1).
func TestAnIdenticalRePutIsLogged(t *testing.T) {
	g := NewGraph(UserGraph)
	a, b := Stamp{Now: 100, Session: "a"}, Stamp{Now: 200, Session: "b"}
	g.StartChangeLog()
	if _, err := g.PutNode(NodeInput{ID: "x", Gist: "same"}, a); err != nil {
		t.Fatal(err)
	}
	g.TakeChangeLog(a, HistoryPut)
	g.StartChangeLog()
	if _, err := g.PutNode(NodeInput{ID: "x", Gist: "same"}, b); err != nil {
		t.Fatal(err)
	}
	es := g.TakeChangeLog(b, HistoryPut)
	if len(es) != 1 || es[0].Op != HistoryPut || es[0].Session != "b" || es[0].Seq != 2 {
		t.Fatalf("the identical re-put logged %+v, want one put of b at seq 2", es)
	}
}

// TestChangeLogEntries: a write's entries name the item, the op, the seq and
// the values before and after; a read stamp logs nothing; a compaction
// move logs the tier change alone.
func TestChangeLogEntries(t *testing.T) {
	g := NewGraph(UserGraph)
	at := Stamp{Now: 100, Session: "s1"}
	g.StartChangeLog()
	if _, err := g.PutNode(NodeInput{ID: "a", Gist: "one"}, at); err != nil {
		t.Fatal(err)
	}
	if _, err := g.PutEdge(EdgeInput{From: "a", To: "b.go", Rel: "touches"}, at); err != nil {
		t.Fatal(err)
	}
	es := g.TakeChangeLog(at, HistoryPut)
	if len(es) != 2 || es[0].Op != HistoryPut || es[0].ID != "a" || es[0].BeforeNode != nil || es[0].AfterNode.Gist != "one" ||
		es[0].Seq != 1 || !es[1].Edge || es[1].Seq != 2 || es[0].Session != "s1" || es[0].Time != 100 {
		t.Fatalf("entries %+v", es)
	}
	g.StartChangeLog()
	g.StampRead("a", 200)
	if es := g.TakeChangeLog(at, HistoryPut); len(es) != 0 {
		t.Fatalf("a read stamp logged %+v", es)
	}
	g.StartChangeLog()
	g.setTier("a", Archived, 300)
	es = g.TakeChangeLog(Stamp{Now: 300}, HistoryPut)
	if len(es) != 1 || es[0].Op != HistoryMove || es[0].Tier == nil || *es[0].Tier != (TierChange{From: "active", To: "archived"}) ||
		es[0].BeforeNode != nil || es[0].AfterNode != nil {
		t.Fatalf("move logged %+v", es)
	}
	g.StartChangeLog()
	if _, err := g.DeleteNode("a", Stamp{Now: 400, Session: "s2"}); err != nil {
		t.Fatal(err)
	}
	es = g.TakeChangeLog(Stamp{Now: 400, Session: "s2"}, HistoryPut)
	if len(es) != 2 || es[0].Op != HistoryDelete || !es[0].Edge || es[1].Op != HistoryDelete || es[1].ID != "a" || es[1].AfterNode != nil {
		t.Fatalf("delete logged %+v", es)
	}
	// The diff of the deletion: domain/changes's TestDiffOfADeletedNode.
}

// TestChangeLogOfAHugeWrite: a write that changes more than MaxLoggedItems
// items is one entry of the whole graph, holding none of them.
func TestChangeLogOfAHugeWrite(t *testing.T) {
	g := NewGraph(UserGraph)
	at := Stamp{Now: 100, Session: "bulk"}
	g.StartChangeLog()
	for i := range MaxLoggedItems + 1 {
		if _, err := g.PutNode(NodeInput{ID: fmt.Sprintf("n%d", i), Gist: "bulk"}, at); err != nil {
			t.Fatal(err)
		}
	}
	es := g.TakeChangeLog(at, HistoryImportReplace)
	if len(es) != 1 || !es[0].Graph || len(es[0].Items) != 0 || es[0].Op != HistoryImportReplace || es[0].Seq != g.Seq() ||
		!strings.Contains(es[0].Detail, "too many to keep one by one") {
		t.Fatalf("entries of a huge write: %d, first %+v", len(es), es[0])
	}
}
