package app

import (
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

func TestDeleteNode(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	e.put(project(sid), "p", "only in project")
	e.put(project(sid), "q", "neighbour")
	e.edge(project(sid), "p", "q", "rel")
	e.edge(project(sid), "q", "p", "back")

	r, err := e.svc.DeleteNode(e.ctx, Scope{SessionID: sid}, "p")
	if err != nil {
		t.Fatal(err)
	}
	if r.Level != domain.LevelProject || r.Project != projA || r.EdgesDeleted != 2 || r.ID != "p" {
		t.Errorf("result = %+v", r)
	}
	if _, ok := e.store.stored(t, domain.ProjectGraph(projA), "p"); ok {
		t.Error("deleted node still stored")
	}
	evs := e.evs(ports.EventNodeDeleted)
	if len(evs) != 1 || evs[0].NodeID != "p" || evs[0].EdgesDeleted != 2 || evs[0].SourceSession != sid || evs[0].Seq == 0 {
		t.Errorf("events = %+v", evs)
	}

	_, err = e.svc.DeleteNode(e.ctx, Scope{SessionID: sid}, "p")
	de := wantKind(t, err, domain.KindNotFound, "id")
	if de.Error() != `id: node "p" not found in user or project graph` {
		t.Errorf("message %q", de.Error())
	}
	_, err = e.svc.DeleteNode(e.ctx, user(sid), "q")
	wantKind(t, err, domain.KindNotFound, "id")
}

func TestDeleteNodeInBothGraphsNeedsALevel(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	e.put(user(sid), "dup", "user copy")
	e.put(project(sid), "dup", "project copy")

	_, err := e.svc.DeleteNode(e.ctx, Scope{SessionID: sid}, "dup")
	wantKind(t, err, domain.KindInvalid, "level")
	if _, ok := e.store.stored(t, domain.UserGraph, "dup"); !ok {
		t.Fatal("an ambiguous delete deleted something")
	}

	r, err := e.svc.DeleteNode(e.ctx, project(sid), "dup")
	if err != nil || r.Level != domain.LevelProject {
		t.Fatalf("delete at level project: %+v, %v", r, err)
	}
	if _, ok := e.store.stored(t, domain.UserGraph, "dup"); !ok {
		t.Error("the user copy went too")
	}
	// Now only the user copy is left: no level needed.
	if r, err := e.svc.DeleteNode(e.ctx, Scope{SessionID: sid}, "dup"); err != nil || r.Level != domain.LevelUser {
		t.Errorf("delete without level: %+v, %v", r, err)
	}
}
