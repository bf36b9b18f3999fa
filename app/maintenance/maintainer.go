package maintenance

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kg-memory/kg/app/graphstore"
	"github.com/kg-memory/kg/app/sessiontable"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/ports"
)

// Maintainer does the maintenance tick's duties on the service's graphs,
// sessions and files: compaction, pruning, the staleness check, the
// checkpoints, the unloading of idle graphs (docs/design/storage.md,
// docs/design/trust.md#staleness). It is apart from app's Service, the
// tools' surface, so that each reads on its own
// (docs/decisions/0084-hooks-type.md,
// docs/decisions/0102-graph-store-package.md). The exported fields are what
// it works on, set once by app.Open; the zero values of the rest are ready.
type Maintainer struct {
	Store    *graphstore.Store   // the loaded graphs it maintains
	Sessions *sessiontable.Table // the sessions it expires, saves and folds
	Clock    ports.Clock
	Log      *slog.Logger
	// Interval is the tick's period (Config.MaintenanceInterval): a
	// team-mode lease lasts one, and the staleness round gets one.
	Interval time.Duration
	Policy   compaction.Policy // compaction, pruning and tombstone expiry
	// StaleFilesPerTick bounds the recorded files a tick reads
	// (Config.StaleFilesPerTick).
	StaleFilesPerTick int
	// Files reads project files for the staleness round; nil: none is read.
	Files ports.FileHasher
	// SaveToolEvents saves the tool-event counts (app/hookstate).
	SaveToolEvents func(context.Context) error
	// HistoryNotBefore is the oldest time the change log keeps
	// (KG_HISTORY_DAYS): pruning removes what is older.
	HistoryNotBefore func() domain.Micros
	// pruned is when the tick last pruned each graph's change log
	// (pruneHistory).
	prunedMu sync.Mutex
	pruned   map[domain.GraphKey]domain.Micros
	// staleMu guards staleRound, where the tick's round of the recorded
	// files stands.
	staleMu    sync.Mutex
	staleRound staleRound
	// tickStarted is when the tick under way started (0: none is), so that
	// the health report tells of a tick that overruns.
	tickStarted atomic.Int64
}

// Tick does the maintenance duties once: for every loaded graph, the
// pending read stamps, a compaction run, pruning and tombstone expiry, as
// one write through the committer; then the staleness check of a bounded
// number of recorded project files (docs/design/trust.md#staleness), which
// writes nothing; then the checkpoints of the graphs'
// journals, so a graph is unloaded with its file complete; then it unloads
// the project graphs idle for Config.IdleUnload, expires sessions, saves
// them and folds their journal. The failure, or the panic, of one duty is
// logged and does not stop the others.
func (mt *Maintainer) Tick(ctx context.Context) {
	mt.tickStarted.Store(int64(mt.Clock.Now()))
	defer mt.tickStarted.Store(0)
	loaded := mt.Store.Loaded()
	defer mt.Log.Debug("maintenance tick done", "graphs", len(loaded))
	for _, e := range loaded {
		if err := mt.Guard("maintenance of a graph", func() error { return mt.maintain(ctx, e) }); err != nil {
			mt.failed(ctx, "maintenance of a graph failed", "graph", e.Key().String(), "err", err)
		}
	}
	_ = mt.Guard("checking recorded files for staleness", func() error {
		// The files are named by agents and read with a deadline each;
		// the duty as a whole gets one interval, so that files slow to
		// read cannot hold the tick: the round goes on at the next tick
		// (docs/design/trust.md#files-named-by-a-request).
		ctx, cancel := context.WithTimeout(ctx, mt.Interval)
		defer cancel()
		if n := mt.CheckStaleFiles(ctx); n > 0 {
			mt.Log.Debug("recorded files checked for staleness", "files", n)
		}
		return nil
	})
	if err := mt.Guard("checkpointing graphs", func() error { return mt.checkpointGraphs(ctx) }); err != nil {
		mt.failed(ctx, "checkpoint failed; the journals keep every write, will retry next tick", "err", err)
	}
	_ = mt.Guard("unloading idle graphs", func() error {
		for _, k := range mt.Store.UnloadIdle(mt.Clock.Now()) {
			mt.Log.Info("idle graph unloaded", "graph", k.String())
		}
		// The tick's writes made the read stamps durable, so graphs read
		// since a load went past the bound can be let go now.
		mt.Store.Trim(nil)
		return nil
	})
	if n := mt.Sessions.Expire(mt.Clock.Now()); n > 0 {
		mt.Log.Info("sessions expired", "count", n)
	}
	if err := mt.Guard("saving sessions", func() error { return mt.Sessions.Save(ctx) }); err != nil {
		mt.failed(ctx, "saving sessions failed; will retry next tick", "err", err)
	}
	if err := mt.Guard("checkpointing sessions", func() error { return mt.checkpointSessions(ctx) }); err != nil {
		mt.failed(ctx, "checkpoint failed; the journals keep every write, will retry next tick", "err", err)
	}
	if err := mt.Guard("saving tool-event counts", func() error { return mt.SaveToolEvents(ctx) }); err != nil {
		mt.failed(ctx, "saving the tool-event counts failed; will retry next tick", "err", err)
	}
}

