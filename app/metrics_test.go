package app

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/ports"
)

// metricsRecorder is a ports.Metrics that keeps what it is told.
type metricsRecorder struct {
	mu       sync.Mutex
	batches  []ports.Batch
	runs     map[ports.CompactionTrigger]int
	moved    compaction.Moves
	sessions int
}

func (r *metricsRecorder) BatchCommitted(b ports.Batch) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches = append(r.batches, b)
}

func (r *metricsRecorder) CompactionRan(t ports.CompactionTrigger) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.runs[t]++
}

func (r *metricsRecorder) NodesMoved(m compaction.Moves) {
	r.mu.Lock()
	defer r.mu.Unlock()
	addMoves(&r.moved, m)
}

func (r *metricsRecorder) SessionStarted() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sessions++
}

func addMoves(to *compaction.Moves, m compaction.Moves) {
	to.Archived = append(to.Archived, m.Archived...)
	to.Restored = append(to.Restored, m.Restored...)
	to.Orphaned = append(to.Orphaned, m.Orphaned...)
	to.Pruned = append(to.Pruned, m.Pruned...)
}

// take returns what the recorder holds and empties it; the committers are
// idle first, since a batch is reported after its callers return.
func (r *metricsRecorder) take(e *env) (batches []ports.Batch, runs map[ports.CompactionTrigger]int, moved compaction.Moves, sessions int) {
	e.svc.store.WaitIdle()
	r.mu.Lock()
	defer r.mu.Unlock()
	batches, runs, moved, sessions = r.batches, r.runs, r.moved, r.sessions
	r.batches, r.runs, r.moved, r.sessions = nil, map[ports.CompactionTrigger]int{}, compaction.Moves{}, 0
	return
}

// meteredEnv is newEnv with a metrics recorder.
func meteredEnv(t *testing.T, opts ...func(*Config)) (*env, *metricsRecorder) {
	t.Helper()
	e := &env{t: t, ctx: context.Background(), store: newCountingStore(), clock: clock.NewManual(t0), events: &recorder{}, cfg: DefaultConfig()}
	for _, o := range opts {
		o(&e.cfg)
	}
	rec := &metricsRecorder{runs: map[ports.CompactionTrigger]int{}}
	svc, err := New(e.cfg, Deps{Graphs: e.store, Sessions: e.store, Clock: e.clock, Events: e.events, Paths: fakePaths{}, Metrics: rec})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(context.Background()) })
	e.svc = svc
	return e, rec
}

// batchShape is what a test compares of a reported batch.
type batchShape struct {
	level  domain.Level
	writes int
	saved  bool
	failed bool
}

func shapes(bs []ports.Batch) []batchShape {
	out := make([]batchShape, len(bs))
	for i, b := range bs {
		out[i] = batchShape{b.Level, b.Writes, b.Saved, b.Err != nil}
	}
	return out
}

// Each batch is reported once with the writes it carried: a write alone, a
// group that waited on one save, a batch whose save failed, and one that
// had nothing to save.
func TestMetricsReportEachBatch(t *testing.T) {
	e, rec := meteredEnv(t)
	sid := e.session("")
	e.put(user(sid), "first", "loads the graph")
	inFlight, waitQueued, release := holdCommits(e)
	const n = 12
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := e.svc.PutNode(e.ctx, user(sid), domain.NodeInput{ID: fmt.Sprintf("n%02d", i), Gist: "concurrent"}); err != nil {
				t.Errorf("writer %d: %v", i, err)
			}
		}()
		if i == 0 {
			inFlight()
		}
	}
	waitQueued(domain.UserGraph, n-1)
	release()
	wg.Wait()

	stale := uint64(7)
	_, err := e.svc.PutNode(e.ctx, user(sid), domain.NodeInput{ID: "first", Gist: "stale", ExpectedVersion: &stale})
	wantKind(t, err, domain.KindConflict, "")
	e.store.failCommits(domain.UserGraph, errAny)
	_, err = e.svc.PutNode(e.ctx, user(sid), domain.NodeInput{ID: "lost", Gist: "the disk is full"})
	wantKind(t, err, domain.KindUnavailable, "")
	e.store.failCommits(domain.UserGraph, nil)
	_, err = e.svc.PutNode(e.ctx, user(sid), domain.NodeInput{ID: "Bad Id!", Gist: "refused before any batch"})
	wantKind(t, err, domain.KindInvalid, "id")
	e.store.set(func() { e.store.commitPanic[domain.UserGraph] = "page 7: unexpected flags" })
	_, err = e.svc.PutNode(e.ctx, user(sid), domain.NodeInput{ID: "boom", Gist: "the save panics"})
	wantKind(t, err, domain.KindUnavailable, "")
	e.store.set(func() { delete(e.store.commitPanic, domain.UserGraph) })

	batches, _, _, _ := rec.take(e)
	want := []batchShape{
		{domain.LevelUser, 1, true, false},     // first
		{domain.LevelUser, 1, true, false},     // n00, in flight alone
		{domain.LevelUser, n - 1, true, false}, // the rest, one save
		{domain.LevelUser, 1, false, false},    // the conflict: nothing to save
		{domain.LevelUser, 1, true, true},      // the failed save
		{domain.LevelUser, 1, false, true},     // the save that panicked
	}
	if got := shapes(batches); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("batches:\n got %v\nwant %v", got, want)
	}
}

