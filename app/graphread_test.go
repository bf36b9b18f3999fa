package app

import (
	"testing"

	"github.com/kg-memory/kg/domain"
)

func TestReadGraphsListsEveryTierWithoutPromoting(t *testing.T) {
	e := newEnv(t)
	seedTiers(t, e.store)
	e.restart()
	sid := e.session(projA)
	e.put(project(sid), "p", "project node")
	e.edge(project(sid), "p", "src/auth/refresh.py", "touches")
	commits := e.store.count(domain.UserGraph)

	res, err := e.svc.ReadGraphs(e.ctx, Scope{SessionID: sid})
	if err != nil {
		t.Fatal(err)
	}
	tiers := map[string]domain.Tier{}
	for _, n := range res.User.Nodes {
		tiers[n.ID] = n.Tier
	}
	want := map[string]domain.Tier{"a": domain.Archived, "b": domain.Orphaned, "c": domain.Active}
	for id, tier := range want {
		if tiers[id] != tier {
			t.Errorf("user node %s: tier %s, want %s (all: %v)", id, tiers[id], tier, tiers)
		}
	}
	if len(res.User.Edges) != 1 || res.User.Edges[0].Shown {
		t.Errorf("user edges = %+v; want a --leads-to--> b, hidden (archived to orphaned)", res.User.Edges)
	}
	if res.User.Stats.Orphaned != 1 || res.User.MaxTokens != e.cfg.Policy.MaxTokens {
		t.Errorf("user stats = %+v, max %d", res.User.Stats, res.User.MaxTokens)
	}
	if res.Project == nil || res.Project.Key != domain.ProjectGraph(projA) || len(res.Project.Nodes) != 1 ||
		len(res.Project.Edges) != 1 || !res.Project.Edges[0].Shown || res.Project.DurableSeq != res.Project.Seq {
		t.Fatalf("project = %+v", res.Project)
	}

	// Looking changed nothing: no promotion, no commit, no read stamp.
	e.svc.store.WaitIdle()
	if e.store.count(domain.UserGraph) != commits {
		t.Error("reading the graphs wrote the user graph")
	}
	if a, _ := e.store.stored(t, domain.UserGraph, "a"); a.Tier != domain.Archived || a.LastRead != 0 {
		t.Errorf("stored a = %+v, want archived and never read", a)
	}

	// A project by path, or none at all.
	res, err = e.svc.ReadGraphs(e.ctx, Scope{ProjectPath: projB})
	if err != nil || res.Project == nil || res.Project.Key.Project != projB || len(res.Project.Nodes) != 0 {
		t.Errorf("by path: %+v, %v", res.Project, err)
	}
	res, err = e.svc.ReadGraphs(e.ctx, Scope{})
	if err != nil || res.Project != nil || len(res.User.Nodes) != 3 {
		t.Errorf("no project: %+v, %v", res, err)
	}
}

func TestReadGraphsErrors(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	_, err := e.svc.ReadGraphs(e.ctx, Scope{SessionID: "0123456789abcdef"})
	wantKind(t, err, domain.KindNotFound, "session_id")
	_, err = e.svc.ReadGraphs(e.ctx, Scope{ProjectPath: "relative/path"})
	wantKind(t, err, domain.KindInvalid, "project_path")
	_, err = e.svc.ReadGraphs(e.ctx, Scope{SessionID: sid, ProjectPath: projB})
	wantKind(t, err, domain.KindInvalid, "project_path")
}
