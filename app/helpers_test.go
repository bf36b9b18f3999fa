package app

import (
	"context"
	"errors"
	"iter"
	"path"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/adapters/storage/memory"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

const (
	projA = "/work/proj-a"
	projB = "/work/proj-b"
)

// fakePaths is a PathResolver without I/O: absolute paths are cleaned,
// relative ones refused, as paths.OS does.
type fakePaths struct{}

func (fakePaths) Canonical(p string) (string, error) {
	if !path.IsAbs(p) {
		return "", domain.Invalidf("path", "must be an absolute path")
	}
	return path.Clean(p), nil
}

// recorder is an Events sink that keeps what it is given.
type recorder struct {
	mu  sync.Mutex
	evs []ports.Event
}

func (r *recorder) Publish(evs iter.Seq[ports.Event]) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for ev := range evs {
		r.evs = append(r.evs, ev)
	}
}

// ofType returns the events of type typ, in publication order.
func (r *recorder) ofType(typ string) []ports.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []ports.Event
	for _, ev := range r.evs {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = nil
}

// countingStore wraps the memory store: it counts commits per graph, can
// hold commits at a gate, and can fail the loads or commits of one graph.
type countingStore struct {
	*memory.Store
	mu         sync.Mutex
	commits    map[domain.GraphKey]int
	gate       chan struct{} // when set, Commit waits until it is closed
	entered    chan struct{} // when set, Commit sends on it before waiting at the gate
	loadFail   map[domain.GraphKey]error
	commitFail map[domain.GraphKey]error
	// loadPanic and commitPanic make Load or Commit of a graph panic with
	// the value given, as a damaged file made bbolt do; savePanic does so
	// for UpdateSessions.
	loadPanic   map[domain.GraphKey]any
	commitPanic map[domain.GraphKey]any
	savePanic   any
	// sessionSaves records what each UpdateSessions was given.
	sessionSaves []ports.SessionChanges
}

func newCountingStore() *countingStore {
	return &countingStore{Store: memory.New(), commits: map[domain.GraphKey]int{},
		loadFail: map[domain.GraphKey]error{}, commitFail: map[domain.GraphKey]error{},
		loadPanic: map[domain.GraphKey]any{}, commitPanic: map[domain.GraphKey]any{}}
}

func (c *countingStore) Load(ctx context.Context, key domain.GraphKey) (domain.GraphData, error) {
	c.mu.Lock()
	err, p := c.loadFail[key], c.loadPanic[key]
	c.mu.Unlock()
	if p != nil {
		panic(p)
	}
	if err != nil {
		return domain.GraphData{}, domain.Unavailable(err, "load %s: damaged", key)
	}
	return c.Store.Load(ctx, key)
}

func (c *countingStore) Commit(ctx context.Context, key domain.GraphKey, g *domain.Graph, cs domain.ChangeSet) error {
	return c.CommitLogged(ctx, key, g, cs, domain.HistoryBatch{})
}

// CommitLogged is Commit with the change log (ports.HistoryRepository),
// through the same gate and faults.
func (c *countingStore) CommitLogged(ctx context.Context, key domain.GraphKey, g *domain.Graph, cs domain.ChangeSet, h domain.HistoryBatch) error {
	c.mu.Lock()
	c.commits[key]++
	gate, entered, err, p := c.gate, c.entered, c.commitFail[key], c.commitPanic[key]
	c.mu.Unlock()
	if entered != nil {
		entered <- struct{}{}
	}
	if gate != nil {
		<-gate
	}
	if p != nil {
		panic(p)
	}
	if err != nil {
		return domain.Unavailable(err, "save %s: %v", key, err)
	}
	return c.Store.CommitLogged(ctx, key, g, cs, h)
}

func (c *countingStore) UpdateSessions(ctx context.Context, ch ports.SessionChanges) error {
	c.mu.Lock()
	p := c.savePanic
	c.sessionSaves = append(c.sessionSaves, ch)
	c.mu.Unlock()
	if p != nil {
		panic(p)
	}
	return c.Store.UpdateSessions(ctx, ch)
}

// set runs f under the store's lock, to change what it injects.
func (c *countingStore) set(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f()
}

func (c *countingStore) count(key domain.GraphKey) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.commits[key]
}

