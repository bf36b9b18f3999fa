package graphstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/domain/recall"
	"github.com/kg-memory/kg/ports"
)

// Deps is what the store needs from outside, given to New; the store reads
// them as its own fields (st.Graphs, st.Shared, ...) and so may its caller.
type Deps struct {
	Graphs ports.GraphRepository // loads and commits the graphs
	Clock  ports.Clock
	Policy compaction.Policy // the compaction run of a load
	Log    *slog.Logger
	Events ports.Events // receives the events of each durable batch
	// Metrics is told of each batch, compaction run and durable move.
	Metrics ports.Metrics
	// MinSeq returns the highest seq any live session has seen of a graph:
	// the lowest seq the graph may continue from when it is loaded.
	MinSeq func(domain.GraphKey) uint64
	// IdleAfter is how long a project graph stays loaded without a request
	// (Config.IdleUnload); 0 keeps every graph loaded.
	IdleAfter domain.Micros
	// MaxLoadedNodes bounds the nodes of the loaded project graphs
	// (Config.MaxLoadedNodes); 0: no bound.
	MaxLoadedNodes int
	// Failing names the saves that fail now, for the health report.
	Failing *Failing
	// Shared is Graphs when several servers share it (team mode,
	// shared.go); nil otherwise, and then nothing of shared.go runs.
	Shared ports.SharedGraphRepository
	// PrincipalOf names who makes a write, from its request's context
	// ("" for none); team mode's change log records it.
	PrincipalOf func(context.Context) string
	// Wrote is told of each write a session made once it is durable (a
	// read's promotion is none; maintenance writes with no session): ctx
	// is the write's request, key its graph; nil: no one listens.
	Wrote func(ctx context.Context, session string, key domain.GraphKey)
}

// Store is the multi-project store: the cache of loaded graphs, each behind
// its own lock and committer. A graph is loaded the first time a session or
// request names it. A project graph with no request for IdleAfter is
// unloaded by the maintenance tick once all it holds is durable; the user
// graph stays loaded.
type Store struct {
	Deps

	mu       sync.Mutex
	entries  map[domain.GraphKey]*Entry
	problems map[domain.GraphKey]string // graphs whose last load failed, or that were dropped after a fault, with why
	// floors keeps the seq a graph had reached when it left the cache, when
	// that is above what is stored (a save failed and was rolled back), so
	// a reload never hands out a seq again
	// (docs/design/sync.md#change-sequence).
	floors map[domain.GraphKey]uint64

	// published marks the batches whose events went out (team mode,
	// shared.go).
	published publishMarks

	// life guards closed against committers being started while Close
	// waits for the running ones.
	life    sync.RWMutex
	closed  bool
	running sync.WaitGroup
}

// Entry is one graph in the cache.
type Entry struct {
	key   domain.GraphKey
	ready chan struct{} // closed when the load finished, well or not
	err   error         // the load error; set before ready is closed

	// used is when a request last asked for this graph (domain.Micros).
	used atomic.Int64
	// stored is set once the graph is in storage: it loaded with content,
	// or a save wrote it. A graph never stored is not written while it
	// holds nothing, so that naming a project (a read, a session start)
	// leaves nothing behind (docs/design/storage.md#folder-lookup).
	stored atomic.Bool

	// mu guards g. Reads take it shared and never wait on disk; only the
	// committer takes it exclusively, and never across I/O.
	mu sync.RWMutex
	g  *domain.Graph

	// Preload is g's preload order kept between session starts; it names
	// the graph and its change count, so a stale one is never used
	// (docs/design/hooks.md#the-preload).
	Preload atomic.Pointer[recall.PreloadRanking]

	// FilesRoot is the folder a write last read the graph's files from,
	// in team mode, where the graph's key names no folder; the tick reads
	// them from it (docs/design/trust.md#staleness). Nil: the project's path.
	FilesRoot atomic.Pointer[string]

	// q guards the committer's queue, the pending read stamps and use
	// counts, and gone.
	q       sync.Mutex
	queue   []*writeOp
	active  bool                     // a committer goroutine is draining queue
	saving  bool                     // a batch taken from queue is being applied and saved, not yet acknowledged
	stamps  map[string]domain.Micros // read stamps of active nodes, applied with the next batch
	uses    []pendingUse             // use counts, applied with the next batch after the stamps
	nstamps int                      // len(stamps) + len(uses), readable without ranging
	// gone is set when the entry has left the cache (unloaded when idle, or
	// dropped after a fault). A write or stamp that still holds it goes
	// through the cache again, which loads the graph afresh.
	gone bool

	// Team mode (shared.go): at is the position in the graph's change log
	// that g is at; syncMu is held by whatever brings g forward — a batch
	// of the committer from its lock to its events, or a catch-up — so
	// they take turns and publish in order. at is read and written under
	// syncMu.
	syncMu sync.Mutex
	at     uint64
}

