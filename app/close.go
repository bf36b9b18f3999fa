package app

import (
	"context"
	"errors"
	"iter"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Close shuts the app down: it refuses new writes, makes the pending
// writes and read stamps durable, saves the sessions and folds the
// repositories' journals into their files. Reads keep working. Calling it
// again only saves the sessions again if they changed.
func (s *Service) Close(ctx context.Context) error {
	st := s.store
	st.life.Lock()
	st.closed = true
	st.life.Unlock()

	var errs []error
	// A graph with read stamps but no write in flight gets one empty write
	// to carry them.
	var flushes []*writeOp
	for _, e := range st.loaded() {
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
		st.running.Wait()
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
	if err := s.maint.guard("saving sessions at shutdown", func() error { return s.sessions.save(ctx) }); err != nil {
		errs = append(errs, wrapErr(err, "save sessions at shutdown"))
	}
	if err := s.maint.checkpoint(ctx); err != nil {
		errs = append(errs, wrapErr(err, "checkpoint at shutdown"))
	}
	if err := s.maint.guard("saving tool-event counts at shutdown", func() error { return saveToolEvents(ctx, s.tools) }); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
