package app

import (
	"context"
	"slices"
	"sync"

	"github.com/kg-memory/kg/domain"
)

// store is the multi-project store: the cache of loaded graphs, each behind
// its own lock and committer. A graph is loaded the first time a session or
// request names it and stays loaded for the life of the service.
type store struct {
	s *Service

	mu       sync.Mutex
	entries  map[domain.GraphKey]*graphEntry
	problems map[domain.GraphKey]string // graphs whose last load failed, with why

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

	// mu guards g. Reads take it shared and never wait on disk; only the
	// committer takes it exclusively, and never across I/O.
	mu sync.RWMutex
	g  *domain.Graph

	// q guards the committer's queue and the pending read stamps.
	q       sync.Mutex
	queue   []*writeOp
	active  bool                     // a committer goroutine is draining queue
	stamps  map[string]domain.Micros // read stamps of active nodes, applied with the next batch
	nstamps int                      // len(stamps), readable without ranging
}

func newStore(s *Service) *store {
	return &store{s: s, entries: map[domain.GraphKey]*graphEntry{}, problems: map[domain.GraphKey]string{}}
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
	if !ok {
		st.load(ctx, e)
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

// load reads the graph, restores it with the sessions' watermarks as its
// lowest seq, and runs compaction once before it is first served.
func (st *store) load(ctx context.Context, e *graphEntry) {
	s := st.s
	defer close(e.ready)
	data, err := s.graphs.Load(ctx, e.key)
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
		s.log.Error("graph load failed", "graph", e.key.String(), "err", err)
		return
	}
	g, notes := domain.Restore(e.key, data, domain.RestoreOptions{MinSeq: s.sessions.maxWatermark(e.key)})
	for _, n := range notes {
		s.log.Warn("graph load", "graph", e.key.String(), "note", n)
	}
	now := s.clock.Now()
	moves := g.Compact(now, s.cfg.Policy)
	// A graph never stored is not written until its first change: naming
	// a project must not leave an empty folder behind.
	if !g.Pending().Empty() && !data.Empty() {
		if err := s.graphs.Commit(ctx, e.key, g, g.Pending()); err != nil {
			// Served anyway: the upgrade and the moves stay pending and go
			// out with the next write; reads need no disk.
			s.log.Error("saving the graph after load failed; will retry with the next write", "graph", e.key.String(), "err", err)
		} else {
			g.Checkpoint()
		}
	}
	e.g = g
	st.mu.Lock()
	delete(st.problems, e.key)
	st.mu.Unlock()
	s.log.Info("graph loaded", "graph", e.key.String(), "nodes", g.NodeCount(), "edges", g.EdgeCount(),
		"archived", len(moves.Archived), "restored", len(moves.Restored), "orphaned", len(moves.Orphaned))
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
// (a crash may lose it).
func (st *store) stamp(e *graphEntry, id string, t domain.Micros) {
	e.q.Lock()
	defer e.q.Unlock()
	if e.stamps == nil {
		e.stamps = map[string]domain.Micros{}
	}
	if t > e.stamps[id] {
		e.stamps[id] = t
	}
	e.nstamps = len(e.stamps)
}

// errClosed is what a write gets once Close has begun.
var errClosed = &domain.Error{Kind: domain.KindUnavailable, Msg: "the server is shutting down; retry once it is back"}
