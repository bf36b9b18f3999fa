package ports

import (
	"context"

	"github.com/kg-memory/kg/domain"
)

// HistoryRepository is implemented by a GraphRepository that keeps each
// graph's change log (docs/design/trust.md#history-and-undo): every
// backend does. The app commits through CommitLogged whenever the
// repository implements it.
type HistoryRepository interface {
	// CommitLogged is GraphRepository.Commit that also stores h, the
	// change log entries of the batch, in the same durable commit: once
	// it returns nil both are durable, and after a crash at any instant
	// either both are stored or neither (no change without its entry, no
	// entry without its change). An empty h stores no entry.
	CommitLogged(ctx context.Context, key domain.GraphKey, g *domain.Graph, cs domain.ChangeSet, h domain.HistoryBatch) error

	// History returns the entries of the graph's change log that q
	// selects, newest first, at most q.Limit of them. A graph never
	// stored has none.
	History(ctx context.Context, key domain.GraphKey, q HistoryQuery) ([]domain.HistoryEntry, error)

	// PruneHistory removes the entries made before cutoff. A backend
	// that stores the log in segments may keep a segment that holds a
	// newer entry whole; History never returns an entry older than
	// q.NotBefore, which the app sets to the cutoff.
	PruneHistory(ctx context.Context, key domain.GraphKey, cutoff domain.Micros) error
}

// HistoryQuery selects entries of a change log. Zero fields select
// everything.
type HistoryQuery struct {
	// ID selects the entries of one node: the node's own, those of the
	// edges it is an end of, and graph entries that changed it.
	ID string
	// Session selects the entries one session made.
	Session string
	// SinceSeq selects the entries whose seq is above it; BeforeSeq (when
	// not 0) those whose seq is below it (paging).
	SinceSeq  uint64
	BeforeSeq uint64
	// NotBefore selects the entries made at or after it.
	NotBefore domain.Micros
	// Limit is the most entries returned; 0 for no limit.
	Limit int
}

// Match reports whether q selects e.
func (q HistoryQuery) Match(e *domain.HistoryEntry) bool {
	if e.Seq <= q.SinceSeq || (q.BeforeSeq != 0 && e.Seq >= q.BeforeSeq) || e.Time < q.NotBefore {
		return false
	}
	if q.Session != "" && e.Session != q.Session {
		return false
	}
	if q.ID == "" {
		return true
	}
	if e.Graph {
		for _, c := range e.Items {
			if names(c, q.ID) {
				return true
			}
		}
		return false
	}
	return names(e.ItemChange, q.ID)
}

func names(c domain.ItemChange, id string) bool {
	if c.Edge {
		return c.Key.From == id || c.Key.To == id
	}
	return c.ID == id
}

// HistoryCollector gathers what a HistoryQuery selects from batches given
// newest first, as a backend reads its log backwards.
type HistoryCollector struct {
	q   HistoryQuery
	out []domain.HistoryEntry
}

// NewHistoryCollector returns a collector for q.
func NewHistoryCollector(q HistoryQuery) *HistoryCollector { return &HistoryCollector{q: q} }

// Add adds the entries of b that the query selects, newest first, and
// reports whether more are wanted: false once the limit is reached, or
// when b and every older batch lie below the query's SinceSeq or
// NotBefore.
func (c *HistoryCollector) Add(b domain.HistoryBatch) bool {
	for i := len(b.Entries) - 1; i >= 0; i-- {
		e := &b.Entries[i]
		if c.q.Match(e) {
			c.out = append(c.out, *e)
			if c.q.Limit > 0 && len(c.out) >= c.q.Limit {
				return false
			}
		}
	}
	return b.SeqAfter > c.q.SinceSeq && (len(b.Entries) == 0 || b.Entries[0].Time >= c.q.NotBefore)
}

// Entries returns what was gathered, newest first.
func (c *HistoryCollector) Entries() []domain.HistoryEntry { return c.out }