// errGone is what enqueue returns for an entry that has left the cache.
var errGone = errors.New("the graph left the cache")

// New returns an empty store on d: graphs load on first use (Get).
func New(d Deps) *Store {
	if d.Failing == nil {
		d.Failing = &Failing{}
	}
	if d.PrincipalOf == nil {
		d.PrincipalOf = func(context.Context) string { return "" }
	}
	return &Store{Deps: d, entries: map[domain.GraphKey]*Entry{},
		problems: map[domain.GraphKey]string{}, floors: map[domain.GraphKey]uint64{}}
}

// Get returns the loaded graph of key, loading it first if needed. Callers
// that arrive while another loads it wait for that load. A failed load is
// not cached: the next request tries again (the failure stays listed in
// Health until a load succeeds).
func (st *Store) Get(ctx context.Context, key domain.GraphKey) (*Entry, error) {
	st.mu.Lock()
	e, ok := st.entries[key]
	if !ok {
		e = &Entry{key: key, ready: make(chan struct{})}
		st.entries[key] = e
	}
	st.mu.Unlock()
	e.used.Store(int64(st.Clock.Now()))
	if !ok {
		st.load(ctx, e)
		if e.err == nil && key.Level == domain.LevelProject {
			st.Trim(e)
		}
	}
	select {
	case <-e.ready:
	case <-ctx.Done():
		return nil, domain.Unavailable(ctx.Err(), "gave up waiting for the %s to load", GraphName(key))
	}
	if e.err != nil {
		return nil, e.err
	}
	return e, nil
}

// load reads the graph into e, or sets e.err. A panic while loading (a
// repository or the domain meeting data it cannot handle) makes the load
// fail like any other: no goroutine dies of it and no graph-less entry is
// ever cached.
func (st *Store) load(ctx context.Context, e *Entry) {
	defer close(e.ready)
	g, at, stored, err := st.loadGraph(ctx, e.key)
	if err == nil && g == nil {
		err = &domain.Error{Kind: domain.KindInternal, Msg: "the " + GraphName(e.key) + " loaded as nothing"}
	}
	if err != nil {
		e.err = domain.WrapError(err, "the "+GraphName(e.key)+" could not be loaded")
		if domain.KindOf(e.err) == domain.KindInternal {
			e.err = domain.Unavailable(err, "the %s could not be loaded: %v", GraphName(e.key), err)
		}
		st.mu.Lock()
		delete(st.entries, e.key)
		if ctx.Err() == nil { // a cancelled request says nothing about the graph
			st.problems[e.key] = e.err.Error()
		}
		st.mu.Unlock()
		st.Log.Error("graph load failed", "graph", e.key.String(), "err", err)
		return
	}
	e.g, e.at = g, at
	e.stored.Store(stored)
	st.mu.Lock()
	delete(st.problems, e.key)
	delete(st.floors, e.key)
	st.mu.Unlock()
}

