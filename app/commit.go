package app

import (
	"context"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// change applies one write to the graph under its write lock, with the
// write's own stamp (one clock read), and returns the events to publish
// once it is durable. A change that fails must leave the graph unchanged
// (the domain's rejected writes do).
type change func(g *domain.Graph, at domain.Stamp) ([]ports.Event, error)

// writeOp is one write waiting in a graph's committer queue.
type writeOp struct {
	session string
	apply   change
	events  []ports.Event
	err     error
	done    chan struct{} // closed when the op is durable or has failed
}

// write sends a change through the graph's committer (group commit,
// storage.md) and returns once it is durable or has failed. Writes that
// arrive while a save is in flight form the next batch.
func (st *store) write(ctx context.Context, e *graphEntry, session string, apply change) error {
	op := &writeOp{session: session, apply: apply, done: make(chan struct{})}
	if err := st.enqueue(ctx, e, op, false); err != nil {
		return err
	}
	select {
	case <-op.done:
		return op.err
	case <-ctx.Done():
		return domain.Unavailable(ctx.Err(), "gave up waiting for the save of the %s; the change may still be saved", graphName(e.key))
	}
}

// enqueue adds op to the graph's queue and starts its committer if none is
// running. force lets Close flush after it has refused new writes.
func (st *store) enqueue(ctx context.Context, e *graphEntry, op *writeOp, force bool) error {
	st.life.RLock()
	defer st.life.RUnlock()
	if st.closed && !force {
		return errClosed
	}
	e.q.Lock()
	defer e.q.Unlock()
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
// the queue is empty.
func (st *store) commitLoop(ctx context.Context, e *graphEntry) {
	defer st.running.Done()
	for {
		e.q.Lock()
		if len(e.queue) == 0 {
			e.active = false
			e.q.Unlock()
			return
		}
		batch, stamps := e.queue, e.stamps
		e.queue, e.stamps, e.nstamps = nil, nil, 0
		e.q.Unlock()
		st.commitBatch(ctx, e, batch, stamps)
	}
}

// commitBatch applies a batch in arrival order, saves it once, and
// acknowledges every caller; events go out after the acknowledgements, and
// only when the save is durable.
func (st *store) commitBatch(ctx context.Context, e *graphEntry, batch []*writeOp, stamps map[string]domain.Micros) {
	s := st.s
	e.mu.Lock()
	for id, t := range stamps {
		e.g.StampRead(id, t)
	}
	for _, op := range batch {
		at := domain.Stamp{Now: s.clock.Now(), Session: op.session}
		op.events, op.err = op.apply(e.g, at)
	}
	dirty := !e.g.Pending().Empty()
	e.mu.Unlock()

	var err error
	if dirty {
		// Only the committer changes the graph, so a shared lock is enough
		// to keep it still during the I/O, and reads go on meanwhile.
		e.mu.RLock()
		err = s.graphs.Commit(ctx, e.key, e.g, e.g.Pending())
		e.mu.RUnlock()
		e.mu.Lock()
		if err == nil {
			e.g.Checkpoint()
		} else {
			e.g.Rollback()
		}
		e.mu.Unlock()
	}
	if err != nil {
		s.log.Error("graph save failed; batch rolled back", "graph", e.key.String(), "writes", len(batch), "err", err)
		fail := unavailableWrite(e.key, err)
		for _, op := range batch {
			if op.err == nil {
				op.err = fail
			}
			op.events = nil
		}
	}
	for _, op := range batch {
		close(op.done)
	}
	for _, op := range batch {
		if op.err == nil {
			s.publish(op.events)
		}
	}
}

// compactRun is the compaction run of one write, with its compacted event
// when it moved nodes.
func (s *Service) compactRun(g *domain.Graph, at domain.Stamp) (domain.Moves, []ports.Event) {
	m := g.Compact(at.Now, s.cfg.Policy)
	if m.Empty() {
		return m, nil
	}
	ev := eventBase(ports.EventCompacted, g.Key(), g.Seq(), at.Session)
	ev.Compaction = &m
	return m, []ports.Event{ev}
}