// Every compaction run is reported with what started it, and the moves
// only once they are durable: a run whose save fails moved nothing.
func TestMetricsReportCompaction(t *testing.T) {
	e, rec := meteredEnv(t, func(c *Config) { c.Policy.MaxTokens = 200 })
	sid := e.session("")
	for i := range 9 {
		e.clock.Advance(time.Second)
		e.put(user(sid), fmt.Sprintf("n%d", i), strings.Repeat("x", 20))
	}
	e.clock.Advance(6 * 24 * time.Hour)
	sid = e.session("") // the first expired with the time that passed
	_, runs, moved, _ := rec.take(e)
	if want := map[ports.CompactionTrigger]int{ports.CompactionOnLoad: 1, ports.CompactionOnWrite: 9}; fmt.Sprint(runs) != fmt.Sprint(want) {
		t.Errorf("runs = %v, want %v", runs, want)
	}
	if !moved.Empty() {
		t.Errorf("moves reported while every node was in grace: %+v", moved)
	}

	// Past the grace, the next write archives; its save fails first.
	e.store.failCommits(domain.UserGraph, errAny)
	_, err := e.svc.PutNode(e.ctx, user(sid), domain.NodeInput{ID: "late", Gist: strings.Repeat("y", 20)})
	wantKind(t, err, domain.KindUnavailable, "")
	_, runs, moved, _ = rec.take(e)
	if runs[ports.CompactionOnWrite] != 1 || !moved.Empty() {
		t.Errorf("a failed save: runs %v, moves %+v; want one run and no move", runs, moved)
	}
	e.store.failCommits(domain.UserGraph, nil)
	res := e.put(user(sid), "late", strings.Repeat("y", 20))
	if len(res.Compaction.Archived) == 0 {
		t.Fatalf("the write past the grace archived nothing: %+v", res.Compaction)
	}
	_, _, moved, _ = rec.take(e)
	sameIDs(t, "archived reported", moved.Archived, res.Compaction.Archived)

	// A run by request, and the maintenance tick, which prunes too.
	e.put(user(sid), "more", strings.Repeat("z", 20))
	rec.take(e)
	run, err := e.svc.Compact(e.ctx, user(sid))
	if err != nil {
		t.Fatal(err)
	}
	e.svc.maint.Tick(e.ctx)
	_, runs, moved, _ = rec.take(e)
	if want := map[ports.CompactionTrigger]int{ports.CompactionOnRequest: 1, ports.CompactionOnMaintenance: 1}; fmt.Sprint(runs) != fmt.Sprint(want) {
		t.Errorf("runs = %v, want %v", runs, want)
	}
	var want compaction.Moves
	addMoves(&want, run)
	for _, ev := range e.evs(ports.EventCompacted) {
		if ev.SourceSession == "" { // the tick's
			addMoves(&want, *ev.Compaction)
		}
	}
	sameIDs(t, "archived by the run and the tick", moved.Archived, want.Archived)
	sameIDs(t, "orphaned by the run and the tick", moved.Orphaned, want.Orphaned)
	sameIDs(t, "pruned by the tick", moved.Pruned, want.Pruned)
}

// A graph is compacted once when it loads; its moves count as it is served.
func TestMetricsReportTheRunAtLoad(t *testing.T) {
	e, rec := meteredEnv(t, func(c *Config) { c.Policy.MaxTokens = 200 })
	g := domain.NewGraph(domain.ProjectGraph(projA))
	for i := range 12 {
		if _, err := g.PutNode(domain.NodeInput{ID: fmt.Sprintf("old%d", i), Gist: strings.Repeat("x", 20)},
			domain.Stamp{Now: domain.Micros(i + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	e.store.seed(t, g.Key(), g.Data())
	rec.take(e)
	e.session(projA)
	_, runs, moved, sessions := rec.take(e)
	if runs[ports.CompactionOnLoad] != 1 || len(moved.Archived) == 0 || sessions != 1 {
		t.Errorf("loading an over-budget graph: runs %v, moves %+v, sessions %d; want one load run that archived, one session",
			runs, moved, sessions)
	}
	if got := storedTiers(t, e, g.Key())[domain.Archived]; got != len(moved.Archived) {
		t.Errorf("%d archived reported, %d stored archived", len(moved.Archived), got)
	}
}

// flakySessions fails UpdateSessions while fail is set.
type flakySessions struct {
	ports.SessionRepository
	mu   sync.Mutex
	fail bool
}

func (f *flakySessions) UpdateSessions(ctx context.Context, ch ports.SessionChanges) error {
	f.mu.Lock()
	fail := f.fail
	f.mu.Unlock()
	if fail {
		return domain.Unavailable(errAny, "save sessions")
	}
	return f.SessionRepository.UpdateSessions(ctx, ch)
}

func (f *flakySessions) setFail(v bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail = v
}

// Only sessions that were saved are reported as started.
func TestMetricsReportSessionsStarted(t *testing.T) {
	e, rec := meteredEnv(t)
	sessions := &flakySessions{SessionRepository: e.store}
	svc, err := New(e.cfg, Deps{Graphs: e.store, Sessions: sessions, Clock: e.clock, Events: e.events, Paths: fakePaths{}, Metrics: rec})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(context.Background()) })
	if _, err := svc.RegisterSession(e.ctx, "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Read(e.ctx, ReadRequest{CWD: projA}); err != nil {
		t.Fatal(err)
	}
	sessions.setFail(true)
	if _, err := svc.RegisterSession(e.ctx, "", ""); err == nil {
		t.Error("a session that could not be saved was started")
	}
	sessions.setFail(false)
	svc.store.WaitIdle()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.sessions != 2 {
		t.Errorf("%d sessions reported started, want 2", rec.sessions)
	}
}
