package graphstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime/debug"
	"slices"
	"time"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Change applies one write to the graph under its write lock, with the
// write's own stamp (one clock read), and returns the events to publish
// once it is durable. A change that fails must leave the graph unchanged
// (the domain's rejected writes do).
type Change func(g *domain.Graph, at domain.Stamp) ([]ports.Event, error)

// StreamedChange is a change whose events are produced one at a time when
// they are published, rather than held from the change to the end of the
// save: an import of 500,000 nodes would hold as many events
// (docs/performance.md#import-memory). The sequence must only read what the
// change made, which no later batch changes before it is published.
type StreamedChange func(g *domain.Graph, at domain.Stamp) (iter.Seq[ports.Event], error)

// writeOp is one write waiting in a graph's committer queue.
type writeOp struct {
	session   string
	principal string // who makes the write (team mode); "" for none
	apply     StreamedChange
	remove    *Removal              // set for the removal of the graph (Remove): it runs alone in its batch
	events    iter.Seq[ports.Event] // nil: none
	err       error
	done      chan struct{} // closed when the op is durable or has failed
	// firstSeq and lastSeq are the seqs the change took (firstSeq >
	// lastSeq: none), for the change log of team mode.
	firstSeq, lastSeq uint64
	// op is what the change log records the write as: "" for put and
	// delete as each item went, or an undo, an import with replace, a
	// read that promoted (move).
	op domain.HistoryOp
	// logged is the change log entries of the change, once applied
	// (docs/design/trust.md#history-and-undo).
	logged []domain.HistoryEntry
}

// Write sends a change through the graph's committer
// (docs/design/storage.md#group-commit) and returns once it is durable or has
// failed. Writes that arrive while a save is in flight form the next batch.
// When e has left the cache (unloaded when idle, dropped after a fault) before
// the change was applied, the change goes to the graph loaded afresh.
func (st *Store) Write(ctx context.Context, e *Entry, session string, apply Change) error {
	return st.WriteStreamed(ctx, e, session, func(g *domain.Graph, at domain.Stamp) (iter.Seq[ports.Event], error) {
		evs, err := apply(g, at)
		if len(evs) == 0 {
			return nil, err
		}
		return slices.Values(evs), err
	})
}

// WriteStreamed is write for a change whose events are streamed.
func (st *Store) WriteStreamed(ctx context.Context, e *Entry, session string, apply StreamedChange) error {
	return st.WriteLogged(ctx, e, session, "", apply)
}

// WriteLogged is WriteStreamed for a change the change log records as op
// (an undo, an import with replace) rather than as each item's put or
// delete.
func (st *Store) WriteLogged(ctx context.Context, e *Entry, session string, hop domain.HistoryOp, apply StreamedChange) error {
	for {
		op := &writeOp{session: session, principal: st.PrincipalOf(ctx), apply: apply, done: make(chan struct{}), op: hop}
		err := st.enqueue(ctx, e, op, false)
		if err == nil {
			select {
			case <-op.done:
				err = op.err
			case <-ctx.Done():
				return domain.Unavailable(ctx.Err(), "gave up waiting for the save of the %s; the change may still be saved", GraphName(e.key))
			}
		}
		if !errors.Is(err, errGone) {
			if err == nil && session != "" && hop != domain.HistoryMove && st.Wrote != nil {
				st.Wrote(ctx, session, e.key) // capture asks only a conversation that wrote nothing (app/capture)
			}
			return err
		}
		if e, err = st.Get(ctx, e.key); err != nil {
			return err
		}
	}
}

// enqueue adds op to the graph's queue and starts its committer if none is
// running. force lets Close flush after it has refused new writes. An entry
// that has left the cache takes no more writes (errGone).
func (st *Store) enqueue(ctx context.Context, e *Entry, op *writeOp, force bool) error {
	st.life.RLock()
	defer st.life.RUnlock()
	if st.closed && !force {
		return errClosed
	}
	e.q.Lock()
	defer e.q.Unlock()
	if e.gone {
		return errGone
	}
	e.queue = append(e.queue, op)
	if !e.active {
		e.active = true
		st.running.Add(1)
		// The save serves the whole batch: one caller giving up must not
		// cancel it for the others.
		go st.commitLoop(context.WithoutCancel(ctx), e)
	}
	return nil
}

