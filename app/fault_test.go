package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// cached reports whether key has an entry in the store's cache.
func (e *env) cached(key domain.GraphKey) bool {
	return e.svc.store.IsLoaded(key)
}

// wantProblem fails unless Health is degraded with a problem containing
// every one of want.
func (e *env) wantProblem(want ...string) {
	e.t.Helper()
	h := e.svc.Health(e.ctx)
	for _, p := range h.Problems {
		all := true
		for _, w := range want {
			all = all && strings.Contains(p, w)
		}
		if all {
			return
		}
	}
	e.t.Errorf("health problems = %q, want one naming %q", h.Problems, want)
}

// A load that panics (bbolt on a damaged page did) makes only that graph
// unavailable: no graph-less entry is cached, the maintenance tick runs,
// the other graphs keep working, and the graph loads once it can.
func TestLoadPanicMakesOnlyThatGraphUnavailable(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	e.put(project(sid), "a", "fine")
	e.store.set(func() { e.store.loadPanic[domain.ProjectGraph(projB)] = "page 7: unexpected flags" })

	other := Scope{Level: domain.LevelProject, ProjectPath: projB}
	_, err := e.svc.PutNode(e.ctx, other, domain.NodeInput{ID: "x", Gist: "y"})
	if de := wantKind(t, err, domain.KindUnavailable, ""); !strings.Contains(de.Error(), projB) || !strings.Contains(de.Error(), "page 7") {
		t.Errorf("error %q does not name the graph and why", de)
	}
	if e.cached(domain.ProjectGraph(projB)) {
		t.Error("the graph whose load panicked is cached")
	}
	e.wantProblem(projB, "page 7")
	e.svc.maint.Tick(e.ctx) // the old code died here on the nil graph
	e.put(project(sid), "b", "still fine")
	e.put(user(sid), "u", "still fine")

	e.store.set(func() { delete(e.store.loadPanic, domain.ProjectGraph(projB)) })
	e.put(other, "x", "y")
	if h := e.svc.Health(e.ctx); len(h.Problems) != 0 {
		t.Errorf("problems after the graph loaded: %q", h.Problems)
	}
}

// A save that panics fails every write of its batch with unavailable, does
// not end the committer, and drops the graph, which the next request
// reloads from what is durable.
func TestCommitPanicFailsTheBatchAndReloadsTheGraph(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	e.put(project(sid), "kept", "durable before the fault")
	key := domain.ProjectGraph(projA)
	e.store.set(func() { e.store.commitPanic[key] = "page 12: invalid type" })

	_, err := e.svc.PutNode(e.ctx, project(sid), domain.NodeInput{ID: "lost", Gist: "never acknowledged"})
	if de := wantKind(t, err, domain.KindUnavailable, ""); !strings.Contains(de.Error(), projA) {
		t.Errorf("error %q does not name the graph", de)
	}
	if e.cached(key) {
		t.Error("the graph is still cached after its save panicked")
	}
	e.wantProblem(projA, "page 12")
	e.svc.maint.Tick(e.ctx)

	e.store.set(func() { delete(e.store.commitPanic, key) })
	res, err := e.svc.Read(e.ctx, ReadRequest{SessionID: sid})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(res.Full.Project.View.Active); len(got) != 1 || got[0] != "kept" {
		t.Errorf("active after the reload = %v, want only the durable node", got)
	}
	e.put(project(sid), "after", "the committer still runs")
	if h := e.svc.Health(e.ctx); len(h.Problems) != 0 {
		t.Errorf("problems after the reload: %q", h.Problems)
	}
}

