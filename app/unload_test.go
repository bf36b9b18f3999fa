package app

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/kg-memory/kg/adapters/storage/jsonfile"
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
	e.svc.maint.Tick(e.ctx)
	if !e.cached(key) {
		t.Fatal("a graph used within IdleUnload was unloaded")
	}
	e.clock.Advance(time.Minute)
	e.svc.maint.Tick(e.ctx)
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
		e.svc.maint.Tick(e.ctx)
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
	e.svc.maint.Tick(e.ctx)
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
	stale, err := e.svc.store.Get(e.ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(DefaultIdleUnload)
	e.svc.maint.Tick(e.ctx)
	if e.cached(key) {
		t.Fatal("not unloaded")
	}

	err = e.svc.store.Write(e.ctx, stale, sid, func(g *domain.Graph, at domain.Stamp) ([]ports.Event, error) {
		_, err := g.PutNode(domain.NodeInput{ID: "late", Gist: "written through the stale entry"}, at)
		return nil, err
	})
	if err != nil {
		t.Fatalf("write through the unloaded entry: %v", err)
	}
	if _, ok := stale.Graph().Node("late"); ok {
		t.Error("the write went to the unloaded copy")
	}
	fresh, err := e.svc.store.Get(e.ctx, key)
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
	e.svc.maint.Tick(e.ctx)
	at := e.clock.Now()
	e.svc.store.Stamp(e.ctx, fresh, "p", at)
	e.svc.maint.Tick(e.ctx)
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
			e.svc.maint.Tick(e.ctx)
		}},
		{"dropped after damage", ports.ErrDamaged, func(*env) {}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			sid := e.session(projA)
			key := domain.ProjectGraph(projA)
			e.put(project(sid), "p", "g")
			en, err := e.svc.store.Get(e.ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			e.store.failCommits(key, c.fault)
			if _, err := e.svc.PutNode(e.ctx, project(sid), domain.NodeInput{ID: "failed", Gist: "g"}); err == nil {
				t.Fatal("the failing save succeeded")
			}
			e.store.failCommits(key, nil)
			en.RLock()
			taken := en.Graph().Seq()
			en.RUnlock()

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

// releasingStore records the graphs the app releases (ports.GraphReleaser).
type releasingStore struct {
	*countingStore
	released []domain.GraphKey
}

func (r *releasingStore) Release(key domain.GraphKey) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.released = append(r.released, key)
}

// Unloading a graph tells a repository that keeps something of it that it is
// gone (docs/design/storage.md#unloading); the user graph, never unloaded,
// is never released.
func TestUnloadReleasesTheGraphInTheRepository(t *testing.T) {
	e := newEnv(t)
	rs := &releasingStore{countingStore: e.store}
	svc, err := New(e.cfg, Deps{Graphs: rs, Sessions: rs, Clock: e.clock, Events: e.events, Paths: fakePaths{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(e.ctx) })
	for _, p := range []string{projA, projB} {
		s, err := svc.RegisterSession(e.ctx, p, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.PutNode(e.ctx, project(s.ID), domain.NodeInput{ID: "n", Gist: "g"}); err != nil {
			t.Fatal(err)
		}
	}
	svc.maint.Tick(e.ctx)
	rs.mu.Lock()
	if len(rs.released) != 0 {
		t.Errorf("released %v before any graph was idle", rs.released)
	}
	rs.mu.Unlock()
	e.clock.Advance(DefaultIdleUnload)
	svc.maint.Tick(e.ctx)
	rs.mu.Lock()
	defer rs.mu.Unlock()
	want := []domain.GraphKey{domain.ProjectGraph(projA), domain.ProjectGraph(projB)}
	if !slices.Equal(rs.released, want) {
		t.Errorf("released %v, want %v", rs.released, want)
	}
}

// openFiles counts this process's open file descriptors.
func openFiles(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count file descriptors: %v", err)
	}
	return len(fds)
}

// Serving many projects on the json backend holds no file per project,
// loaded or unloaded: the journals are opened for each append only, and
// unloading releases the rest (issue 15: 1,500 projects left 1,512 journals
// open, and under `ulimit -n 128` the 117th project's write failed).
func TestManyProjectsHoldNoFiles(t *testing.T) {
	const projects = 300
	svc, clk := jsonService(t, t.TempDir(), noFsync{})
	ctx := context.Background()
	before := openFiles(t)
	for i := range projects {
		s, err := svc.RegisterSession(ctx, fmt.Sprintf("/work/many/p%03d", i), "")
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"first", "second"} { // a whole save, then an append
			if _, err := svc.PutNode(ctx, project(s.ID), domain.NodeInput{ID: id, Gist: "g"}); err != nil {
				t.Fatalf("project %d: %v", i, err)
			}
		}
	}
	loaded := openFiles(t)
	clk.Advance(DefaultIdleUnload)
	svc.maint.Tick(ctx)
	if h := svc.Health(ctx); h.LoadedGraphs != 1 {
		t.Fatalf("%d graphs still loaded after the idle unload, want 1", h.LoadedGraphs)
	}
	after := openFiles(t)
	t.Logf("open files: %d before, %d with %d projects loaded, %d after unloading them", before, loaded, projects, after)
	if loaded > before+5 || after > before+5 {
		t.Errorf("open files grew from %d to %d with %d projects loaded and %d after unloading them", before, loaded, projects, after)
	}
}

// noFsync is the real file system without its fsyncs, for tests that make
// many saves and count something other than durability.
type noFsync struct{ jsonfile.OS }

type noFsyncFile struct{ jsonfile.File }

func (noFsyncFile) Sync() error { return nil }

func (f noFsync) Create(name string) (jsonfile.File, error) {
	w, err := f.OS.Create(name)
	if err != nil {
		return nil, err
	}
	return noFsyncFile{w}, nil
}

func (f noFsync) Append(name string) (jsonfile.File, error) {
	w, err := f.OS.Append(name)
	if err != nil {
		return nil, err
	}
	return noFsyncFile{w}, nil
}

func (noFsync) SyncDir(string) error { return nil }