// failed logs a duty of the tick that failed. A tick the server's stop
// cancels fails its duties with the context's error: that is no fault (Close
// saves what is pending), so it is logged at Info, not as an error.
func (mt *Maintainer) failed(ctx context.Context, msg string, args ...any) {
	if ctx.Err() != nil {
		mt.Log.Info(msg+" (the server is stopping; Close saves what is pending)", args...)
		return
	}
	mt.Log.Error(msg, args...)
}

// TickOverrun is how long a maintenance tick may run before the health report says
// it overruns: two intervals, and at least a minute, as a tick over a
// large graph may take a while.
func (mt *Maintainer) TickOverrun() time.Duration {
	return max(2*mt.Interval, time.Minute)
}

// TickProblem is the health report's line for a maintenance tick that has run longer
// than tickOverrun, "" for none: while it runs no journal is folded, no
// session saved and no idle graph unloaded, and /health must not say ok.
func (mt *Maintainer) TickProblem() string {
	started := domain.Micros(mt.tickStarted.Load())
	if started == 0 {
		return ""
	}
	ran := time.Duration(mt.Clock.Now()-started) * time.Microsecond
	if ran <= mt.TickOverrun() {
		return ""
	}
	return fmt.Sprintf("the maintenance tick has run for %s, over its limit of %s: until it ends no journal is folded, "+
		"no session saved and no idle graph unloaded", ran.Round(time.Second), mt.TickOverrun())
}

// Checkpoint folds the journals of repositories that keep one into their files
// (ports.GraphCheckpointer, ports.SessionCheckpointer), so that at most one
// tick after a write every stored file is complete
// (docs/design/storage.md#checkpoint).
func (mt *Maintainer) Checkpoint(ctx context.Context) error {
	return errors.Join(mt.checkpointGraphs(ctx), mt.checkpointSessions(ctx))
}

// checkpointGraphs folds the journal of every loaded graph. A graph with a
// batch in flight is left to the next tick: it holds more than is durable.
func (mt *Maintainer) checkpointGraphs(ctx context.Context) error {
	var errs []error
	if cp, ok := mt.Store.Graphs.(ports.GraphCheckpointer); ok {
		for _, e := range mt.Store.Loaded() {
			if !e.Stored() {
				continue // nothing in storage to fold (commitBatch writes a graph once it holds something)
			}
			e.RLock()
			if e.Graph().Pending().Empty() {
				if err := cp.Checkpoint(ctx, e.Key(), e.Graph()); err != nil {
					errs = append(errs, fmt.Errorf("%s graph: %w", e.Key(), err))
					mt.Store.Failing.CheckpointFailed(e.Key(), err)
				} else {
					mt.Store.Failing.Clear(graphstore.CheckpointOf(e.Key()))
				}
			}
			e.RUnlock()
		}
	}
	return errors.Join(errs...)
}

// checkpointSessions folds the sessions' journal into their file.
func (mt *Maintainer) checkpointSessions(ctx context.Context) error {
	if cp, ok := mt.Sessions.Checkpointer(); ok {
		if err := cp.CheckpointSessions(ctx); err != nil {
			mt.Store.Failing.Set("checkpoint sessions", "the sessions could not be written whole ("+err.Error()+
				"); they are kept in their journal, which grows until this succeeds")
			return fmt.Errorf("sessions: %w", err)
		}
		mt.Store.Failing.Clear("checkpoint sessions")
	}
	return nil
}