// A change that panics while it is applied fails its whole batch, and the
// writes queued behind it go to the graph loaded afresh.
func TestChangePanicFailsItsBatchOnly(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	e.put(project(sid), "kept", "durable")
	en, err := e.svc.store.Get(e.ctx, domain.ProjectGraph(projA))
	if err != nil {
		t.Fatal(err)
	}

	// Hold the first save so that the panicking change and a write queue
	// behind it as one batch.
	inFlight, waitQueued, release := holdCommits(e)
	first := make(chan error, 1)
	go func() {
		_, err := e.svc.PutNode(e.ctx, project(sid), domain.NodeInput{ID: "first", Gist: "saved"})
		first <- err
	}()
	inFlight()
	panicking, sameBatch := make(chan error, 1), make(chan error, 1)
	go func() {
		panicking <- e.svc.store.Write(e.ctx, en, "", func(*domain.Graph, domain.Stamp) ([]ports.Event, error) {
			panic("a bug in a change")
		})
	}()
	waitQueued(domain.ProjectGraph(projA), 1)
	go func() {
		_, err := e.svc.PutNode(e.ctx, project(sid), domain.NodeInput{ID: "same-batch", Gist: "not saved"})
		sameBatch <- err
	}()
	waitQueued(domain.ProjectGraph(projA), 2)
	release()
	if err := <-first; err != nil {
		t.Fatalf("the write before the panic: %v", err)
	}
	wantKind(t, <-panicking, domain.KindUnavailable, "")
	wantKind(t, <-sameBatch, domain.KindUnavailable, "")

	e.put(project(sid), "next", "goes to the reloaded graph")
	for id, want := range map[string]bool{"kept": true, "first": true, "same-batch": false, "next": true} {
		if _, ok := e.store.stored(t, domain.ProjectGraph(projA), id); ok != want {
			t.Errorf("node %s stored = %v, want %v", id, ok, want)
		}
	}
}

// A save the repository reports as damage (ports.ErrDamaged) makes the
// graph unavailable rather than retried with the next write: it is dropped
// and reloaded, and Health says why.
func TestDamagedSaveDropsTheGraph(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	key := domain.ProjectGraph(projA)
	e.store.failCommits(key, ports.ErrDamaged)
	_, err := e.svc.PutNode(e.ctx, project(sid), domain.NodeInput{ID: "x", Gist: "y"})
	wantKind(t, err, domain.KindUnavailable, "")
	if e.cached(key) {
		t.Error("a graph whose storage is damaged stays cached")
	}
	e.wantProblem(projA, "damaged")
	e.store.failCommits(key, nil)
	e.put(project(sid), "x", "y")
}

// A maintenance tick survives a graph whose save panics and a session save
// that panics: the other graphs are maintained, and Close reports the
// failure instead of dying of it.
func TestTickAndCloseSurvivePanics(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	e.put(user(sid), "n", "g")
	e.put(project(sid), "p", "g")
	e.clock.Advance(time.Hour)
	for _, id := range []string{"n", "p"} {
		if _, err := e.svc.Read(e.ctx, ReadRequest{SessionID: sid, IDs: []string{id}}); err != nil {
			t.Fatal(err)
		}
	}
	e.store.set(func() {
		e.store.commitPanic[domain.UserGraph] = "boom"
		e.store.savePanic = "sessions boom"
	})
	e.svc.maint.Tick(e.ctx)
	if n, _ := e.store.stored(t, domain.ProjectGraph(projA), "p"); n.LastRead != e.clock.Now() {
		t.Error("the project graph was not maintained after the user graph's save panicked")
	}
	e.wantProblem("user graph", "boom")
	if err := e.svc.Close(e.ctx); err == nil || !strings.Contains(err.Error(), "sessions boom") {
		t.Errorf("Close = %v, want the session save's panic reported", err)
	}
	e.store.set(func() { e.store.savePanic = nil })
}

// Run returns once its context is done; a Run that does not is reported,
// not left to hang the test binary.
func TestRunReturnsWhenDone(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaintenanceInterval = time.Hour })
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.svc.Run(ctx)
	}()
	cancel()
	// A guard against a hang, far beyond any scheduling delay: the test
	// checks that Run returns, not how fast.
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("Run did not return after its context was cancelled")
	}
}