// commitLoop drains the graph's queue, one batch per save, and exits when
// the queue is empty. Writes still queued when the entry has left the
// cache were never applied: they are sent back (errGone) to go through the
// cache again.
func (st *Store) commitLoop(ctx context.Context, e *Entry) {
	defer st.running.Done()
	for {
		e.q.Lock()
		if len(e.queue) == 0 {
			e.active = false
			e.q.Unlock()
			return
		}
		batch, stamps, uses, gone := e.queue, e.stamps, e.uses, e.gone
		e.queue, e.stamps, e.uses, e.nstamps = nil, nil, nil, 0
		// A removal runs alone: the writes before it form this batch, and
		// it and those after it wait for the next.
		if i := slices.IndexFunc(batch, func(op *writeOp) bool { return op.remove != nil }); i > 0 {
			batch, e.queue = batch[:i], batch[i:]
		} else if i == 0 && len(batch) > 1 {
			batch, e.queue = batch[:1], batch[1:]
		}
		e.saving = !gone
		e.q.Unlock()
		if gone {
			for _, op := range batch {
				op.err = errGone
				close(op.done)
			}
			continue
		}
		if batch[0].remove != nil {
			st.remove(ctx, e, batch[0]) // the stamps are of a graph that goes
			continue
		}
		st.commitBatch(ctx, e, batch, stamps, uses)
	}
}

// commitBatch applies a batch in arrival order, saves it once, and
// acknowledges every caller; events go out after the acknowledgements, and
// only when the save is durable.
//
// A panic anywhere in it (a change, the domain, the repository) does not
// end the goroutine: every caller not yet acknowledged gets an unavailable
// error, and the graph is dropped from the cache so that the next request
// reloads it from what is durable. Rolling back instead would trust an
// undo journal that the panic may have left half-written; the stored graph
// is the state known to be good. Damage reported by the repository
// (ports.ErrDamaged) is handled the same way after the rollback: the same
// save would fail again, and the reload tells whether the graph can still
// be read (docs/design/storage.md#loading-and-damage).
func (st *Store) commitBatch(ctx context.Context, e *Entry, batch []*writeOp, stamps map[string]domain.Micros, uses []pendingUse) {
	acked := false
	var w ports.GraphWrite // team mode: the batch's write, holding the graph's lock in the database
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if w != nil {
			w.Abort(ctx)
		}
		st.Log.Error("a graph's committer panicked", "graph", e.key.String(), "writes", len(batch), "panic", r, "stack", string(debug.Stack()))
		if acked { // only the events were left to send
			return
		}
		fail := domain.Unavailable(fmt.Errorf("panic: %v", r),
			"the %s failed while saving (%v); nothing was changed, and it is reloaded from storage at the next request", GraphName(e.key), r)
		st.drop(e, fail)
		e.settled()
		st.Metrics.BatchCommitted(ports.Batch{Level: e.key.Level, Writes: len(batch), Err: fail})
		for _, op := range batch {
			op.err, op.events = fail, nil
			close(op.done)
		}
	}()

	if st.Shared != nil {
		// Held until the events are out: a catch-up must not publish
		// another server's later batch before this one's events.
		e.syncMu.Lock()
		defer e.syncMu.Unlock()
		var err error
		if w, err = (team{st}).beginShared(ctx, e); err != nil {
			team{st}.failBeforeApply(e, batch, stamps, err)
			return
		}
	}
	dirty := st.apply(e, batch, stamps, uses)
	var err error
	if dirty {
		var took time.Duration
		took, err = st.save(ctx, e, w, batch)
		st.Metrics.BatchCommitted(ports.Batch{Level: e.key.Level, Writes: len(batch), Saved: true, SaveTime: took, Err: err})
	} else {
		if w != nil {
			w.Abort(ctx)
		}
		st.Metrics.BatchCommitted(ports.Batch{Level: e.key.Level, Writes: len(batch)})
	}
	switch {
	case err == nil && dirty:
		st.Failing.Clear(saveOf(e.key))
	case err != nil && !errors.Is(err, ports.ErrDamaged):
		st.Failing.SaveFailed(e.key, err)
	}
	if err != nil {
		st.Log.Error("graph save failed; batch rolled back", "graph", e.key.String(), "writes", len(batch), "err", err)
		fail := unavailableWrite(e.key, err)
		failWrites(batch, fail)
		if errors.Is(err, ports.ErrDamaged) {
			st.drop(e, fail)
		}
	}
	e.settled()
	acked = true
	for _, op := range batch {
		close(op.done)
	}
	publishWrites(st.Events, st.Metrics, batch)
}