// Guard runs fn and returns a panic it raises as an unavailable error,
// logged with its stack, so that one failing duty does not end the
// goroutine that runs it.
func (mt *Maintainer) Guard(what string, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			mt.Log.Error("panic in "+what, "panic", r, "stack", string(debug.Stack()))
			err = domain.Unavailable(fmt.Errorf("panic: %v", r), "%s failed (%v)", what, r)
		}
	}()
	return fn()
}

// maintain is the maintenance write of one graph. The read stamps go out
// with it because every batch applies them first. In team mode only the
// server holding the graph's lease does it; the others write the stamps.
func (mt *Maintainer) maintain(ctx context.Context, e *graphstore.Entry) error {
	if ok, err := mt.maintenanceLease(ctx, e); err != nil || !ok {
		return errors.Join(err, mt.Store.FlushStamps(ctx, e))
	}
	defer mt.pruneHistory(ctx, e.Key())
	return mt.Store.Write(ctx, e, "", func(g *domain.Graph, at domain.Stamp) ([]ports.Event, error) {
		m := compaction.Run(g, at.Now, mt.Policy)
		mt.Store.Metrics.CompactionRan(ports.CompactionOnMaintenance)
		pm := compaction.Prune(g, at, mt.Policy)
		m.Pruned = append(m.Pruned, pm.Pruned...)
		m.Steps = append(m.Steps, pm.Steps...)
		expired := compaction.ExpireTombstones(g, at.Now, mt.Policy)
		if expired > 0 || !m.Empty() {
			mt.Log.Info("maintenance", "graph", e.Key().String(), "archived", len(m.Archived), "restored", len(m.Restored),
				"orphaned", len(m.Orphaned), "pruned", len(m.Pruned), "tombstones_expired", expired)
		}
		if m.Empty() {
			return nil, nil
		}
		k := e.Key()
		ev := ports.Event{Type: ports.EventCompacted, Level: k.Level, Project: k.Project, Owner: k.Owner, Seq: g.Seq()}
		ev.Compaction = &m
		return []ports.Event{ev}, nil
	})
}

// maintenanceLease takes the graph's maintenance lease for one interval
// (team mode), so that of all the servers one does a graph's time-driven
// maintenance per tick. Without it the tick only writes the read stamps.
func (mt *Maintainer) maintenanceLease(ctx context.Context, e *graphstore.Entry) (bool, error) {
	if mt.Store.Shared == nil {
		return true, nil
	}
	return mt.Store.Shared.TakeLease(ctx, e.Key(), mt.Interval)
}

// pruneEvery is how often the maintenance tick prunes one graph's change
// log: entries age by days, and a read never returns one older than
// KG_HISTORY_DAYS meanwhile.
const pruneEvery = 3600 * domain.Second

// pruneHistory removes the graph's change log entries older than
// KG_HISTORY_DAYS, at most once per pruneEvery. In team mode the server
// holding the graph's lease prunes the changes table itself
// (docs/design/trust.md#pruning). A failure is logged; the next tick tries
// again.
func (mt *Maintainer) pruneHistory(ctx context.Context, k domain.GraphKey) {
	if mt.Store.Shared != nil {
		return
	}
	hr, ok := mt.Store.Graphs.(ports.HistoryRepository)
	if !ok {
		return
	}
	now := mt.Clock.Now()
	mt.prunedMu.Lock()
	if mt.pruned == nil {
		mt.pruned = map[domain.GraphKey]domain.Micros{}
	}
	last, seen := mt.pruned[k]
	if seen && now-last < pruneEvery && now >= last {
		mt.prunedMu.Unlock()
		return
	}
	mt.pruned[k] = now
	mt.prunedMu.Unlock()
	if err := hr.PruneHistory(ctx, k, mt.HistoryNotBefore()); err != nil {
		mt.Log.Warn("pruning the change log failed; the next tick tries again", "graph", k.String(), "err", err)
		mt.prunedMu.Lock()
		delete(mt.pruned, k)
		mt.prunedMu.Unlock()
	}
}
