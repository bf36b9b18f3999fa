package graphstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/ports"
)

// Team mode: several kg servers share one repository
// (ports.SharedGraphRepository; docs/design/team.md). Everything in this
// file runs only when the store's shared repository is set; with the json
// and bolt backends none of it is reached.
//
// Each server keeps its own copy of every loaded graph, as it does alone, at
// a position of the graph's change log (Entry.at). The copy is brought
// forward in three ways, each under the entry's syncMu, so that they take
// turns and a batch's events are published once and in order:
//   - a write (commitBatch) locks the graph in the database, applies the
//     batches other servers committed since, then its own, and commits;
//   - a read checks the positions of its graphs (one round trip) and
//     catches up those behind (Fresh);
//   - the listener applies what other servers commit as they commit it,
//     and after a reconnection, or every poll, checks every loaded graph
//     (sharedWatcher).

// team is the store's team-mode part: the catch-up of its graphs, a
// batch's write order in the database and the publishing of other servers'
// batches. It is the store itself, seen through what only team mode does,
// so that Store's own methods are the cache's and the committer's.
type team struct{ *Store }

// loadShared loads a graph of a shared repository with its position. The
// graph is restored with no lowest seq: its durable seq must be exactly
// the database's, never a watermark above it, or a session could skip a
// seq another server commits later (docs/design/team.md#the-write-order).
// The compaction run of the load is committed like a write; when another
// server committed meanwhile, the load starts again.
func (st team) loadShared(ctx context.Context, key domain.GraphKey) (*domain.Graph, uint64, bool, error) {
	for attempt := 1; ; attempt++ {
		data, at, err := st.Shared.LoadAt(ctx, key)
		if err != nil {
			return nil, 0, false, err
		}
		g, notes := domain.Restore(key, data, domain.RestoreOptions{Take: true})
		for _, n := range notes {
			st.Log.Warn("graph load", "graph", key.String(), "note", n)
		}
		moves := st.compactLoaded(key, g)
		// A removed graph loads empty but for the seq it reached: not
		// stored.
		bare := data
		bare.Seq = 0
		stored := !bare.Empty()
		if g.Pending().Empty() || !stored {
			st.logLoaded(key, g, moves)
			return g, at, stored, nil
		}
		w, remote, err := st.Shared.BeginWrite(ctx, key, at)
		if err == nil && len(remote) == 0 {
			var next uint64
			if next, err = w.Commit(ctx, g, g.Pending(), ports.BatchRecord{}); err == nil {
				g.Checkpoint()
				st.logLoaded(key, g, moves)
				return g, next, true, nil
			}
		} else if err == nil {
			w.Abort(ctx)
			if attempt < 3 {
				continue // another server wrote meanwhile: load what it wrote
			}
			err = errors.New("other servers kept writing")
		}
		// Served as stored: the moves are made again by the next write's
		// compaction run.
		st.Log.Warn("the compaction of a graph just loaded could not be saved; served as stored", "graph", key.String(), "err", err)
		g.Rollback()
		st.logLoaded(key, g, compaction.Moves{})
		return g, at, true, nil
	}
}

// errStaleCopy is the error of a catch-up that cannot be applied to the
// copy in memory (the change log no longer reaches back to it, or the copy
// holds changes that are not committed): the graph is loaded afresh.
var errStaleCopy = errors.New("this server's copy of the graph cannot be caught up")

// beginShared locks e's graph for a batch and brings e up to the committed
// state, publishing the events of what it applies. The caller holds
// e.syncMu. A copy that cannot be caught up is dropped from the cache; the
// batch's writes then go to the graph loaded afresh.
func (st team) beginShared(ctx context.Context, e *Entry) (ports.GraphWrite, error) {
	w, remote, err := st.Shared.BeginWrite(ctx, e.key, e.at)
	if err != nil {
		if errors.Is(err, ports.ErrLogGap) {
			st.dropStale(e, err)
			return nil, errGone
		}
		return nil, err
	}
	if err := st.applyRemote(e, remote); err != nil {
		w.Abort(ctx)
		st.dropStale(e, err)
		return nil, errGone
	}
	return w, nil
}

