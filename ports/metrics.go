package ports

import (
	"time"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
)

// Metrics is told what the app did at the few points an operator measures
// (docs/design/operations.md#metrics): each write batch and its save, each
// compaction run and the moves that became durable, each session started.
// What the app holds now (live sessions, nodes per graph) is read at scrape
// time instead, so it needs no call here.
//
// The calls come from the write path, some under a graph's lock: an
// implementation must be cheap, safe for concurrent use, and must never
// block or fail.
type Metrics interface {
	// BatchCommitted reports one batch of a graph's committer.
	BatchCommitted(b Batch)
	// CompactionRan reports one compaction run, whatever it moved.
	CompactionRan(trigger CompactionTrigger)
	// NodesMoved reports the moves of a compaction run once they are
	// durable (or, at load, once the graph is served with them).
	NodesMoved(m compaction.Moves)
	// SessionStarted reports a new session, once it is saved.
	SessionStarted()
}

// Batch is one batch of writes to one graph, committed by one save.
type Batch struct {
	Level domain.Level
	// Writes is the number of writes in the batch, those that failed
	// validation included.
	Writes int
	// Saved is true when the repository's Commit was called. It is false
	// when the batch left nothing to save (every write was refused or
	// changed nothing), and when it failed before its save (a panic).
	Saved bool
	// SaveTime is how long the Commit took.
	SaveTime time.Duration
	// Err is why the batch failed: the Commit's error, or the panic; nil
	// when the batch is durable or had nothing to save.
	Err error
}

// CompactionTrigger says what started a compaction run.
type CompactionTrigger string

// The triggers of a compaction run (docs/design/compaction.md#when-it-runs).
const (
	CompactionOnWrite       CompactionTrigger = "write"       // every write runs compaction on its graph
	CompactionOnLoad        CompactionTrigger = "load"        // a graph is compacted once when it is loaded
	CompactionOnMaintenance CompactionTrigger = "maintenance" // the maintenance tick (with pruning)
	CompactionOnRequest     CompactionTrigger = "manual"      // POST /api/compaction/run, kg compact
)

// NoMetrics is a Metrics that records nothing: the default when none is
// given.
type NoMetrics struct{}

var _ Metrics = NoMetrics{}

// BatchCommitted implements Metrics.
func (NoMetrics) BatchCommitted(Batch) {}

// CompactionRan implements Metrics.
func (NoMetrics) CompactionRan(CompactionTrigger) {}

// NodesMoved implements Metrics.
func (NoMetrics) NodesMoved(compaction.Moves) {}

// SessionStarted implements Metrics.
func (NoMetrics) SessionStarted() {}