// loadGraph reads the graph, restores it with the sessions' watermarks (and
// the seq it had when it last left the cache) as its lowest seq, and runs
// compaction once before it is first served. stored reports whether the
// storage held anything of it. In team mode it returns the position in the
// change log the graph is at (loadShared).
func (st *Store) loadGraph(ctx context.Context, key domain.GraphKey) (g *domain.Graph, at uint64, stored bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			st.Log.Error("graph load panicked", "graph", key.String(), "panic", r, "stack", string(debug.Stack()))
			g, err = nil, domain.Unavailable(fmt.Errorf("panic: %v", r), "the %s could not be loaded (it failed with %v)", GraphName(key), r)
		}
	}()
	if st.Shared != nil {
		return team{st}.loadShared(ctx, key)
	}
	data, err := st.Graphs.Load(ctx, key)
	if err != nil {
		return nil, 0, false, err
	}
	st.mu.Lock()
	floor := st.floors[key]
	st.mu.Unlock()
	// data is this load's own (a repository's Load hands out a fresh
	// copy): the graph takes its nodes and edges rather than copying them.
	g, notes := domain.Restore(key, data, domain.RestoreOptions{MinSeq: max(st.MinSeq(key), floor), Take: true})
	for _, n := range notes {
		st.Log.Warn("graph load", "graph", key.String(), "note", n)
	}
	g.StartChangeLog()
	moves := st.compactLoaded(key, g)
	moved := g.TakeChangeLog(domain.Stamp{Now: st.Clock.Now()}, "")
	// A graph never stored is not written until its first change: naming
	// a project must not leave an empty folder behind.
	if !g.Pending().Empty() && !data.Empty() {
		var err error
		if hr, ok := st.Graphs.(ports.HistoryRepository); ok {
			err = hr.CommitLogged(ctx, key, g, g.Pending(), domain.HistoryBatch{SeqBefore: g.DurableSeq(), SeqAfter: g.Seq(), Entries: moved})
		} else {
			err = st.Graphs.Commit(ctx, key, g, g.Pending())
		}
		if err != nil {
			// Served anyway: the upgrade and the moves stay pending and go
			// out with the next write; reads need no disk.
			st.Log.Error("saving the graph after load failed; will retry with the next write", "graph", key.String(), "err", err)
			st.Failing.SaveFailed(key, err)
		} else {
			g.Checkpoint()
			st.Failing.Clear(saveOf(key))
		}
	}
	st.logLoaded(key, g, moves)
	return g, 0, !data.Empty(), nil
}

// compactLoaded runs the compaction of a graph just loaded.
func (st *Store) compactLoaded(key domain.GraphKey, g *domain.Graph) compaction.Moves {
	moves := compaction.Run(g, st.Clock.Now(), st.Policy)
	st.Metrics.CompactionRan(ports.CompactionOnLoad)
	if !moves.Empty() {
		st.Metrics.NodesMoved(moves) // served from now on, saved now or with the next write
	}
	return moves
}

func (st *Store) logLoaded(key domain.GraphKey, g *domain.Graph, moves compaction.Moves) {
	st.Log.Info("graph loaded", "graph", key.String(), "nodes", g.NodeCount(), "edges", g.EdgeCount(),
		"archived", len(moves.Archived), "restored", len(moves.Restored), "orphaned", len(moves.Orphaned))
}

// drop takes e out of the cache after a fault (a panic in its committer,
// damaged storage), so that the next request loads the graph afresh from
// what is durable; until a load succeeds, Health lists why. Writes still
// queued on e go through the cache again.
func (st *Store) drop(e *Entry, why error) {
	e.q.Lock()
	e.gone = true
	e.q.Unlock()
	st.leave(e, func() { st.problems[e.key] = why.Error() })
	st.Log.Error("graph dropped from the cache; the next request reloads it", "graph", e.key.String(), "why", why)
}

