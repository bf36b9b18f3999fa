package undo

import (
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
)

// archiveGraph is a graph of the nodes ids, written by session "w", then
// ids[:archive] archived by hand in session "p": the graph and the log.
func archiveGraph(t *testing.T, ids []string, archive int) (*domain.Graph, []domain.HistoryEntry) {
	t.Helper()
	g := domain.NewGraph(domain.UserGraph)
	w, p := domain.Stamp{Now: 100, Session: "w"}, domain.Stamp{Now: 200, Session: "p"}
	g.StartChangeLog()
	for _, id := range ids {
		if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: "about " + id}, w); err != nil {
			t.Fatal(err)
		}
	}
	log := g.TakeChangeLog(w, domain.HistoryPut)
	g.StartChangeLog()
	if _, err := compaction.ArchiveNodes(g, ids[:archive], p.Now); err != nil {
		t.Fatal(err)
	}
	es := g.TakeChangeLog(p, domain.HistoryArchive)
	if len(es) != archive {
		t.Fatalf("the archive logged %d entries, want %d", len(es), archive)
	}
	for _, e := range es {
		if e.Op != domain.HistoryArchive || e.Tier == nil || e.Tier.From != "active" || e.Tier.To != "archived" {
			t.Fatalf("the archive logged %+v, want an archive entry active → archived", e)
		}
	}
	return g, append(log, es...)
}

func tierOf(t *testing.T, g *domain.Graph, id string) domain.Tier {
	t.Helper()
	n, ok := g.Node(id)
	if !ok {
		t.Fatalf("node %q is gone", id)
	}
	return n.Tier
}

// The undo of a session that archived nodes by hand moves them back to
// the active tier (unlike compaction's moves, which it never undoes).
func TestUndoMovesBackWhatAPersonArchived(t *testing.T) {
	g, log := archiveGraph(t, []string{"a", "b", "c", "d"}, 3)
	plan := NewPlan(g, log, Target{Session: "p"})
	if len(plan.Skipped) != 0 || len(plan.Steps) != 3 {
		t.Fatalf("plan %+v: want a, b and c moved back, nothing skipped", plan)
	}
	applied, failed := Apply(g, plan, domain.Stamp{Now: 300, Session: "u"})
	if len(applied) != 3 || len(failed) != 0 {
		t.Fatalf("applied %+v, failed %+v", applied, failed)
	}
	for _, id := range []string{"a", "b", "c", "d"} {
		if tier := tierOf(t, g, id); tier != domain.Active {
			t.Errorf("%s is %s after the undo, want active", id, tier)
		}
	}
	// The writer's session is not undone by the archive's entries.
	if p := NewPlan(g, log, Target{Session: "w"}); len(p.Steps) != 4 {
		t.Errorf("undo of the writer plans %+v, want its 4 nodes deleted", p.Steps)
	}
}

// A node archived by hand and since read (promoted) or deleted is left as
// it is: the first silently, as it is back already; the second named.
func TestUndoOfAnArchiveLeavesWhatMovedSince(t *testing.T) {
	g, log := archiveGraph(t, []string{"a", "b", "c"}, 3)
	if _, err := g.RecallNode("a", domain.Stamp{Now: 250, Session: "r"}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.DeleteNode("b", domain.Stamp{Now: 260, Session: "r"}); err != nil {
		t.Fatal(err)
	}
	plan := NewPlan(g, log, Target{Session: "p"})
	if len(plan.Steps) != 1 || plan.Steps[0].ID != "c" || plan.Steps[0].Action != Retier {
		t.Fatalf("steps %+v: want only c moved back", plan.Steps)
	}
	if len(plan.Skipped) != 1 || plan.Skipped[0].ID != "b" || !strings.Contains(plan.Skipped[0].Reason, "deleted since") {
		t.Fatalf("skipped %+v: want b, deleted since", plan.Skipped)
	}
}

// Compaction's moves stay compaction's: an undo of the session whose write
// set off a compaction run does not move its nodes back.
func TestUndoLeavesCompactionsMoves(t *testing.T) {
	g := domain.NewGraph(domain.UserGraph)
	a := domain.Stamp{Now: 100, Session: "a"}
	g.StartChangeLog()
	if _, err := g.PutNode(domain.NodeInput{ID: "x", Gist: "x"}, a); err != nil {
		t.Fatal(err)
	}
	p := compaction.DefaultPolicy()
	p.MaxTokens, p.Grace = 1, 0
	if m := compaction.Run(g, 200, p); m.Empty() {
		t.Fatalf("compaction moved %+v, want x archived", m)
	}
	log := g.TakeChangeLog(a, domain.HistoryPut)
	for _, st := range NewPlan(g, log, Target{Session: "a"}).Steps {
		if st.Action == Retier {
			t.Fatalf("the undo plans %+v: compaction's move undone", st)
		}
	}
}