// failWrites gives every write of a batch whose save failed, but those
// refused on their own, the error fail, and drops their events.
func failWrites(batch []*writeOp, fail error) {
	for _, op := range batch {
		if op.err == nil {
			op.err = fail
		}
		op.events = nil
	}
}

// publishWrites publishes the events of the writes of a durable batch, one
// write's events together, so that a subscriber with no room for them all
// is told to re-read instead of dropped.
func publishWrites(events ports.Events, m ports.Metrics, batch []*writeOp) {
	for _, op := range batch {
		if op.err == nil && op.events != nil {
			events.Publish(countedMoves(m, op.events))
		}
	}
}

// countedMoves is evs, recording in m the nodes each compaction run among
// them moved as they are published.
func countedMoves(m ports.Metrics, evs iter.Seq[ports.Event]) iter.Seq[ports.Event] {
	return func(yield func(ports.Event) bool) {
		for ev := range evs {
			if ev.Compaction != nil {
				m.NodesMoved(*ev.Compaction)
			}
			if !yield(ev) {
				return
			}
		}
	}
}

// settled records that e's batch is durable or has failed, before its
// callers are acknowledged, so that an unload that follows an
// acknowledged write never waits for the committer to finish.
func (e *Entry) settled() {
	e.q.Lock()
	e.saving = false
	e.q.Unlock()
}

// apply applies the read stamps and the use counts, then each change of
// the batch, each with its own clock read, under the graph's write lock, and
// reports whether the graph now has changes to save. A count of a node
// deleted meanwhile counts nothing.
func (st *Store) apply(e *Entry, batch []*writeOp, stamps map[string]domain.Micros, uses []pendingUse) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for id, t := range stamps {
		e.g.StampRead(id, t)
	}
	// In time order: counts queued by concurrent reads may have arrived out
	// of it (docs/decisions/0052-use-day-never-goes-back.md).
	slices.SortStableFunc(uses, func(a, b pendingUse) int { return cmp.Compare(a.t, b.t) })
	for _, u := range uses {
		e.g.CountUse(u.id, u.t)
	}
	for _, op := range batch {
		at := domain.Stamp{Now: st.Clock.Now(), Session: op.session, Principal: op.principal}
		op.firstSeq = e.g.Seq() + 1
		e.g.StartChangeLog()
		op.events, op.err = op.apply(e.g, at)
		op.logged = e.g.TakeChangeLog(at, op.op)
		if op.err != nil {
			op.logged = nil // a refused change changed nothing
		}
		op.lastSeq = e.g.Seq()
	}
	return !e.g.Pending().Empty()
}

// batchLog is the change log of a batch: the entries of its writes, in
// the order they were applied.
func batchLog(g *domain.Graph, batch []*writeOp) domain.HistoryBatch {
	h := domain.HistoryBatch{SeqBefore: g.DurableSeq(), SeqAfter: g.Seq()}
	for _, op := range batch {
		if op.err == nil {
			h.Entries = append(h.Entries, op.logged...)
		}
	}
	return h
}

