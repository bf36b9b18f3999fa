package app

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kg-memory/kg/adapters/storage/jsonfile"
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

// A search or a sync without a level, and the graph read of the REST API,
// span the user graph and the project's: with the user graph unloadable
// they serve the project's and say why the user graph is missing, as the
// full read does (docs/decisions/0008-faults-in-one-graph.md). Aimed at
// the user graph, or with no graph that loads, they fail with unavailable.
func TestSpanningRequestsServeTheGraphThatLoads(t *testing.T) {
	e := newEnv(t)
	other := e.session(projA)
	e.put(project(other), "cache-keys", "cache keys include the tenant")
	sid := e.session(projA)
	e.put(project(other), "cache-ttl", "cache entries live a minute") // for sid's sync
	if err := e.svc.Close(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.store.loadFail[domain.UserGraph] = errors.New("damaged")
	e.svc = e.open()
	namesUser := func(what, why string) {
		t.Helper()
		if !strings.Contains(why, "user graph") || !strings.Contains(why, "damaged") {
			t.Errorf("%s: %q does not say the user graph is unavailable and why", what, why)
		}
	}

	// The last one names no project: the user graph and every loaded
	// project graph (projA, loaded by the first two).
	for _, req := range []SearchRequest{{Query: "cache", SessionID: sid}, {Query: "cache", ProjectPath: projA}, {Query: "cache"}} {
		res, err := e.svc.Search(e.ctx, req)
		if err != nil {
			t.Fatalf("search %+v: %v", req, err)
		}
		sameIDs(t, "search", hitIDs(res.Hits), []string{"project:" + projA + ":cache-keys", "project:" + projA + ":cache-ttl"})
		if len(res.Unavailable) != 1 {
			t.Fatalf("search unavailable = %q, want the user graph", res.Unavailable)
		}
		namesUser("search", res.Unavailable[0])
	}
	if _, err := e.svc.Search(e.ctx, SearchRequest{Query: "cache", SessionID: sid, Level: domain.LevelUser}); err == nil {
		t.Error("a search of the user level succeeded")
	} else {
		namesUser("search of the user level", wantKind(t, err, domain.KindUnavailable, "").Error())
	}

	sync, err := e.svc.Sync(e.ctx, sid)
	if err != nil {
		t.Fatalf("sync: %v", err)
	}
	namesUser("sync", sync.UserUnavailable)
	if sync.Empty() || sync.Project == nil || len(sync.Project.Items) != 1 || sync.Project.Items[0].Node.ID != "cache-ttl" {
		t.Errorf("sync = %+v, want the other session's cache-ttl in the project", sync)
	}

	gr, err := e.svc.ReadGraphs(e.ctx, Scope{SessionID: sid})
	if err != nil {
		t.Fatalf("graph read: %v", err)
	}
	namesUser("graph read", gr.User.Unavailable)
	if gr.User.Key != domain.UserGraph || len(gr.User.Nodes) != 0 {
		t.Errorf("graph read user = %+v, want the user graph's key and no nodes", gr.User)
	}
	if gr.Project == nil || gr.Project.Unavailable != "" || len(gr.Project.Nodes) != 2 {
		t.Errorf("graph read project = %+v, want its two nodes", gr.Project)
	}
	if _, err := e.svc.ReadGraphs(e.ctx, Scope{}); err == nil {
		t.Error("a graph read of the user graph alone succeeded")
	} else {
		namesUser("graph read of the user graph alone", wantKind(t, err, domain.KindUnavailable, "").Error())
	}

	// The user graph loads again: nothing is reported unavailable.
	e.store.set(func() { delete(e.store.loadFail, domain.UserGraph) })
	res, err := e.svc.Search(e.ctx, SearchRequest{Query: "cache", SessionID: sid})
	if err != nil || len(res.Unavailable) != 0 {
		t.Errorf("search after the user graph loads: unavailable %q, err %v", res.Unavailable, err)
	}
	if sync, err := e.svc.Sync(e.ctx, sid); err != nil || sync.UserUnavailable != "" {
		t.Errorf("sync after the user graph loads: %+v, %v", sync, err)
	}
}

// With neither graph of a session loadable, a search or a sync has nothing
// to serve and fails with the load errors, naming both graphs.
func TestSpanningRequestsFailWhenNoGraphLoads(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	if err := e.svc.Close(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.store.loadFail[domain.UserGraph] = errors.New("damaged")
	e.store.loadFail[domain.ProjectGraph(projA)] = errors.New("damaged")
	e.svc = e.open()
	_, err := e.svc.Search(e.ctx, SearchRequest{Query: "cache", SessionID: sid})
	if de := wantKind(t, err, domain.KindUnavailable, ""); !strings.Contains(de.Error(), "user graph") || !strings.Contains(err.Error(), projA) {
		t.Errorf("search: %q, want both graphs named", err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("search: %q, want one line", err)
	}
	_, err = e.svc.Sync(e.ctx, sid)
	if de := wantKind(t, err, domain.KindUnavailable, ""); !strings.Contains(de.Error(), "user graph") || !strings.Contains(err.Error(), projA) {
		t.Errorf("sync: %q, want both graphs named", err)
	}
}

// faultyFS is the real file system with a switch that makes every write
// operation fail with err, as a full or read-only disk does.
type faultyFS struct {
	jsonfile.OS
	mu  sync.Mutex
	err error
}

func (f *faultyFS) set(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

func (f *faultyFS) fault() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

func (f *faultyFS) Create(name string) (jsonfile.File, error) {
	if err := f.fault(); err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return f.OS.Create(name)
}

func (f *faultyFS) Append(name string) (jsonfile.File, error) {
	if err := f.fault(); err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return f.OS.Append(name)
}

func (f *faultyFS) Mkdir(name string, perm fs.FileMode) error {
	if err := f.fault(); err != nil {
		return &fs.PathError{Op: "mkdir", Path: name, Err: err}
	}
	return f.OS.Mkdir(name, perm)
}

// /health is degraded, naming the cause, while saves fail — a full disk, a
// read-only file system — and ok again once they succeed
// (docs/design/storage.md#failed-saves).
func TestHealthDegradedWhileSavesFail(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EROFS} {
		t.Run(errno.Error(), func(t *testing.T) {
			fsys := &faultyFS{}
			svc, clk := jsonService(t, t.TempDir(), fsys)
			t.Cleanup(func() { fsys.set(nil) }) // runs before the service's Close, which saves
			ctx := context.Background()
			sess, err := svc.RegisterSession(ctx, projA, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, sc := range []Scope{user(sess.ID), project(sess.ID)} {
				if _, err := svc.PutNode(ctx, sc, domain.NodeInput{ID: "before", Gist: "saved"}); err != nil {
					t.Fatal(err)
				}
			}
			if h := svc.Health(ctx); len(h.Problems) != 0 {
				t.Fatalf("health before the fault = %q", h.Problems)
			}

			fsys.set(errno)
			for _, sc := range []Scope{user(sess.ID), project(sess.ID)} {
				_, err = svc.PutNode(ctx, sc, domain.NodeInput{ID: "refused", Gist: "not saved"})
				wantKind(t, err, domain.KindUnavailable, "")
			}
			if _, err := svc.RegisterSession(ctx, projA, ""); err == nil {
				t.Fatal("a session was registered while sessions cannot be saved")
			}
			clk.Advance(time.Minute)
			svc.maint.Tick(ctx) // its writes, checkpoints and the sessions' save fail too
			h := svc.Health(ctx)
			problems := strings.Join(h.Problems, "\n")
			t.Logf("health while saves fail:\n%s", problems)
			for _, want := range []string{"user graph could not be saved", "project graph (" + projA + ") could not be saved",
				"sessions could not be saved", errno.Error()} {
				if !strings.Contains(problems, want) {
					t.Errorf("health while saves fail lacks %q:\n%s", want, problems)
				}
			}

			fsys.set(nil)
			if _, err := svc.PutNode(ctx, user(sess.ID), domain.NodeInput{ID: "after", Gist: "saved again"}); err != nil {
				t.Fatal(err)
			}
			if h := svc.Health(ctx); strings.Contains(strings.Join(h.Problems, "\n"), "user graph could not be saved") {
				t.Errorf("the user graph's save succeeded, but health still says it fails: %q", h.Problems)
			}
			clk.Advance(time.Minute)
			svc.maint.Tick(ctx)
			if h := svc.Health(ctx); len(h.Problems) != 0 {
				t.Errorf("health once every save succeeds = %q, want ok", h.Problems)
			}
		})
	}
}
