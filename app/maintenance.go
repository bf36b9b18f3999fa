package app

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kg-memory/kg/app/graphstore"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// maintainer does the maintenance tick's duties on the service's graphs,
// sessions and files: compaction, pruning, the staleness check, the
// checkpoints, the unloading of idle graphs (docs/design/storage.md,
// docs/design/trust.md#staleness). It is apart from Service, the tools'
// surface, so that each reads on its own (docs/decisions/0084-hooks-type.md).
type maintainer struct {
	svc *Service
	// pruned is when the tick last pruned each graph's change log
	// (history.go).
	prunedMu sync.Mutex
	pruned   map[domain.GraphKey]domain.Micros
	// staleMu guards staleRound, where the tick's round of the recorded
	// files stands.
	staleMu    sync.Mutex
	staleRound staleRound
	// tickStarted is when the tick under way started (0: none is), so that
	// Health reports a tick that overruns.
	tickStarted atomic.Int64
}

// Run is the maintenance loop: every MaintenanceInterval it runs one tick.
// It returns when ctx is done. Each duty of a tick is guarded: one that
// panics is logged and the loop goes on, since the maintenance of one graph
// must not end the process.
func (s *Service) Run(ctx context.Context) {
	if s.store.Shared != nil {
		go s.store.Watch(ctx)
	}
	tk := time.NewTicker(s.cfg.MaintenanceInterval)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
			s.maint.tick(ctx)
		}
	}
}

// tick does the maintenance duties once: for every loaded graph, the
// pending read stamps, a compaction run, pruning and tombstone expiry, as
// one write through the committer; then the staleness check of a bounded
// number of recorded project files (docs/design/trust.md#staleness), which
// writes nothing; then the checkpoints of the graphs'
// journals, so a graph is unloaded with its file complete; then it unloads
// the project graphs idle for Config.IdleUnload, expires sessions, saves
// them and folds their journal. The failure, or the panic, of one duty is
// logged and does not stop the others.
func (mt *maintainer) tick(ctx context.Context) {
	mt.tickStarted.Store(int64(mt.svc.clock.Now()))
	defer mt.tickStarted.Store(0)
	loaded := mt.svc.store.Loaded()
	defer mt.svc.log.Debug("maintenance tick done", "graphs", len(loaded))
	for _, e := range loaded {
		if err := mt.guard("maintenance of a graph", func() error { return mt.maintain(ctx, e) }); err != nil {
			mt.failed(ctx, "maintenance of a graph failed", "graph", e.Key().String(), "err", err)
		}
	}
	_ = mt.guard("checking recorded files for staleness", func() error {
		// The files are named by agents and read with a deadline each;
		// the duty as a whole gets one interval, so that files slow to
		// read cannot hold the tick: the round goes on at the next tick
		// (docs/design/trust.md#files-named-by-a-request).
		ctx, cancel := context.WithTimeout(ctx, mt.svc.cfg.MaintenanceInterval)
		defer cancel()
		if n := mt.checkStaleFiles(ctx); n > 0 {
			mt.svc.log.Debug("recorded files checked for staleness", "files", n)
		}
		return nil
	})
	if err := mt.guard("checkpointing graphs", func() error { return mt.checkpointGraphs(ctx) }); err != nil {
		mt.failed(ctx, "checkpoint failed; the journals keep every write, will retry next tick", "err", err)
	}
	_ = mt.guard("unloading idle graphs", func() error {
		for _, k := range mt.svc.store.UnloadIdle(mt.svc.clock.Now()) {
			mt.svc.log.Info("idle graph unloaded", "graph", k.String())
		}
		// The tick's writes made the read stamps durable, so graphs read
		// since a load went past the bound can be let go now.
		mt.svc.store.Trim(nil)
		return nil
	})
	if n := mt.svc.sessions.expire(mt.svc.clock.Now()); n > 0 {
		mt.svc.log.Info("sessions expired", "count", n)
	}
	if err := mt.guard("saving sessions", func() error { return mt.svc.sessions.save(ctx) }); err != nil {
		mt.failed(ctx, "saving sessions failed; will retry next tick", "err", err)
	}
	if err := mt.guard("checkpointing sessions", func() error { return mt.checkpointSessions(ctx) }); err != nil {
		mt.failed(ctx, "checkpoint failed; the journals keep every write, will retry next tick", "err", err)
	}
	if err := mt.guard("saving tool-event counts", func() error { return saveToolEvents(ctx, mt.svc.tools) }); err != nil {
		mt.failed(ctx, "saving the tool-event counts failed; will retry next tick", "err", err)
	}
}

// failed logs a duty of the tick that failed. A tick the server's stop
// cancels fails its duties with the context's error: that is no fault (Close
// saves what is pending), so it is logged at Info, not as an error.
func (mt *maintainer) failed(ctx context.Context, msg string, args ...any) {
	if ctx.Err() != nil {
		mt.svc.log.Info(msg+" (the server is stopping; Close saves what is pending)", args...)
		return
	}
	mt.svc.log.Error(msg, args...)
}

// tickOverrun is how long a maintenance tick may run before Health says
// it overruns: two intervals, and at least a minute, as a tick over a
// large graph may take a while.
func (mt *maintainer) tickOverrun() time.Duration {
	return max(2*mt.svc.cfg.MaintenanceInterval, time.Minute)
}