// leave removes e from the cache, keeping the seq it reached when that is
// above its durable seq, and runs also under the cache's lock.
func (st *Store) leave(e *Entry, also func()) {
	e.mu.RLock()
	seq, durable := e.g.Seq(), e.g.DurableSeq()
	e.mu.RUnlock()
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.entries[e.key] == e {
		delete(st.entries, e.key)
		// What fails of it now is told by the next load (st.problems)
		// or save.
		st.Failing.Clear(saveOf(e.key), CheckpointOf(e.key))
	}
	if seq > durable {
		st.floors[e.key] = max(st.floors[e.key], seq)
	}
	if also != nil {
		also()
	}
}

// UnloadIdle unloads the project graphs that had no request for idleAfter
// and hold nothing that is not durable: no queued write, no save in flight,
// no pending read stamp, no pending change. It returns the keys unloaded.
// The maintenance tick calls it right after its own write to each graph,
// which made the read stamps durable.
func (st *Store) UnloadIdle(now domain.Micros) []domain.GraphKey {
	if st.IdleAfter <= 0 {
		return nil
	}
	var out []domain.GraphKey
	for _, e := range st.Loaded() {
		if e.key.Level == domain.LevelUser || now-domain.Micros(e.used.Load()) < st.IdleAfter {
			continue
		}
		if st.unload(e, now) {
			st.release(e.key)
			out = append(out, e.key)
		}
	}
	return out
}

// release tells a repository that keeps something of each graph between
// calls that an unloaded graph is gone, so that unloading frees it all
// (docs/design/storage.md#unloading).
func (st *Store) release(key domain.GraphKey) {
	if r, ok := st.Graphs.(ports.GraphReleaser); ok {
		r.Release(key)
	}
}

// unload takes e out of the cache if it is still idle and all it holds is
// durable. Holding e.q keeps writes and stamps out meanwhile: one that
// arrives after finds e gone and loads the graph afresh. A committer that
// has acknowledged its last batch may still be finishing (publishing its
// events); it takes no more batches from a gone entry.
func (st *Store) unload(e *Entry, now domain.Micros) bool {
	e.q.Lock()
	defer e.q.Unlock()
	if now-domain.Micros(e.used.Load()) < st.IdleAfter {
		return false
	}
	return st.unloadLocked(e)
}

// unloadAt takes e out of the cache if its last use is still the one at
// used and all it holds is durable.
func (st *Store) unloadAt(e *Entry, used int64) bool {
	e.q.Lock()
	defer e.q.Unlock()
	if e.used.Load() != used {
		return false
	}
	return st.unloadLocked(e)
}

// unloadLocked takes e out of the cache if all it holds is durable; the
// caller holds e.q.
func (st *Store) unloadLocked(e *Entry) bool {
	if e.gone || e.saving || len(e.queue) > 0 || e.nstamps > 0 {
		return false
	}
	e.mu.RLock()
	pending := !e.g.Pending().Empty()
	e.mu.RUnlock()
	if pending {
		return false
	}
	e.gone = true
	st.leave(e, nil)
	return true
}

// Borrowed is a graph a request loaded only for itself (a search of
// every graph), with the use time its load gave it.
type Borrowed struct {
	e    *Entry
	used int64
}

// Borrow returns e as a graph a request loaded only for itself, with the
// use time its load gave it, for GiveBack.
func (e *Entry) Borrow() Borrowed { return Borrowed{e: e, used: e.used.Load()} }

// Stored reports whether the graph is in storage: it loaded with
// content, or a save wrote it.
func (e *Entry) Stored() bool { return e.stored.Load() }

// GiveBack unloads the graphs a request borrowed, each unless another
// request used it since or it holds something not durable yet: those stay
// until idle unloading takes them.
//
// A search of every graph on a large team database may have held gigabytes
// for a moment; when what it let go is more than a quarter of the bound of
// loaded nodes, the memory goes back to the system at once rather than over
// the next minutes (docs/design/team.md#scale).
func (st *Store) GiveBack(borrowed []Borrowed) {
	freed := 0
	for _, b := range borrowed {
		if b.e.used.Load() == b.used && st.unloadAt(b.e, b.used) {
			st.release(b.e.key)
			freed += nodesOf(b.e)
		}
	}
	if st.MaxLoadedNodes > 0 && freed > st.MaxLoadedNodes/4 {
		debug.FreeOSMemory()
	}
}