// failBeforeApply ends a batch that could not begin: each write gets err
// (errGone sends it to the graph loaded afresh), and the read stamps go back
// to the queue for the next batch.
func (st team) failBeforeApply(e *Entry, batch []*writeOp, stamps map[string]domain.Micros, err error) {
	if !errors.Is(err, errGone) {
		st.Log.Error("a write could not lock its graph in the database", "graph", e.key.String(), "writes", len(batch), "err", err)
		err = unavailableWrite(e.key, err)
	}
	e.q.Lock()
	for id, t := range stamps {
		if e.stamps == nil {
			e.stamps = map[string]domain.Micros{}
		}
		e.stamps[id] = max(e.stamps[id], t)
	}
	e.nstamps = len(e.stamps)
	e.q.Unlock()
	st.Metrics.BatchCommitted(ports.Batch{Level: e.key.Level, Writes: len(batch), Err: err})
	e.settled()
	for _, op := range batch {
		op.err, op.events = err, nil
		close(op.done)
	}
}

// commitShared commits the batch through w, recording who wrote what and
// its events in the change log, and moves e to the batch's position. The
// caller holds e.syncMu and e.mu for reading.
func (st team) commitShared(ctx context.Context, e *Entry, w ports.GraphWrite, batch []*writeOp) error {
	rec := ports.BatchRecord{}
	for _, op := range batch {
		if op.err != nil {
			continue
		}
		rec.Writes = append(rec.Writes, ports.WriteRecord{Session: op.session, Principal: op.principal, FirstSeq: op.firstSeq, LastSeq: op.lastSeq, Op: op.op})
		if op.events != nil {
			for ev := range op.events { // the sequence is read again when the events go out
				rec.Events = append(rec.Events, ev)
			}
		}
	}
	at, err := w.Commit(ctx, e.g, e.g.Pending(), rec)
	if err != nil {
		return err
	}
	e.at = at
	st.published.mark(e.key, at) // its events go out from commitBatch
	return nil
}

// applyRemote applies batches other servers committed, in order, to e's
// copy and publishes their events. The caller holds e.syncMu. A copy with
// changes of its own that are not committed cannot take them (errStaleCopy).
func (st team) applyRemote(e *Entry, remote []ports.CommittedBatch) error {
	if len(remote) == 0 {
		return nil
	}
	e.mu.Lock()
	if pendingItems(e.g.Pending()) {
		e.mu.Unlock()
		return fmt.Errorf("%w: it holds changes not yet committed", errStaleCopy)
	}
	for _, b := range remote {
		e.g.ApplyCommitted(b.Delta)
		e.at = b.At
	}
	e.mu.Unlock()
	for _, b := range remote {
		st.publishBatch(e.key, b)
	}
	return nil
}

// pendingItems reports whether cs names an item (its seq alone does not
// count: a rolled-back save leaves it pending).
func pendingItems(cs domain.ChangeSet) bool {
	cs.Meta = false // a copy: the graph's own set is not touched
	return !cs.Empty()
}

// publishBatch publishes the events of a batch committed elsewhere, unless
// they went out already, and records that they did. Its compaction moves
// are another server's work: they go to the subscribers, never to this
// server's metrics (docs/design/team.md#health-and-metrics).
func (st team) publishBatch(key domain.GraphKey, b ports.CommittedBatch) {
	if !st.published.claim(key, b.At) {
		return
	}
	if len(b.Events) > 0 {
		// One batch of another server, of one graph: published as one
		// write's events (a subscriber short of room re-reads the graph).
		st.Events.Publish(slices.Values(b.Events))
	}
}

// publishMarks is, per graph, the position of the last batch whose events
// went out (team mode): a batch's events are published once, in order,
// however it reached this server.
type publishMarks struct {
	mu sync.Mutex
	at map[domain.GraphKey]uint64
}

// claim records that the batch at position at of key goes out now, and
// reports false, recording nothing, when it or a later one went out.
func (p *publishMarks) claim(key domain.GraphKey, at uint64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if at <= p.at[key] {
		return false
	}
	p.set(key, at)
	return true
}