// tickProblem is Health's line for a maintenance tick that has run longer
// than tickOverrun, "" for none: while it runs no journal is folded, no
// session saved and no idle graph unloaded, and /health must not say ok.
func (mt *maintainer) tickProblem() string {
	started := domain.Micros(mt.tickStarted.Load())
	if started == 0 {
		return ""
	}
	ran := time.Duration(mt.svc.clock.Now()-started) * time.Microsecond
	if ran <= mt.tickOverrun() {
		return ""
	}
	return fmt.Sprintf("the maintenance tick has run for %s, over its limit of %s: until it ends no journal is folded, "+
		"no session saved and no idle graph unloaded", ran.Round(time.Second), mt.tickOverrun())
}

// checkpoint folds the journals of repositories that keep one into their files
// (ports.GraphCheckpointer, ports.SessionCheckpointer), so that at most one
// tick after a write every stored file is complete
// (docs/design/storage.md#checkpoint).
func (mt *maintainer) checkpoint(ctx context.Context) error {
	return errors.Join(mt.checkpointGraphs(ctx), mt.checkpointSessions(ctx))
}

// checkpointGraphs folds the journal of every loaded graph. A graph with a
// batch in flight is left to the next tick: it holds more than is durable.
func (mt *maintainer) checkpointGraphs(ctx context.Context) error {
	var errs []error
	if cp, ok := mt.svc.graphs.(ports.GraphCheckpointer); ok {
		for _, e := range mt.svc.store.Loaded() {
			if !e.Stored() {
				continue // nothing in storage to fold (commitBatch writes a graph once it holds something)
			}
			e.RLock()
			if e.Graph().Pending().Empty() {
				if err := cp.Checkpoint(ctx, e.Key(), e.Graph()); err != nil {
					errs = append(errs, fmt.Errorf("%s graph: %w", e.Key(), err))
					mt.svc.store.Failing.CheckpointFailed(e.Key(), err)
				} else {
					mt.svc.store.Failing.Clear(graphstore.CheckpointOf(e.Key()))
				}
			}
			e.RUnlock()
		}
	}
	return errors.Join(errs...)
}

// checkpointSessions folds the sessions' journal into their file.
func (mt *maintainer) checkpointSessions(ctx context.Context) error {
	if cp, ok := mt.svc.sessions.checkpointer(); ok {
		if err := cp.CheckpointSessions(ctx); err != nil {
			mt.svc.store.Failing.Set("checkpoint sessions", "the sessions could not be written whole ("+err.Error()+
				"); they are kept in their journal, which grows until this succeeds")
			return fmt.Errorf("sessions: %w", err)
		}
		mt.svc.store.Failing.Clear("checkpoint sessions")
	}
	return nil
}

// guard runs fn and returns a panic it raises as an unavailable error,
// logged with its stack, so that one failing duty does not end the
// goroutine that runs it.
func (mt *maintainer) guard(what string, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			mt.svc.log.Error("panic in "+what, "panic", r, "stack", string(debug.Stack()))
			err = domain.Unavailable(fmt.Errorf("panic: %v", r), "%s failed (%v)", what, r)
		}
	}()
	return fn()
}

// maintain is the maintenance write of one graph. The read stamps go out
// with it because every batch applies them first. In team mode only the
// server holding the graph's lease does it; the others write the stamps.
func (mt *maintainer) maintain(ctx context.Context, e *graphstore.Entry) error {
	if ok, err := mt.maintenanceLease(ctx, e); err != nil || !ok {
		return errors.Join(err, mt.svc.store.FlushStamps(ctx, e))
	}
	defer mt.pruneHistory(ctx, e.Key())
	return mt.svc.store.Write(ctx, e, "", func(g *domain.Graph, at domain.Stamp) ([]ports.Event, error) {
		m := g.Compact(at.Now, mt.svc.cfg.Policy)
		mt.svc.store.Metrics.CompactionRan(ports.CompactionOnMaintenance)
		pm := g.Prune(at, mt.svc.cfg.Policy)
		m.Pruned = append(m.Pruned, pm.Pruned...)
		m.Steps = append(m.Steps, pm.Steps...)
		expired := g.ExpireTombstones(at.Now, mt.svc.cfg.Policy)
		if expired > 0 || !m.Empty() {
			mt.svc.log.Info("maintenance", "graph", e.Key().String(), "archived", len(m.Archived), "restored", len(m.Restored),
				"orphaned", len(m.Orphaned), "pruned", len(m.Pruned), "tombstones_expired", expired)
		}
		if m.Empty() {
			return nil, nil
		}
		ev := eventBase(ports.EventCompacted, e.Key(), g.Seq(), "")
		ev.Compaction = &m
		return []ports.Event{ev}, nil
	})
}

// maintenanceLease takes the graph's maintenance lease for one interval
// (team mode), so that of all the servers one does a graph's time-driven
// maintenance per tick. Without it the tick only writes the read stamps.
func (mt *maintainer) maintenanceLease(ctx context.Context, e *graphstore.Entry) (bool, error) {
	if mt.svc.store.Shared == nil {
		return true, nil
	}
	return mt.svc.store.Shared.TakeLease(ctx, e.Key(), mt.svc.cfg.MaintenanceInterval)
}
