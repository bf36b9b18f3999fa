package app

import (
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

func TestDeleteEdge(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	e.edge(project(sid), "a", "https://example.com/x y", "cites")
	k := domain.EdgeKey{From: "a", To: "https://example.com/x y", Rel: "cites"}

	r, err := e.svc.DeleteEdge(e.ctx, Scope{SessionID: sid}, k)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Deleted || r.Level != domain.LevelProject || r.Project != projA {
		t.Errorf("result = %+v", r)
	}
	evs := e.evs(ports.EventEdgeDeleted)
	if len(evs) != 1 || *evs[0].EdgeKey != k || evs[0].SourceSession != sid {
		t.Errorf("events = %+v", evs)
	}

	commits := e.store.count(domain.ProjectGraph(projA))
	r, err = e.svc.DeleteEdge(e.ctx, project(sid), k)
	if err != nil || r.Deleted {
		t.Errorf("deleting a missing edge: %+v, %v; want deleted=false, no error", r, err)
	}
	if e.store.count(domain.ProjectGraph(projA)) != commits {
		t.Error("deleting a missing edge wrote")
	}
	if got := len(e.evs(ports.EventEdgeDeleted)); got != 1 {
		t.Errorf("%d edge_deleted events, want 1", got)
	}
}

func TestDeleteEdgeInBothGraphsNeedsALevel(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	e.edge(user(sid), "a", "b", "r")
	e.edge(project(sid), "a", "b", "r")
	k := domain.EdgeKey{From: "a", To: "b", Rel: "r"}
	_, err := e.svc.DeleteEdge(e.ctx, Scope{SessionID: sid}, k)
	wantKind(t, err, domain.KindInvalid, "level")
	r, err := e.svc.DeleteEdge(e.ctx, user(sid), k)
	if err != nil || !r.Deleted || r.Level != domain.LevelUser {
		t.Errorf("delete at level user: %+v, %v", r, err)
	}
}