func (c *countingStore) failCommits(key domain.GraphKey, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil {
		delete(c.commitFail, key)
	} else {
		c.commitFail[key] = err
	}
}

// stored returns the node id of the committed state of key, if any.
func (c *countingStore) stored(t *testing.T, key domain.GraphKey, id string) (domain.Node, bool) {
	t.Helper()
	d, err := c.Store.Load(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range d.Nodes {
		if n.ID == id {
			return n, true
		}
	}
	return domain.Node{}, false
}

// seed commits data as the stored state of key, as if an earlier server
// had written it.
func (c *countingStore) seed(t *testing.T, key domain.GraphKey, data domain.GraphData) {
	t.Helper()
	g, _ := domain.Restore(key, data, domain.RestoreOptions{})
	if err := c.Store.Commit(context.Background(), key, g, g.Pending()); err != nil {
		t.Fatal(err)
	}
}

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// env is one service on a memory store with a manual clock.
type env struct {
	t      *testing.T
	ctx    context.Context
	store  *countingStore
	clock  *clock.Manual
	events *recorder
	cfg    Config
	svc    *Service
	// transcripts, when set before open, reads Claude Code transcripts.
	transcripts ports.Transcripts
	// files, when set before open, reads project files for staleness.
	files ports.FileHasher
}

func newEnv(t *testing.T, opts ...func(*Config)) *env {
	t.Helper()
	e := &env{t: t, ctx: context.Background(), store: newCountingStore(), clock: clock.NewManual(t0), events: &recorder{}, cfg: DefaultConfig()}
	for _, o := range opts {
		o(&e.cfg)
	}
	e.svc = e.open()
	return e
}

// open starts a service on the env's store and clock.
func (e *env) open() *Service {
	e.t.Helper()
	svc, err := New(e.cfg, Deps{Graphs: e.store, Sessions: e.store, Clock: e.clock, Events: e.events, Paths: fakePaths{},
		Transcripts: e.transcripts, Files: e.files})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = svc.Close(context.Background()) })
	return svc
}

// restart closes the service and starts a new one on the same store.
func (e *env) restart() {
	e.t.Helper()
	if err := e.svc.Close(e.ctx); err != nil {
		e.t.Fatal(err)
	}
	e.svc = e.open()
}

func (e *env) session(project string) string {
	e.t.Helper()
	s, err := e.svc.RegisterSession(e.ctx, project, "")
	if err != nil {
		e.t.Fatal(err)
	}
	return s.ID
}

func (e *env) put(sc Scope, id, gist string) PutNodeResult {
	e.t.Helper()
	r, err := e.svc.PutNode(e.ctx, sc, domain.NodeInput{ID: id, Gist: gist})
	if err != nil {
		e.t.Fatalf("PutNode %s: %v", id, err)
	}
	return r
}

func (e *env) edge(sc Scope, from, to, rel string) {
	e.t.Helper()
	if _, err := e.svc.PutEdge(e.ctx, sc, domain.EdgeInput{From: from, To: to, Rel: rel}); err != nil {
		e.t.Fatalf("PutEdge: %v", err)
	}
}

func user(session string) Scope { return Scope{SessionID: session, Level: domain.LevelUser} }
func project(session string) Scope {
	return Scope{SessionID: session, Level: domain.LevelProject}
}

// wantKind fails unless err is a *domain.Error of kind k (and field f, when
// given).
func wantKind(t *testing.T, err error, k domain.Kind, field string) *domain.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s", k)
	}
	if got := domain.KindOf(err); got != k {
		t.Fatalf("error %q has kind %s, want %s", err, got, k)
	}
	var de *domain.Error
	if !errors.As(err, &de) {
		t.Fatalf("error %q is not a *domain.Error", err)
	}
	if field != "" && de.Field != field {
		t.Fatalf("error %q names field %q, want %q", err, de.Field, field)
	}
	return de
}

func ids(ns []*domain.Node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.ID
	}
	return out
}

func sameIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

var errAny = errors.New("injected fault")

// evs returns the events of type typ once every committer is idle: events
// go out after the callers are acknowledged, so a caller may return before
// its events are published.
func (e *env) evs(typ string) []ports.Event {
	e.svc.store.WaitIdle()
	return e.events.ofType(typ)
}