// nodesOf is how many nodes e's graph holds.
func nodesOf(e *Entry) int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	s := e.g.Stats()
	return s.Active + s.Archived + s.Orphaned
}

// Trim unloads the project graphs least recently used, other than keep
// (nil: none kept),
// while the loaded project graphs hold more than maxLoadedNodes nodes: a
// server's memory is bounded by what it serves now, not by how many
// graphs it served since the last idle unloading
// (docs/design/storage.md#unloading). A graph holding something not yet
// durable stays; a request still reading one it unloads reads on, and the
// next loads it again.
func (st *Store) Trim(keep *Entry) {
	if st.MaxLoadedNodes <= 0 {
		return
	}
	type candidate struct {
		e     *Entry
		used  int64
		nodes int
	}
	var (
		total int
		cands []candidate
	)
	for _, e := range st.Loaded() {
		if e.key.Level == domain.LevelUser {
			continue
		}
		n := nodesOf(e)
		total += n
		if e != keep {
			cands = append(cands, candidate{e: e, used: e.used.Load(), nodes: n})
		}
	}
	if total <= st.MaxLoadedNodes {
		return
	}
	slices.SortFunc(cands, func(a, b candidate) int { return cmp.Compare(a.used, b.used) })
	for _, c := range cands {
		if total <= st.MaxLoadedNodes {
			return
		}
		if st.unloadAt(c.e, c.used) {
			st.release(c.e.key)
			total -= c.nodes
		}
	}
}

// Loaded returns the loaded graphs: the user graph first, then projects by
// path — the one order in which several graphs' read locks are taken.
func (st *Store) Loaded() []*Entry {
	st.mu.Lock()
	out := make([]*Entry, 0, len(st.entries))
	for _, e := range st.entries {
		select {
		case <-e.ready:
			if e.err == nil {
				out = append(out, e)
			}
		default:
		}
	}
	st.mu.Unlock()
	slices.SortFunc(out, func(a, b *Entry) int { return CompareKeys(a.key, b.key) })
	return out
}

// ProjectGraphs returns the key of every project graph, stored or loaded
// and not saved yet, ordered by path: what a search of every graph and an
// undo of a session kg no longer knows span, each keeping those its caller
// may read.
func (st *Store) ProjectGraphs(ctx context.Context) ([]domain.GraphKey, error) {
	stored, err := st.Graphs.List(ctx)
	if err != nil {
		return nil, domain.WrapError(err, "list projects")
	}
	seen := map[domain.GraphKey]bool{}
	var out []domain.GraphKey
	add := func(k domain.GraphKey) {
		if k.Level == domain.LevelProject && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, sg := range stored {
		add(sg.Key)
	}
	for _, e := range st.Loaded() {
		add(e.Key())
	}
	slices.SortFunc(out, CompareKeys)
	return out, nil
}

// CompareKeys orders graph keys: the user graph first, then projects by path.
func CompareKeys(a, b domain.GraphKey) int {
	if a.Level != b.Level {
		if a.Level == domain.LevelUser {
			return -1
		}
		return 1
	}
	switch {
	case a.Project < b.Project:
		return -1
	case a.Project > b.Project:
		return 1
	}
	return 0
}

// IsLoaded reports whether key's graph is in the cache.
func (st *Store) IsLoaded(key domain.GraphKey) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	_, ok := st.entries[key]
	return ok
}

// ForgetProblem drops what Health says of key's graph (it was removed).
func (st *Store) ForgetProblem(key domain.GraphKey) {
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.problems, key)
}

