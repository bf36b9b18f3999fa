package app

import (
	"testing"
	"time"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

func TestTickAppliesReadStamps(t *testing.T) {
	e := newEnv(t)
	sid := e.session("")
	e.put(user(sid), "n", "g")
	e.clock.Advance(time.Hour)
	if _, err := e.svc.Read(e.ctx, ReadRequest{SessionID: sid, IDs: []string{"n"}}); err != nil {
		t.Fatal(err)
	}
	e.svc.maint.Tick(e.ctx)
	if n, _ := e.store.stored(t, domain.UserGraph, "n"); n.LastRead != e.clock.Now() {
		t.Errorf("stored last read %d, want %d after the tick", n.LastRead, e.clock.Now())
	}
}

func TestTickCompacts(t *testing.T) {
	e, _ := overBudget(t)
	e.svc.maint.Tick(e.ctx)
	if storedTiers(t, e, domain.UserGraph)[domain.Archived] == 0 {
		t.Error("the tick archived nothing in a graph over budget")
	}
	evs := e.evs(ports.EventCompacted)
	if len(evs) != 1 || evs[0].SourceSession != "" {
		t.Errorf("compacted events = %+v, want one from no session", evs)
	}
}

func TestTickPrunes(t *testing.T) {
	e := newEnv(t)
	now := domain.Micros(t0.UnixMicro())
	e.store.seed(t, domain.UserGraph, domain.GraphData{
		Nodes: []domain.Node{
			{ID: "old", Gist: "orphaned long ago", Tier: domain.Orphaned, OrphanedAt: now - domain.Days(400), Version: domain.Version{V: 1, TS: now - domain.Days(500), Seq: 1}},
			{ID: "recent", Gist: "orphaned lately", Tier: domain.Orphaned, OrphanedAt: now - domain.Days(10), Version: domain.Version{V: 1, TS: now - domain.Days(500), Seq: 2}},
		},
		Edges: []domain.Edge{{From: "old", To: "file.go", Rel: "touches", Version: domain.Version{V: 1, TS: now - domain.Days(500), Seq: 3}}},
		Seq:   3,
	})
	e.restart()
	e.svc.maint.Tick(e.ctx)
	if _, ok := e.store.stored(t, domain.UserGraph, "old"); ok {
		t.Error("a node orphaned past the grace survived the tick")
	}
	if _, ok := e.store.stored(t, domain.UserGraph, "recent"); !ok {
		t.Error("a node within the orphan grace was pruned")
	}
	d, _ := e.store.Store.Load(e.ctx, domain.UserGraph)
	if tb, ok := d.NodeTombstones["old"]; !ok || !tb.Pruned {
		t.Errorf("tombstone of the pruned node = %+v, %v; want pruned", tb, ok)
	}
	if len(d.Edges) != 0 {
		t.Errorf("edges of the pruned node kept: %+v", d.Edges)
	}
}

func TestTickExpiresTombstones(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	e.put(project(sid), "gone", "to be deleted")
	if _, err := e.svc.DeleteNode(e.ctx, project(sid), "gone"); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(31 * 24 * time.Hour)
	e.svc.maint.Tick(e.ctx)
	d, _ := e.store.Store.Load(e.ctx, domain.ProjectGraph(projA))
	if _, ok := d.NodeTombstones["gone"]; ok {
		t.Error("a tombstone older than 30 days survived the tick")
	}
}

func TestTickSurvivesAFailingGraph(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	e.put(project(sid), "gone", "to be deleted")
	if _, err := e.svc.DeleteNode(e.ctx, project(sid), "gone"); err != nil {
		t.Fatal(err)
	}
	e.store.failCommits(domain.UserGraph, errAny)
	e.clock.Advance(31 * 24 * time.Hour)
	e.svc.maint.Tick(e.ctx)
	d, _ := e.store.Store.Load(e.ctx, domain.ProjectGraph(projA))
	if _, ok := d.NodeTombstones["gone"]; ok {
		t.Error("the project graph was not maintained after the user graph failed")
	}
}

func TestTickExpiresAndSavesSessions(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.SessionTTL = 3600 * domain.Second })
	old := e.session("")
	e.clock.Advance(30 * time.Minute)
	live := e.session("")
	e.clock.Advance(45 * time.Minute)
	e.svc.maint.Tick(e.ctx)
	stored, _ := e.store.LoadSessions(e.ctx)
	if _, ok := stored[old]; ok {
		t.Error("expired session still stored after the tick")
	}
	if _, ok := stored[live]; !ok {
		t.Error("live session dropped")
	}
}