// mark records that the batches of key up to at went out.
func (p *publishMarks) mark(key domain.GraphKey, at uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.set(key, max(p.at[key], at))
}

func (p *publishMarks) set(key domain.GraphKey, at uint64) {
	if p.at == nil {
		p.at = map[domain.GraphKey]uint64{}
	}
	p.at[key] = at
}

// of is the position of the last batch of key whose events went out; 0
// for a graph not followed.
func (p *publishMarks) of(key domain.GraphKey) uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.at[key]
}

// followed lists the graphs whose events went out.
func (p *publishMarks) followed() []domain.GraphKey {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Collect(maps.Keys(p.at))
}

// dropStale takes a copy that cannot be caught up out of the cache; the
// next request loads the graph afresh. It is no fault: Health lists
// nothing.
func (st team) dropStale(e *Entry, why error) {
	e.q.Lock()
	e.gone = true
	e.q.Unlock()
	st.leave(e, nil)
	st.Log.Info("graph reloaded to catch up with other servers", "graph", e.key.String(), "why", why)
}

// catchUp brings e to the committed state if it is behind head (0: ask the
// change log), applying and publishing what other servers committed.
func (st team) catchUp(ctx context.Context, e *Entry, head uint64) error {
	e.syncMu.Lock()
	defer e.syncMu.Unlock()
	e.q.Lock()
	gone := e.gone
	e.q.Unlock()
	if gone || (head != 0 && e.at >= head) {
		return nil
	}
	remote, err := st.Shared.Since(ctx, e.key, e.at)
	if errors.Is(err, ports.ErrLogGap) {
		st.dropStale(e, err)
		return nil
	}
	if err != nil {
		return err
	}
	if err := st.applyRemote(e, remote); err != nil {
		st.dropStale(e, err)
	}
	return nil
}

// Fresh catches the loaded graphs among keys up with what other servers
// committed, in one round trip when none is behind: what a read does
// first, so that a session whose calls land on different servers sees its
// own and everyone's committed writes (docs/design/team.md#reads). A graph
// not loaded is loaded at its committed state anyway. When the database
// cannot be reached, the read is served from memory and the failure
// logged, and Fresh reports stale: what is served may be behind what other
// servers committed (docs/design/team.md#when-the-database-is-away).
func (st *Store) Fresh(ctx context.Context, keys ...domain.GraphKey) (stale bool) {
	if st.Shared == nil {
		return false
	}
	var entries []*Entry
	st.mu.Lock()
	for _, k := range keys {
		if e, ok := st.entries[k]; ok {
			entries = append(entries, e)
		}
	}
	st.mu.Unlock()
	return team{st}.catchUpAll(ctx, entries) != nil
}

// catchUpAll checks the positions of entries in one round trip and catches
// up those behind. It returns the error of the check when the database
// could not answer it: the entries are then as they were.
func (st team) catchUpAll(ctx context.Context, entries []*Entry) error {
	var ready []*Entry
	for _, e := range entries {
		select {
		case <-e.ready:
			if e.err == nil {
				ready = append(ready, e)
			}
		default: // loading: it loads the committed state
		}
	}
	if len(ready) == 0 {
		return nil
	}
	keys := make([]domain.GraphKey, len(ready))
	for i, e := range ready {
		keys[i] = e.key
	}
	heads, err := st.Shared.Heads(ctx, keys)
	if err != nil {
		st.Log.Warn("could not check the graphs' positions; serving from memory", "err", err)
		return err
	}
	var behindErr error
	for _, e := range ready {
		e.syncMu.Lock()
		behind := heads[e.key] > e.at
		e.syncMu.Unlock()
		if !behind {
			continue
		}
		if err := st.catchUp(ctx, e, heads[e.key]); err != nil {
			st.Log.Warn("could not catch a graph up; serving from memory", "graph", e.key.String(), "err", err)
			behindErr = cmp.Or(behindErr, err)
		}
	}
	return behindErr
}

// sharedWatcher is the listener's ports.Watcher: it catches up the loaded
// graphs other servers change and publishes their events; for a graph this
// server has not loaded it publishes the events alone, read from the
// change log, so a /ws subscriber hears of every graph it listens to.
type sharedWatcher struct {
	st  team
	ctx context.Context
	log interface {
		Warn(msg string, args ...any)
	}
}