// Problems returns the graphs that could not be loaded, sorted.
func (st *Store) Problems() []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]string, 0, len(st.problems))
	for _, p := range st.problems {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Stamp records that an active node was read at t. The stamp is applied by
// the graph's next batch or maintenance tick, so a read never waits on disk
// (a crash may lose it). A stamp for an entry that has just left the cache
// goes to the graph loaded afresh.
func (st *Store) Stamp(ctx context.Context, e *Entry, id string, t domain.Micros) {
	// The graph cannot be loaded: the stamp is lost, like in a crash.
	st.queueOnLive(ctx, e, func(e *Entry) {
		if e.stamps == nil {
			e.stamps = map[string]domain.Micros{}
		}
		if t > e.stamps[id] {
			e.stamps[id] = t
		}
	})
}

// queueOnLive runs add on the queue of e's graph under its lock, then
// recounts what waits there; an entry gone (unloaded or replaced) is
// loaded again first. If the graph cannot be loaded, nothing is queued.
func (st *Store) queueOnLive(ctx context.Context, e *Entry, add func(*Entry)) {
	for {
		e.q.Lock()
		if !e.gone {
			add(e)
			e.nstamps = len(e.stamps) + len(e.uses)
			e.q.Unlock()
			return
		}
		e.q.Unlock()
		var err error
		if e, err = st.Get(ctx, e.key); err != nil {
			return
		}
	}
}

// pendingUse is one session's use of a node at a time, waiting for the
// graph's next batch (docs/design/compaction.md#the-use-count).
type pendingUse struct {
	id string
	t  domain.Micros
}

// CountUses leaves one use of each node of ids at t for the graph's next
// batch or tick, like a read stamp: a use count takes no version and no seq,
// and the read that counts never waits on disk. The caller has checked that
// the session had not counted them.
func (st *Store) CountUses(ctx context.Context, e *Entry, ids []string, t domain.Micros) {
	// The graph cannot be loaded: the count is lost, like a read stamp in a crash.
	st.queueOnLive(ctx, e, func(e *Entry) {
		for _, id := range ids {
			e.uses = append(e.uses, pendingUse{id: id, t: t})
		}
	})
}

// WithPendingUses returns n, a node of e's graph read before, with its use
// count showing the counts still pending, as the next batch will apply
// them: a copy when any is pending, n itself otherwise. A batch that
// applied some of them since took them out of the pending ones first, so
// none is shown twice (a count applied meanwhile may be missing from this
// one read).
func (e *Entry) WithPendingUses(n *domain.Node) *domain.Node {
	e.q.Lock()
	defer e.q.Unlock()
	u := n.Use
	for _, p := range e.uses {
		if p.id == n.ID {
			u = u.Add(p.t)
		}
	}
	if u == n.Use {
		return n
	}
	c := *n // the graph's nodes are never changed in place
	c.Use = u
	return &c
}

// errClosed is what a write gets once Close has begun.
var errClosed = &domain.Error{Kind: domain.KindUnavailable, Msg: "the server is shutting down; retry once it is back"}

// GraphName names a graph in messages: "user graph" or "project graph (/p)".
func GraphName(key domain.GraphKey) string {
	if key.Level == domain.LevelUser {
		return "user graph"
	}
	return "project graph (" + key.Project + ")"
}

// Key is the graph's key.
func (e *Entry) Key() domain.GraphKey { return e.key }

// Graph is the loaded graph: read it under RLock, change it under Lock
// (the committer and the staleness round do).
func (e *Entry) Graph() *domain.Graph { return e.g }

// RLock takes the graph's lock shared: reads take it and never wait on
// disk.
func (e *Entry) RLock() { e.mu.RLock() }

// RUnlock releases RLock.
func (e *Entry) RUnlock() { e.mu.RUnlock() }

// Lock takes the graph's lock exclusively, never across I/O.
func (e *Entry) Lock() { e.mu.Lock() }

// Unlock releases Lock.
func (e *Entry) Unlock() { e.mu.Unlock() }
