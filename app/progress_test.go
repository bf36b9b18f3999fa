package app

import (
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
)

func TestProgress(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	if err := e.svc.SaveProgress(e.ctx, Scope{SessionID: sid}, "task-1", domain.RawJSON(`{"step":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.SaveProgress(e.ctx, project(sid), "task-1", domain.RawJSON(`{"step":"p"}`)); err != nil {
		t.Fatal(err)
	}
	got, ok, err := e.svc.LoadProgress(e.ctx, Scope{SessionID: sid}, "task-1")
	if err != nil || !ok || string(got) != `{"step":1}` {
		t.Errorf("user progress = %s, %v, %v", got, ok, err)
	}
	e.restart()
	// The project level loads the project graph first.
	got, ok, err = e.svc.LoadProgress(e.ctx, Scope{Level: domain.LevelProject, ProjectPath: projA}, "task-1")
	if err != nil || !ok || string(got) != `{"step":"p"}` {
		t.Errorf("project progress after restart = %s, %v, %v", got, ok, err)
	}
	_, ok, err = e.svc.LoadProgress(e.ctx, Scope{}, "other")
	if err != nil || ok {
		t.Errorf("missing task: %v, %v; want not found, no error", ok, err)
	}
}

func TestProgressErrors(t *testing.T) {
	e := newEnv(t)
	err := e.svc.SaveProgress(e.ctx, Scope{}, "t", domain.RawJSON(`[1]`))
	wantKind(t, err, domain.KindInvalid, "state")
	// A state nested past the limit is refused with it named, and nothing
	// is stored (issue 15: 6,000 levels grew user.json by 69 MiB).
	deep := domain.RawJSON(`{"x":` + strings.Repeat("[", 6000) + strings.Repeat("]", 6000) + `}`)
	err = e.svc.SaveProgress(e.ctx, Scope{}, "t", deep)
	if de := wantKind(t, err, domain.KindInvalid, "state"); de.Limit != domain.MaxProgressDepth || !strings.Contains(err.Error(), "limit 64") {
		t.Errorf("a deep state: %v, want the depth limit named", err)
	}
	if _, ok, _ := e.svc.LoadProgress(e.ctx, Scope{}, "t"); ok {
		t.Error("a refused state was stored")
	}
	err = e.svc.SaveProgress(e.ctx, Scope{}, "bad/task", domain.RawJSON(`{}`))
	wantKind(t, err, domain.KindInvalid, "task_id")
	err = e.svc.SaveProgress(e.ctx, Scope{Level: domain.LevelProject}, "t", domain.RawJSON(`{}`))
	wantKind(t, err, domain.KindInvalid, "project_path")
	e.store.failCommits(domain.UserGraph, errAny)
	err = e.svc.SaveProgress(e.ctx, Scope{}, "t", domain.RawJSON(`{}`))
	wantKind(t, err, domain.KindUnavailable, "")
	if _, ok, _ := e.svc.LoadProgress(e.ctx, Scope{}, "t"); ok {
		t.Error("progress kept after a failed save")
	}
}
