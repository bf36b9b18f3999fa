package app

import (
	"context"
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

func TestPutEdge(t *testing.T) {
	e := newEnv(t)
	sid := e.session("")
	e.put(user(sid), "a", "node a")
	r, err := e.svc.PutEdge(e.ctx, user(sid), domain.EdgeInput{From: "a", To: "src/a.go", Rel: "touches", Notes: []string{"n"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Level != domain.LevelUser || r.Edge.Version.V != 1 || len(r.Edge.Notes) != 1 {
		t.Errorf("result = %+v", r)
	}
	r, err = e.svc.PutEdge(e.ctx, user(sid), domain.EdgeInput{From: "a", To: "src/a.go", Rel: "touches"})
	if err != nil || r.Edge.Version.V != 2 || len(r.Edge.Notes) != 1 {
		t.Errorf("upsert keeping notes: %+v, %v", r.Edge, err)
	}
	d, _ := e.store.Load(context.Background(), domain.UserGraph)
	if len(d.Edges) != 1 {
		t.Errorf("stored %d edges, want 1", len(d.Edges))
	}
	if evs := e.evs(ports.EventEdgeUpdated); len(evs) != 2 || evs[0].Edge.To != "src/a.go" || evs[0].SourceSession != sid {
		t.Errorf("events = %+v", evs)
	}

	_, err = e.svc.PutEdge(e.ctx, user(sid), domain.EdgeInput{From: "a", To: "b", Rel: "has space"})
	wantKind(t, err, domain.KindInvalid, "rel")
	_, err = e.svc.PutEdge(e.ctx, project(sid), domain.EdgeInput{From: "a", To: "b", Rel: "r"})
	wantKind(t, err, domain.KindInvalid, "session_id")
}
