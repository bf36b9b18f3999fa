package app

import (
	"testing"

	"github.com/kg-memory/kg/domain"
)

func TestProjects(t *testing.T) {
	e := newEnv(t)
	e.put(Scope{Level: domain.LevelProject, ProjectPath: projB}, "b1", "one")
	e.put(Scope{Level: domain.LevelProject, ProjectPath: projB}, "b2", "two")
	e.put(Scope{Level: domain.LevelProject, ProjectPath: projA}, "a1", "one")
	e.restart()
	e.session("/work/fresh") // loaded, holding nothing: not a project with memory
	ps, err := e.svc.Projects(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ps {
		got = append(got, p.ProjectPath)
	}
	sameIDs(t, "projects", got, []string{projA, projB})
	if ps[1].Stats.Active != 2 || ps[1].Slug != projB || ps[1].LastChange != e.clock.Now() {
		t.Errorf("project B = %+v", ps[1])
	}
	if h := e.svc.Health(e.ctx); h.LoadedGraphs != 2 {
		t.Errorf("listing loaded graphs: %d loaded, want 2 (user, fresh)", h.LoadedGraphs)
	}
}
