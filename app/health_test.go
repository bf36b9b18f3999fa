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

// With the user graph unloadable, a session still starts: the full read
// serves the project graph and says in one field why the user graph is
// missing; tools aimed at the user graph get unavailable naming it.
func TestUserGraphThatCannotBeLoadedDoesNotStopTheService(t *testing.T) {
	e := newEnv(t)
	if err := e.svc.Close(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.store.loadFail[domain.UserGraph] = errors.New("damaged")
	e.svc = e.open()
	if h := e.svc.Health(e.ctx); len(h.Problems) != 1 || !strings.Contains(h.Problems[0], "user graph") {
		t.Errorf("problems = %q, want one naming the user graph", h.Problems)
	}
	e.put(Scope{Level: domain.LevelProject, ProjectPath: projA}, "a", "the project graph works")

	res, err := e.svc.Read(e.ctx, ReadRequest{CWD: projA})
	if err != nil {
		t.Fatalf("kg_read with cwd: %v", err)
	}
	if !res.NewSession || res.Full == nil || res.Full.Project == nil {
		t.Fatalf("read = %+v, want a new session with the full read of the project", res)
	}
	if u := res.Full.User.Unavailable; !strings.Contains(u, "user graph") || !strings.Contains(u, "damaged") {
		t.Errorf("user section says %q, want why the user graph is unavailable", u)
	}
	if p := res.Full.Project; p.Unavailable != "" || len(p.View.Active) != 1 || p.View.Active[0].ID != "a" {
		t.Errorf("project section = %+v, want the node a", p)
	}

	_, err = e.svc.PutNode(e.ctx, user(res.SessionID), domain.NodeInput{ID: "u", Gist: "g"})
	if de := wantKind(t, err, domain.KindUnavailable, ""); !strings.Contains(de.Error(), "user graph") {
		t.Errorf("put to the user graph: %q does not name it", de)
	}
	e.put(project(res.SessionID), "b", "writes to the project go on")
	if _, err := e.svc.Read(e.ctx, ReadRequest{SessionID: res.SessionID}); err != nil {
		t.Errorf("the session's next full read: %v", err)
	}
}
