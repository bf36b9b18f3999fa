package undo

import (
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
)

// A write the change log does not hold never gets undone: when the item's
// version is not the one the last undone change left (and no logged move
// since explains it), the item is skipped and named, even if its content
// is what that change left.
func TestUndoSkipsAWriteItHasNoEntryFor(t *testing.T) {
	g := domain.NewGraph(domain.UserGraph)
	a, b := domain.Stamp{Now: 100, Session: "a"}, domain.Stamp{Now: 200, Session: "b"}
	g.StartChangeLog()
	if _, err := g.PutNode(domain.NodeInput{ID: "x", Gist: "same"}, a); err != nil {
		t.Fatal(err)
	}
	if _, err := g.PutEdge(domain.EdgeInput{From: "x", To: "y.go", Rel: "uses"}, a); err != nil {
		t.Fatal(err)
	}
	log := g.TakeChangeLog(a, domain.HistoryPut)
	// Writes of b whose entries are lost: the same content again.
	if _, err := g.PutNode(domain.NodeInput{ID: "x", Gist: "same"}, b); err != nil {
		t.Fatal(err)
	}
	if _, err := g.PutEdge(domain.EdgeInput{From: "x", To: "y.go", Rel: "uses"}, b); err != nil {
		t.Fatal(err)
	}
	plan := NewPlan(g, log, Target{Session: "a"})
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
	g := domain.NewGraph(domain.UserGraph)
	a, b := domain.Stamp{Now: 100, Session: "a"}, domain.Stamp{Now: 300, Session: "b"}
	g.StartChangeLog()
	if _, err := g.PutNode(domain.NodeInput{ID: "x", Gist: "first"}, domain.Stamp{Now: 50, Session: "z"}); err != nil {
		t.Fatal(err)
	}
	log := g.TakeChangeLog(domain.Stamp{Now: 50, Session: "z"}, domain.HistoryPut)
	g.StartChangeLog()
	if _, err := g.PutNode(domain.NodeInput{ID: "x", Gist: "second"}, a); err != nil {
		t.Fatal(err)
	}
	log = append(log, g.TakeChangeLog(a, domain.HistoryPut)...)
	g.StartChangeLog()
	// Compaction archives x, the one node, over a budget below it; the
	// archived id fits the archived budget, so x is not orphaned.
	p := compaction.DefaultPolicy()
	p.MaxTokens, p.Grace = domain.NodeBaseTokens, 0
	if m := compaction.Run(g, 200, p); len(m.Archived) != 1 || len(m.Orphaned) != 0 {
		t.Fatalf("compaction moved %+v, want x archived", m)
	}
	log = append(log, g.TakeChangeLog(domain.Stamp{Now: 200}, domain.HistoryPut)...)
	g.StartChangeLog()
	if _, err := g.RecallNode("x", b); err != nil {
		t.Fatal(err)
	}
	es := g.TakeChangeLog(b, domain.HistoryMove)
	if len(es) != 1 || es[0].Op != domain.HistoryMove {
		t.Fatalf("the promotion logged %+v, want one move", es)
	}
	log = append(log, es...)
	plan := NewPlan(g, log, Target{Session: "a"})
	if len(plan.Skipped) != 0 || len(plan.Steps) != 1 || plan.Steps[0].Node.Gist != "first" {
		t.Fatalf("plan %+v: want x restored to its gist before a", plan)
	}
}
