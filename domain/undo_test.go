package domain

import (
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

// A write the change log does not hold never gets undone: when the item's
// version is not the one the last undone change left (and no logged move
// since explains it), the item is skipped and named, even if its content
// is what that change left.
func TestUndoSkipsAWriteItHasNoEntryFor(t *testing.T) {
	g := NewGraph(UserGraph)
	a, b := Stamp{Now: 100, Session: "a"}, Stamp{Now: 200, Session: "b"}
	g.StartChangeLog()
	if _, err := g.PutNode(NodeInput{ID: "x", Gist: "same"}, a); err != nil {
		t.Fatal(err)
	}
	if _, err := g.PutEdge(EdgeInput{From: "x", To: "y.go", Rel: "uses"}, a); err != nil {
		t.Fatal(err)
	}
	log := g.TakeChangeLog(a, HistoryPut)
	// Writes of b whose entries are lost: the same content again.
	if _, err := g.PutNode(NodeInput{ID: "x", Gist: "same"}, b); err != nil {
		t.Fatal(err)
	}
	if _, err := g.PutEdge(EdgeInput{From: "x", To: "y.go", Rel: "uses"}, b); err != nil {
		t.Fatal(err)
	}
	plan := PlanUndo(g, log, UndoTarget{Session: "a"})
	if len(plan.Steps) != 0 || len(plan.Skipped) != 2 {
		t.Fatalf("plan %+v: want nothing undone and both items skipped", plan)
	}
	for _, s := range plan.Skipped {
		if !strings.Contains(s.Reason, "the history does not hold") {
			t.Errorf("skip %+v does not say why", s)
		}
	}
}

// A read that promoted (a write of op HistoryMove) bumps the node's version
// but is a move: it is not someone else's change, and the undo of the
// session that wrote the node still puts it back.
func TestUndoLooksThroughAPromotionByRead(t *testing.T) {
	g := NewGraph(UserGraph)
	a, b := Stamp{Now: 100, Session: "a"}, Stamp{Now: 300, Session: "b"}
	g.StartChangeLog()
	if _, err := g.PutNode(NodeInput{ID: "x", Gist: "first"}, Stamp{Now: 50, Session: "z"}); err != nil {
		t.Fatal(err)
	}
	log := g.TakeChangeLog(Stamp{Now: 50, Session: "z"}, HistoryPut)
	g.StartChangeLog()
	if _, err := g.PutNode(NodeInput{ID: "x", Gist: "second"}, a); err != nil {
		t.Fatal(err)
	}
	log = append(log, g.TakeChangeLog(a, HistoryPut)...)
	g.StartChangeLog()
	g.setTier("x", Archived, 200)
	log = append(log, g.TakeChangeLog(Stamp{Now: 200}, HistoryPut)...)
	g.StartChangeLog()
	if _, err := g.RecallNode("x", b); err != nil {
		t.Fatal(err)
	}
	es := g.TakeChangeLog(b, HistoryMove)
	if len(es) != 1 || es[0].Op != HistoryMove {
		t.Fatalf("the promotion logged %+v, want one move", es)
	}
	log = append(log, es...)
	plan := PlanUndo(g, log, UndoTarget{Session: "a"})
	if len(plan.Skipped) != 0 || len(plan.Steps) != 1 || plan.Steps[0].Node.Gist != "first" {
		t.Fatalf("plan %+v: want x restored to its gist before a", plan)
	}
}
