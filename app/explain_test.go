package app

import (
	"testing"

	"github.com/kg-memory/kg/domain"
)

func TestExplainCompactionRanksEveryNode(t *testing.T) {
	e, sid := overBudget(t)
	commits := e.store.count(domain.UserGraph)

	ex, err := e.svc.ExplainCompaction(e.ctx, user(sid))
	if err != nil {
		t.Fatal(err)
	}
	plan := ex.Plan
	if len(plan.Archived) == 0 {
		t.Fatal("the over-budget graph has nothing to archive")
	}
	if ex.MaxTokens != 200 || ex.Target != 160 || ex.ArchivedBudget != 60 || ex.Key != domain.UserGraph {
		t.Errorf("budgets = %d/%d/%d, key %v", ex.MaxTokens, ex.Target, ex.ArchivedBudget, ex.Key)
	}
	if len(ex.Ranking) != 9 {
		t.Fatalf("ranking has %d nodes, want all 9", len(ex.Ranking))
	}
	// Ranked 1, 2, … in the order a run archives: the plan's archives are
	// the first of them.
	for i, id := range plan.Archived {
		if r := ex.Ranking[i]; r.ID != id || r.Position != i+1 {
			t.Errorf("ranking[%d] = %s at %d; the plan archives %s %d-th", i, r.ID, r.Position, id, i+1)
		}
	}
	for i, r := range ex.Ranking {
		if !r.Eligible || r.Position != i+1 || r.Tier != domain.Active || r.PRecency < 0 || r.PRecency > 1 {
			t.Errorf("ranked node %+v", r)
		}
		if i > 0 && r.Score < ex.Ranking[i-1].Score {
			t.Errorf("%s (%.4f) ranks after %s (%.4f)", r.ID, r.Score, ex.Ranking[i-1].ID, ex.Ranking[i-1].Score)
		}
	}
	if e.store.count(domain.UserGraph) != commits {
		t.Error("explaining wrote the graph")
	}

	// After the run, the archived are listed after the ranked, unranked.
	if _, err := e.svc.Compact(e.ctx, user(sid)); err != nil {
		t.Fatal(err)
	}
	ex, err = e.svc.ExplainCompaction(e.ctx, user(sid))
	if err != nil {
		t.Fatal(err)
	}
	ranked := 9 - len(plan.Archived)
	for i, r := range ex.Ranking {
		if i < ranked && (r.Position != i+1 || r.Tier != domain.Active) {
			t.Errorf("after the run, ranking[%d] = %+v; want active at %d", i, r, i+1)
		}
		if i >= ranked && (r.Position != 0 || r.Tier != domain.Archived || r.Score != 0) {
			t.Errorf("after the run, ranking[%d] = %+v; want archived, unranked", i, r)
		}
	}

	_, err = e.svc.ExplainCompaction(e.ctx, Scope{SessionID: sid})
	wantKind(t, err, domain.KindInvalid, "level")
}

func TestExplainCompactionShowsGraceLeft(t *testing.T) {
	e := newEnv(t)
	sid := e.session("")
	e.put(user(sid), "young", "in grace")
	ex, err := e.svc.ExplainCompaction(e.ctx, user(sid))
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Ranking) != 1 {
		t.Fatalf("ranking = %+v", ex.Ranking)
	}
	if r := ex.Ranking[0]; r.ID != "young" || r.Position != 0 || r.Eligible || r.GraceLeft != domain.Days(5) {
		t.Errorf("the node in grace = %+v; want unranked, not eligible, 5 days of grace left", r)
	}
}
