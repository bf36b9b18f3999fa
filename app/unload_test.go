package app

import (
	"testing"
	"time"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// A project graph with no request for IdleUnload is unloaded by the tick,
// after its read stamps are durable; the user graph stays; the next
// request loads the project again with everything in it.
func TestIdleProjectGraphIsUnloaded(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	e.put(project(sid), "p", "a project node")
	e.put(user(sid), "u", "a user node")
	e.clock.Advance(time.Hour)
	if _, err := e.svc.Read(e.ctx, ReadRequest{SessionID: sid, IDs: []string{"p"}}); err != nil {
		t.Fatal(err)
	}
	readAt := e.clock.Now()
	key := domain.ProjectGraph(projA)

	e.clock.Advance(DefaultIdleUnload - time.Minute)
	e.svc.tick(e.ctx)
	if !e.cached(key) {
		t.Fatal("a graph used within IdleUnload was unloaded")
	}
	e.clock.Advance(time.Minute)
	e.svc.tick(e.ctx)
	if e.cached(key) {
		t.Fatal("a graph idle for IdleUnload is still loaded")
	}
	if !e.cached(domain.UserGraph) {
		t.Error("the user graph was unloaded")
	}
	if n, ok := e.store.stored(t, key, "p"); !ok || n.LastRead != readAt {
		t.Errorf("stored node = %+v, %v; want it with the read stamp %d made durable before the unload", n, ok, readAt)
	}
	if h := e.svc.Health(e.ctx); h.LoadedGraphs != 1 {
		t.Errorf("loaded graphs = %d, want 1 (the user graph)", h.LoadedGraphs)
	}

	res, err := e.svc.Read(e.ctx, ReadRequest{SessionID: sid})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(res.Full.Project.View.Active); len(got) != 1 || got[0] != "p" {
		t.Errorf("project after the reload = %v, want [p]", got)
	}
}

// A request keeps a graph loaded: idleness counts from the last request,
// not from the load.
func TestRequestsKeepAGraphLoaded(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	e.put(project(sid), "p", "g")
	for range 4 {
		e.clock.Advance(DefaultIdleUnload / 2)
		if _, err := e.svc.Search(e.ctx, SearchRequest{Query: "g", SessionID: sid}); err != nil {
			t.Fatal(err)
		}
		e.svc.tick(e.ctx)
		if !e.cached(domain.ProjectGraph(projA)) {
			t.Fatal("a graph with a request every half IdleUnload was unloaded")
		}
	}
}

// A negative IdleUnload keeps every graph loaded.
func TestIdleUnloadOff(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.IdleUnload = -1 })
	sid := e.session(projA)
	e.put(project(sid), "p", "g")
	e.clock.Advance(100 * DefaultIdleUnload)
	e.svc.tick(e.ctx)
	if !e.cached(domain.ProjectGraph(projA)) {
		t.Error("a graph was unloaded with IdleUnload off")
	}
}

// A write or a read stamp that got the entry just before it was unloaded
// goes to the graph loaded afresh: nothing is applied to the unloaded copy,
// and no second committer writes the graph.
func TestWriteAndStampRacingAnUnload(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	e.put(project(sid), "p", "g")
	key := domain.ProjectGraph(projA)
	stale, err := e.svc.store.get(e.ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(DefaultIdleUnload)
	e.svc.tick(e.ctx)
	if e.cached(key) {
		t.Fatal("not unloaded")
	}

	err = e.svc.store.write(e.ctx, stale, sid, func(g *domain.Graph, at domain.Stamp) ([]ports.Event, error) {
		_, err := g.PutNode(domain.NodeInput{ID: "late", Gist: "written through the stale entry"}, at)
		return nil, err
	})
	if err != nil {
		t.Fatalf("write through the unloaded entry: %v", err)
	}
	if _, ok := stale.g.Node("late"); ok {
		t.Error("the write went to the unloaded copy")
	}
	fresh, err := e.svc.store.get(e.ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if fresh == stale {
		t.Fatal("the unloaded entry came back")
	}
	if _, ok := e.store.stored(t, key, "late"); !ok {
		t.Error("the write is not stored")
	}

	// The same for a read stamp.
	e.clock.Advance(DefaultIdleUnload)
	e.svc.tick(e.ctx)
	at := e.clock.Now()
	e.svc.store.stamp(e.ctx, fresh, "p", at)
	e.svc.tick(e.ctx)
	if n, _ := e.store.stored(t, key, "p"); n.LastRead != at {
		t.Errorf("stored last read = %d, want the stamp %d made through the unloaded entry", n.LastRead, at)
	}
}

// A save that failed took seqs and rolled the graph back; a graph that then
// leaves the cache — unloaded when idle (the tick first saves the seq), or
// dropped because its storage is damaged (the store keeps the seq) — must not
// hand those seqs out again when it is reloaded
// (docs/design/sync.md#change-sequence).
func TestReloadKeepsSeqsOfAFailedSave(t *testing.T) {
	cases := []struct {
		name  string
		fault error
		leave func(e *env)
	}{
		{"unloaded when idle", errAny, func(e *env) {
			e.clock.Advance(DefaultIdleUnload)
			e.svc.tick(e.ctx)
		}},
		{"dropped after damage", ports.ErrDamaged, func(*env) {}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			sid := e.session(projA)
			key := domain.ProjectGraph(projA)
			e.put(project(sid), "p", "g")
			en, err := e.svc.store.get(e.ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			e.store.failCommits(key, c.fault)
			if _, err := e.svc.PutNode(e.ctx, project(sid), domain.NodeInput{ID: "failed", Gist: "g"}); err == nil {
				t.Fatal("the failing save succeeded")
			}
			e.store.failCommits(key, nil)
			en.mu.RLock()
			taken := en.g.Seq()
			en.mu.RUnlock()

			c.leave(e)
			if e.cached(key) {
				t.Fatal("the graph is still cached")
			}
			if r := e.put(project(sid), "next", "g"); r.Node.Version.Seq <= taken {
				t.Errorf("seq %d after the reload, want above %d, taken by the failed save", r.Node.Version.Seq, taken)
			}
		})
	}
}