func (w *sharedWatcher) Changed(key domain.GraphKey, at uint64) {
	st := w.st
	st.mu.Lock()
	e, ok := st.entries[key]
	st.mu.Unlock()
	if ok {
		// A graph loading now may load the batch without publishing its
		// events: wait for it, then publish what it took in.
		select {
		case <-e.ready:
		case <-w.ctx.Done():
			return
		}
		if e.err == nil {
			if err := st.catchUp(w.ctx, e, at); err != nil {
				w.log.Warn("listener: could not catch a graph up; the next read or poll will", "graph", key.String(), "err", err)
				return
			}
			w.publishUnpublished(key, at, at)
			return
		}
	}
	w.publishUnpublished(key, at, ^uint64(0))
}

// Removed drops this server's copy of a project another server removed,
// if it holds one (the catch-up finds the gap the removal left), and
// publishes the removal's project_removed event to this server's
// subscribers, once: a removal takes a position of the graph's change log
// like a batch (docs/design/team.md#removing-a-project).
func (w *sharedWatcher) Removed(key domain.GraphKey, at uint64, nodes, edges int) {
	st := w.st
	st.mu.Lock()
	e, ok := st.entries[key]
	st.mu.Unlock()
	var seq uint64
	if ok {
		select {
		case <-e.ready:
		case <-w.ctx.Done():
			return
		}
		if e.err == nil {
			e.mu.RLock()
			seq = e.g.Seq()
			e.mu.RUnlock()
			if err := st.catchUp(w.ctx, e, at); err != nil {
				w.log.Warn("listener: could not drop a removed project's graph; the next read or poll will", "graph", key.String(), "err", err)
			}
		}
	}
	if !st.published.claim(key, at) {
		return
	}
	st.Events.Publish(ports.One(RemovedEvent(key, seq, Removed{Nodes: nodes, Edges: edges, Stored: true})))
}

// publishUnpublished publishes the events of the batches of key up to
// position at whose events did not go out yet — from the last published
// one, or, for a graph not followed so far, from the one at — and none
// after limit.
func (w *sharedWatcher) publishUnpublished(key domain.GraphKey, at, limit uint64) {
	from := w.st.published.of(key)
	if from >= at {
		return
	}
	if from == 0 || from < at-min(at, 64) {
		from = at - 1 // not followed so far: from this batch on
	}
	w.publishFrom(key, from, limit)
}

// publishFrom publishes the events of the batches of key after from, up to
// limit.
func (w *sharedWatcher) publishFrom(key domain.GraphKey, from, limit uint64) {
	remote, err := w.st.Shared.Since(w.ctx, key, from)
	if err != nil {
		w.log.Warn("listener: could not read a change", "graph", key.String(), "err", err)
		return
	}
	for _, b := range remote {
		if b.At <= limit {
			w.st.publishBatch(key, b)
		}
	}
}

// Resync checks every loaded graph, and every graph whose events this
// server published, against the database: after a reconnection and on
// every poll.
func (w *sharedWatcher) Resync() {
	st := w.st
	entries := st.Loaded()
	_ = st.catchUpAll(w.ctx, entries) // logged; the next poll tries again
	followed := st.published.followed()
	loaded := map[domain.GraphKey]bool{}
	for _, e := range entries {
		loaded[e.key] = true
	}
	followed = slices.DeleteFunc(followed, func(k domain.GraphKey) bool { return loaded[k] })
	if len(followed) == 0 {
		return
	}
	heads, err := st.Shared.Heads(w.ctx, followed)
	if err != nil {
		return
	}
	for _, k := range followed {
		from := st.published.of(k)
		if heads[k] > from {
			w.publishFrom(k, from, ^uint64(0))
		}
	}
}

// Watch runs the listener until ctx is done (Service.Run starts it).
func (st *Store) Watch(ctx context.Context) {
	st.Shared.Watch(ctx, &sharedWatcher{st: team{st}, ctx: ctx, log: st.Log})
}
