package app

import (
	"errors"
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
)

func TestHealthReportsAGraphThatCannotBeLoaded(t *testing.T) {
	e := newEnv(t)
	sid := e.session("")
	e.store.mu.Lock()
	e.store.loadFail[domain.ProjectGraph(projB)] = errors.New("bad json at byte 12")
	e.store.mu.Unlock()

	_, err := e.svc.PutNode(e.ctx, Scope{Level: domain.LevelProject, ProjectPath: projB}, domain.NodeInput{ID: "x", Gist: "y"})
	wantKind(t, err, domain.KindUnavailable, "")
	h := e.svc.Health(e.ctx)
	if len(h.Problems) != 1 || !strings.Contains(h.Problems[0], projB) {
		t.Errorf("problems = %q, want one naming %s", h.Problems, projB)
	}
	if h.ActiveSessions != 1 || h.LoadedGraphs != 1 {
		t.Errorf("health = %+v, want 1 session, 1 graph loaded", h)
	}
	// Every other graph keeps working.
	e.put(user(sid), "u", "still fine")
	e.put(Scope{Level: domain.LevelProject, ProjectPath: projA}, "a", "still fine")

	// Repaired: the next request loads it and the problem is gone.
	e.store.mu.Lock()
	delete(e.store.loadFail, domain.ProjectGraph(projB))
	e.store.mu.Unlock()
	e.put(Scope{Level: domain.LevelProject, ProjectPath: projB}, "x", "y")
	if h := e.svc.Health(e.ctx); len(h.Problems) != 0 || h.LoadedGraphs != 3 {
		t.Errorf("health after repair = %+v", h)
	}
}

func TestUserGraphThatCannotBeLoadedDoesNotStopTheService(t *testing.T) {
	e := newEnv(t)
	if err := e.svc.Close(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.store.loadFail[domain.UserGraph] = errors.New("damaged")
	e.svc = e.open()
	if h := e.svc.Health(e.ctx); len(h.Problems) != 1 {
		t.Errorf("problems = %q", h.Problems)
	}
	_, err := e.svc.Read(e.ctx, ReadRequest{CWD: projA})
	wantKind(t, err, domain.KindUnavailable, "")
	e.put(Scope{Level: domain.LevelProject, ProjectPath: projA}, "a", "the project graph works")
}
