package history

import (
	"context"

	"github.com/kg-memory/kg/app/graphstore"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// DefaultDays is KG_HISTORY_DAYS's default: how many days a change log
// keeps.
const DefaultDays = 90

// Log reads the graphs' change logs and undoes from them
// (docs/design/trust.md#history-and-undo): the work behind app's History and
// Undo. Its fields are set once, by app.Open.
type Log struct {
	Store *graphstore.Store
	Clock ports.Clock
	Days  int // KG_HISTORY_DAYS; <= 0: DefaultDays
	// Compact runs compaction inside an undo's write, as inside every
	// write (docs/design/compaction.md), and returns its events.
	Compact func(g *domain.Graph, at domain.Stamp) []ports.Event
}

// Repo is the change log of the storage backend, if it keeps one.
func (l *Log) Repo() (ports.HistoryRepository, error) {
	var repo any = l.Store.Graphs
	if l.Store.Shared != nil {
		repo = l.Store.Shared
	}
	hr, ok := repo.(ports.HistoryRepository)
	if !ok {
		return nil, domain.Unavailable(nil, "this storage backend keeps no change log")
	}
	return hr, nil
}

// NotBefore is the oldest time a read of the change log returns: entries
// older than KG_HISTORY_DAYS are pruned, and until the tick prunes them no
// read shows them.
func (l *Log) NotBefore(since domain.Micros) domain.Micros {
	now := l.Clock.Now()
	nb := now - domain.Micros(l.KeptDays())*domain.Day
	if since > 0 {
		nb = max(nb, now-since)
	}
	return nb
}

// KeptDays is how many days the change log keeps.
func (l *Log) KeptDays() int {
	if l.Days <= 0 {
		return DefaultDays
	}
	return l.Days
}

// Read returns one page of graph k's change log, newest first: at most
// limit entries of q (its NotBefore and Limit are set from since and
// limit), and the before_seq of the next page, 0 when this page is the
// last.
func (l *Log) Read(ctx context.Context, k domain.GraphKey, q ports.HistoryQuery, since domain.Micros, limit int) ([]domain.HistoryEntry, uint64, error) {
	hr, err := l.Repo()
	if err != nil {
		return nil, 0, err
	}
	q.NotBefore, q.Limit = l.NotBefore(since), limit+1
	es, err := hr.History(ctx, k, q)
	if err != nil {
		return nil, 0, err
	}
	if len(es) > limit {
		return es[:limit], es[limit-1].Seq, nil
	}
	return es, 0, nil
}