// save commits the graph's pending changes, then checkpoints the graph, or
// rolls it back to its last durable state when the commit failed. It
// returns how long the commit took. In team mode w is the batch's write
// (shared.go), which the commit ends.
func (st *Store) save(ctx context.Context, e *Entry, w ports.GraphWrite, batch []*writeOp) (time.Duration, error) {
	// Only the committer changes the graph, so a shared lock is enough to
	// keep it still during the I/O, and reads go on meanwhile.
	var took time.Duration
	skip := false
	err := func() error {
		e.mu.RLock()
		defer e.mu.RUnlock()
		if !e.stored.Load() && e.g.HoldsNothing() {
			// Never stored and still nothing to keep (a maintenance
			// tick's schema stamp, a read's empty promotion): a graph is
			// written only once it holds something.
			skip = true
			if w != nil {
				w.Abort(ctx) // team mode: nothing to store, the lock is let go
			}
			return nil
		}
		start := time.Now()
		var err error
		switch hr, logs := st.Graphs.(ports.HistoryRepository); {
		case w != nil:
			err = team{st}.commitShared(ctx, e, w, batch)
		case logs:
			err = hr.CommitLogged(ctx, e.key, e.g, e.g.Pending(), batchLog(e.g, batch))
		default:
			err = st.Graphs.Commit(ctx, e.key, e.g, e.g.Pending())
		}
		took = time.Since(start)
		return err
	}()
	e.mu.Lock()
	defer e.mu.Unlock()
	if err == nil {
		e.g.Checkpoint()
		if !skip {
			e.stored.Store(true)
		}
	} else {
		e.g.Rollback()
	}
	return took, err
}

// unavailableWrite is what every caller of a batch whose save failed gets.
// A save that could not be taken back off the disk (ports.ErrMaybeSaved)
// is not said to have changed nothing: a restart may find it
// (docs/design/storage.md#failed-saves).
func unavailableWrite(key domain.GraphKey, err error) error {
	if errors.Is(err, ports.ErrMaybeSaved) {
		return domain.Unavailable(err, "the %s could not be saved (%v); the disk refused every write since, so the change "+
			"is not served now but may be back after a restart; retry later", GraphName(key), err)
	}
	return domain.Unavailable(err, "the %s could not be saved (%v); nothing was changed, retry later", GraphName(key), err)
}

// Close refuses new writes, then makes the pending writes and read
// stamps durable, waiting for every committer until ctx is done (app's Service.Close).
func (st *Store) Close(ctx context.Context) error {
	st.life.Lock()
	st.closed = true
	st.life.Unlock()

	var errs []error
	// A graph with read stamps but no write in flight gets one empty write
	// to carry them.
	var flushes []*writeOp
	for _, e := range st.Loaded() {
		e.q.Lock()
		n := e.nstamps
		e.q.Unlock()
		if n == 0 {
			continue
		}
		op := &writeOp{apply: func(*domain.Graph, domain.Stamp) (iter.Seq[ports.Event], error) { return nil, nil }, done: make(chan struct{})}
		if err := st.enqueue(ctx, e, op, true); err != nil {
			if !errors.Is(err, errGone) { // unloaded meanwhile: its stamps were made durable first
				errs = append(errs, err)
			}
			continue
		}
		flushes = append(flushes, op)
	}
	drained := make(chan struct{})
	go func() {
		st.WaitIdle()
		close(drained)
	}()
	select {
	case <-drained:
	case <-ctx.Done():
		errs = append(errs, domain.Unavailable(ctx.Err(), "gave up waiting for pending writes to be saved"))
	}
	for _, op := range flushes {
		select {
		case <-op.done:
			if op.err != nil {
				errs = append(errs, op.err)
			}
		default:
		}
	}
	return errors.Join(errs...)
}

// FlushStamps writes e's pending read stamps with an empty write.
func (st *Store) FlushStamps(ctx context.Context, e *Entry) error {
	e.q.Lock()
	n := e.nstamps
	e.q.Unlock()
	if n == 0 {
		return nil
	}
	return st.Write(ctx, e, "", func(*domain.Graph, domain.Stamp) ([]ports.Event, error) { return nil, nil })
}

// WaitIdle returns once no committer runs: every write queued before is
// durable or has failed, and its events are published.
func (st *Store) WaitIdle() { st.running.Wait() }

// Queued is how many writes wait in the graph's committer queue, behind
// the batch being saved.
func (e *Entry) Queued() int {
	e.q.Lock()
	defer e.q.Unlock()
	return len(e.queue)
}
