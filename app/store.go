package app

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

// storeDeps is what the store needs from outside: it holds no reference to
// the Service, so each can be read and changed on its own.
type storeDeps struct {
	graphs ports.GraphRepository
	clock  ports.Clock
	policy domain.Policy
	log    *slog.Logger
	events ports.Events // receives the events of each durable batch
	// metrics is told of each batch, compaction run and durable move.
	metrics ports.Metrics
	// minSeq returns the highest seq any live session has seen of a graph:
	// the lowest seq the graph may continue from when it is loaded.
	minSeq func(domain.GraphKey) uint64
	// idleAfter is how long a project graph stays loaded without a request
	// (Config.IdleUnload); 0 keeps every graph loaded.
	idleAfter domain.Micros
	// maxLoadedNodes bounds the nodes of the loaded project graphs
	// (Config.MaxLoadedNodes); 0: no bound.
	maxLoadedNodes int
	// failing names the saves that fail now, for Health.
	failing *failing
	// shared is graphs when several servers share it (team mode,
	// shared.go); nil otherwise, and then nothing of shared.go runs.
	shared ports.SharedGraphRepository
}

// store is the multi-project store: the cache of loaded graphs, each behind
// its own lock and committer. A graph is loaded the first time a session or
// request names it. A project graph with no request for idleAfter is
// unloaded by the maintenance tick once all it holds is durable; the user
// graph stays loaded.
type store struct {
	storeDeps

	mu       sync.Mutex
	entries  map[domain.GraphKey]*graphEntry
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

// graphEntry is one graph in the cache.
type graphEntry struct {
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

	// preload is g's preload order kept between session starts; it names
	// the graph and its change count, so a stale one is never used
	// (docs/design/hooks.md#the-preload).
	preload atomic.Pointer[recall.PreloadRanking]

	// filesRoot is the folder a write last read the graph's files from,
	// in team mode, where the graph's key names no folder; the tick reads
	// them from it (docs/design/trust.md#staleness). Nil: the project's path.
	filesRoot atomic.Pointer[string]

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

func newStore(d storeDeps) *store {
	if d.failing == nil {
		d.failing = &failing{}
	}
	return &store{storeDeps: d, entries: map[domain.GraphKey]*graphEntry{},
		problems: map[domain.GraphKey]string{}, floors: map[domain.GraphKey]uint64{}}
}

// get returns the loaded graph of key, loading it first if needed. Callers
// that arrive while another loads it wait for that load. A failed load is
// not cached: the next request tries again (the failure stays listed in
// Health until a load succeeds).
func (st *store) get(ctx context.Context, key domain.GraphKey) (*graphEntry, error) {
	st.mu.Lock()
	e, ok := st.entries[key]
	if !ok {
		e = &graphEntry{key: key, ready: make(chan struct{})}
		st.entries[key] = e
	}
	st.mu.Unlock()
	e.used.Store(int64(st.clock.Now()))
	if !ok {
		st.load(ctx, e)
		if e.err == nil && key.Level == domain.LevelProject {
			st.trim(e)
		}
	}
	select {
	case <-e.ready:
	case <-ctx.Done():
		return nil, domain.Unavailable(ctx.Err(), "gave up waiting for the %s to load", graphName(key))
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
func (st *store) load(ctx context.Context, e *graphEntry) {
	defer close(e.ready)
	g, at, stored, err := st.loadGraph(ctx, e.key)
	if err == nil && g == nil {
		err = &domain.Error{Kind: domain.KindInternal, Msg: "the " + graphName(e.key) + " loaded as nothing"}
	}
	if err != nil {
		e.err = wrapErr(err, "the "+graphName(e.key)+" could not be loaded")
		if domain.KindOf(e.err) == domain.KindInternal {
			e.err = domain.Unavailable(err, "the %s could not be loaded: %v", graphName(e.key), err)
		}
		st.mu.Lock()
		delete(st.entries, e.key)
		if ctx.Err() == nil { // a cancelled request says nothing about the graph
			st.problems[e.key] = e.err.Error()
		}
		st.mu.Unlock()
		st.log.Error("graph load failed", "graph", e.key.String(), "err", err)
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
func (st *store) loadGraph(ctx context.Context, key domain.GraphKey) (g *domain.Graph, at uint64, stored bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			st.log.Error("graph load panicked", "graph", key.String(), "panic", r, "stack", string(debug.Stack()))
			g, err = nil, domain.Unavailable(fmt.Errorf("panic: %v", r), "the %s could not be loaded (it failed with %v)", graphName(key), r)
		}
	}()
	if st.shared != nil {
		return st.loadShared(ctx, key)
	}
	data, err := st.graphs.Load(ctx, key)
	if err != nil {
		return nil, 0, false, err
	}
	st.mu.Lock()
	floor := st.floors[key]
	st.mu.Unlock()
	// data is this load's own (a repository's Load hands out a fresh
	// copy): the graph takes its nodes and edges rather than copying them.
	g, notes := domain.Restore(key, data, domain.RestoreOptions{MinSeq: max(st.minSeq(key), floor), Take: true})
	for _, n := range notes {
		st.log.Warn("graph load", "graph", key.String(), "note", n)
	}
	g.StartChangeLog()
	moves := st.compactLoaded(key, g)
	moved := g.TakeChangeLog(domain.Stamp{Now: st.clock.Now()}, "")
	// A graph never stored is not written until its first change: naming
	// a project must not leave an empty folder behind.
	if !g.Pending().Empty() && !data.Empty() {
		var err error
		if hr, ok := st.graphs.(ports.HistoryRepository); ok {
			err = hr.CommitLogged(ctx, key, g, g.Pending(), domain.HistoryBatch{SeqBefore: g.DurableSeq(), SeqAfter: g.Seq(), Entries: moved})
		} else {
			err = st.graphs.Commit(ctx, key, g, g.Pending())
		}
		if err != nil {
			// Served anyway: the upgrade and the moves stay pending and go
			// out with the next write; reads need no disk.
			st.log.Error("saving the graph after load failed; will retry with the next write", "graph", key.String(), "err", err)
			st.failing.saveFailed(key, err)
		} else {
			g.Checkpoint()
			st.failing.clear(saveOf(key))
		}
	}
	st.logLoaded(key, g, moves)
	return g, 0, !data.Empty(), nil
}

// compactLoaded runs the compaction of a graph just loaded.
func (st *store) compactLoaded(key domain.GraphKey, g *domain.Graph) domain.Moves {
	moves := compaction.Run(g, st.clock.Now(), st.policy)
	st.metrics.CompactionRan(ports.CompactionOnLoad)
	if !moves.Empty() {
		st.metrics.NodesMoved(moves) // served from now on, saved now or with the next write
	}
	return moves
}

func (st *store) logLoaded(key domain.GraphKey, g *domain.Graph, moves domain.Moves) {
	st.log.Info("graph loaded", "graph", key.String(), "nodes", g.NodeCount(), "edges", g.EdgeCount(),
		"archived", len(moves.Archived), "restored", len(moves.Restored), "orphaned", len(moves.Orphaned))
}

// saveOf and checkpointOf name what fails in store.failing.
func saveOf(key domain.GraphKey) string       { return "save " + key.String() }
func checkpointOf(key domain.GraphKey) string { return "checkpoint " + key.String() }

// saveFailed records that the graph's save failed with err: Health is
// degraded, naming the cause, until one succeeds.
func (f *failing) saveFailed(key domain.GraphKey, err error) {
	f.set(saveOf(key), "the "+graphName(key)+" could not be saved ("+err.Error()+"); its writes fail until a save succeeds")
}

// checkpointFailed records that folding the graph's journal into its file
// failed: its writes are durable in the journal, which grows meanwhile.
func (f *failing) checkpointFailed(key domain.GraphKey, err error) {
	f.set(checkpointOf(key), "the "+graphName(key)+" could not be written whole ("+err.Error()+
		"); its writes are kept in its journal, which grows until this succeeds")
}

// drop takes e out of the cache after a fault (a panic in its committer,
// damaged storage), so that the next request loads the graph afresh from
// what is durable; until a load succeeds, Health lists why. Writes still
// queued on e go through the cache again.
func (st *store) drop(e *graphEntry, why error) {
	e.q.Lock()
	e.gone = true
	e.q.Unlock()
	st.leave(e, func() { st.problems[e.key] = why.Error() })
	st.log.Error("graph dropped from the cache; the next request reloads it", "graph", e.key.String(), "why", why)
}

// leave removes e from the cache, keeping the seq it reached when that is
// above its durable seq, and runs also under the cache's lock.
func (st *store) leave(e *graphEntry, also func()) {
	e.mu.RLock()
	seq, durable := e.g.Seq(), e.g.DurableSeq()
	e.mu.RUnlock()
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.entries[e.key] == e {
		delete(st.entries, e.key)
		// What fails of it now is told by the next load (st.problems)
		// or save.
		st.failing.clear(saveOf(e.key), checkpointOf(e.key))
	}
	if seq > durable {
		st.floors[e.key] = max(st.floors[e.key], seq)
	}
	if also != nil {
		also()
	}
}

// unloadIdle unloads the project graphs that had no request for idleAfter
// and hold nothing that is not durable: no queued write, no save in flight,
// no pending read stamp, no pending change. It returns the keys unloaded.
// The maintenance tick calls it right after its own write to each graph,
// which made the read stamps durable.
func (st *store) unloadIdle(now domain.Micros) []domain.GraphKey {
	if st.idleAfter <= 0 {
		return nil
	}
	var out []domain.GraphKey
	for _, e := range st.loaded() {
		if e.key.Level == domain.LevelUser || now-domain.Micros(e.used.Load()) < st.idleAfter {
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
func (st *store) release(key domain.GraphKey) {
	if r, ok := st.graphs.(ports.GraphReleaser); ok {
		r.Release(key)
	}
}

// unload takes e out of the cache if it is still idle and all it holds is
// durable. Holding e.q keeps writes and stamps out meanwhile: one that
// arrives after finds e gone and loads the graph afresh. A committer that
// has acknowledged its last batch may still be finishing (publishing its
// events); it takes no more batches from a gone entry.
func (st *store) unload(e *graphEntry, now domain.Micros) bool {
	e.q.Lock()
	defer e.q.Unlock()
	if now-domain.Micros(e.used.Load()) < st.idleAfter {
		return false
	}
	return st.unloadLocked(e)
}

// unloadAt takes e out of the cache if its last use is still the one at
// used and all it holds is durable.
func (st *store) unloadAt(e *graphEntry, used int64) bool {
	e.q.Lock()
	defer e.q.Unlock()
	if e.used.Load() != used {
		return false
	}
	return st.unloadLocked(e)
}

// unloadLocked takes e out of the cache if all it holds is durable; the
// caller holds e.q.
func (st *store) unloadLocked(e *graphEntry) bool {
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

// borrowedGraph is a graph a request loaded only for itself (a search of
// every graph), with the use time its load gave it.
type borrowedGraph struct {
	e    *graphEntry
	used int64
}

// giveBack unloads the graphs a request borrowed, each unless another
// request used it since or it holds something not durable yet: those stay
// until idle unloading takes them.
//
// A search of every graph on a large team database may have held gigabytes
// for a moment; when what it let go is more than a quarter of the bound of
// loaded nodes, the memory goes back to the system at once rather than over
// the next minutes (docs/design/team.md#scale).
func (st *store) giveBack(borrowed []borrowedGraph) {
	freed := 0
	for _, b := range borrowed {
		if b.e.used.Load() == b.used && st.unloadAt(b.e, b.used) {
			st.release(b.e.key)
			freed += nodesOf(b.e)
		}
	}
	if st.maxLoadedNodes > 0 && freed > st.maxLoadedNodes/4 {
		debug.FreeOSMemory()
	}
}

// nodesOf is how many nodes e's graph holds.
func nodesOf(e *graphEntry) int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	s := e.g.Stats()
	return s.Active + s.Archived + s.Orphaned
}

// trim unloads the project graphs least recently used, other than keep
// (nil: none kept),
// while the loaded project graphs hold more than maxLoadedNodes nodes: a
// server's memory is bounded by what it serves now, not by how many
// graphs it served since the last idle unloading
// (docs/design/storage.md#unloading). A graph holding something not yet
// durable stays; a request still reading one it unloads reads on, and the
// next loads it again.
func (st *store) trim(keep *graphEntry) {
	if st.maxLoadedNodes <= 0 {
		return
	}
	type candidate struct {
		e     *graphEntry
		used  int64
		nodes int
	}
	var (
		total int
		cands []candidate
	)
	for _, e := range st.loaded() {
		if e.key.Level == domain.LevelUser {
			continue
		}
		n := nodesOf(e)
		total += n
		if e != keep {
			cands = append(cands, candidate{e: e, used: e.used.Load(), nodes: n})
		}
	}
	if total <= st.maxLoadedNodes {
		return
	}
	slices.SortFunc(cands, func(a, b candidate) int { return cmp.Compare(a.used, b.used) })
	for _, c := range cands {
		if total <= st.maxLoadedNodes {
			return
		}
		if st.unloadAt(c.e, c.used) {
			st.release(c.e.key)
			total -= c.nodes
		}
	}
}

// loaded returns the loaded graphs: the user graph first, then projects by
// path — the one order in which several graphs' read locks are taken.
func (st *store) loaded() []*graphEntry {
	st.mu.Lock()
	out := make([]*graphEntry, 0, len(st.entries))
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
	slices.SortFunc(out, func(a, b *graphEntry) int { return cmpKey(a.key, b.key) })
	return out
}

// cmpKey orders graph keys: the user graph first, then projects by path.
func cmpKey(a, b domain.GraphKey) int {
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

// isLoaded reports whether key's graph is in the cache.
func (st *store) isLoaded(key domain.GraphKey) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	_, ok := st.entries[key]
	return ok
}

// forgetProblem drops what Health says of key's graph (it was removed).
func (st *store) forgetProblem(key domain.GraphKey) {
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.problems, key)
}

// problemList returns the graphs that could not be loaded, sorted.
func (st *store) problemList() []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]string, 0, len(st.problems))
	for _, p := range st.problems {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// stamp records that an active node was read at t. The stamp is applied by
// the graph's next batch or maintenance tick, so a read never waits on disk
// (a crash may lose it). A stamp for an entry that has just left the cache
// goes to the graph loaded afresh.
func (st *store) stamp(ctx context.Context, e *graphEntry, id string, t domain.Micros) {
	for {
		e.q.Lock()
		if !e.gone {
			if e.stamps == nil {
				e.stamps = map[string]domain.Micros{}
			}
			if t > e.stamps[id] {
				e.stamps[id] = t
			}
			e.nstamps = len(e.stamps) + len(e.uses)
			e.q.Unlock()
			return
		}
		e.q.Unlock()
		var err error
		if e, err = st.get(ctx, e.key); err != nil {
			return // the graph cannot be loaded: the stamp is lost, like in a crash
		}
	}
}

// pendingUse is one session's use of a node at a time, waiting for the
// graph's next batch (docs/design/compaction.md#the-use-count).
type pendingUse struct {
	id string
	t  domain.Micros
}

// countUses leaves one use of each node of ids at t for the graph's next
// batch or tick, like a read stamp: a use count takes no version and no seq,
// and the read that counts never waits on disk. The caller has checked that
// the session had not counted them.
func (st *store) countUses(ctx context.Context, e *graphEntry, ids []string, t domain.Micros) {
	for {
		e.q.Lock()
		if !e.gone {
			for _, id := range ids {
				e.uses = append(e.uses, pendingUse{id: id, t: t})
			}
			e.nstamps = len(e.stamps) + len(e.uses)
			e.q.Unlock()
			return
		}
		e.q.Unlock()
		var err error
		if e, err = st.get(ctx, e.key); err != nil {
			return // the graph cannot be loaded: the count is lost, like a read stamp in a crash
		}
	}
}

// showUse makes the read rd of a node of e's graph show its use count with
// the counts still pending, as the next batch will apply them. The node was
// read before: a batch that applied some of them since took them out of the
// pending ones first, so none is shown twice (a count applied meanwhile may
// be missing from this one read).
func (e *graphEntry) showUse(rd *NodeRead) {
	e.q.Lock()
	defer e.q.Unlock()
	u := rd.Node.Use
	for _, p := range e.uses {
		if p.id == rd.Node.ID {
			u = u.Add(p.t)
		}
	}
	if u != rd.Node.Use {
		c := *rd.Node // the graph's nodes are never changed in place
		c.Use = u
		rd.Node = &c
	}
}

// errClosed is what a write gets once Close has begun.
var errClosed = &domain.Error{Kind: domain.KindUnavailable, Msg: "the server is shutting down; retry once it is back"}
