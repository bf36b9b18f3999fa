package memory

import (
	"context"
	"slices"

	"github.com/kg-memory/kg/adapters/storage/record"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var _ ports.HistoryRepository = (*Store)(nil)

// storedBatch is one batch of a graph's change log, in its stored form
// (record.MarshalHistoryBatch), with the time of its newest entry.
type storedBatch struct {
	b    []byte
	last domain.Micros
}

// CommitLogged implements ports.HistoryRepository: the graph and its
// change log are replaced under one lock, so a reader sees both or
// neither.
func (s *Store) CommitLogged(ctx context.Context, key domain.GraphKey, g *domain.Graph, cs domain.ChangeSet, h domain.HistoryBatch) error {
	if err := ctx.Err(); err != nil {
		return domain.Unavailable(err, "save %s graph", key.Level)
	}
	var rec []byte
	if len(h.Entries) > 0 {
		var err error
		if rec, err = record.MarshalHistoryBatch(h); err != nil {
			return domain.Unavailable(err, "save %s graph: change log: %v", key.Level, err)
		}
	}
	d := g.Data()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fault != nil {
		if err := s.fault("commit"); err != nil {
			return domain.Unavailable(err, "save %s graph", key.Level)
		}
	}
	s.graphs[key] = copyData(d)
	if rec != nil {
		s.history[key] = append(s.history[key], storedBatch{b: rec, last: h.Entries[len(h.Entries)-1].Time})
	}
	return nil
}

// History implements ports.HistoryRepository.
func (s *Store) History(ctx context.Context, key domain.GraphKey, q ports.HistoryQuery) ([]domain.HistoryEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, domain.Unavailable(err, "read the history of the %s graph", key.Level)
	}
	s.mu.Lock()
	batches := slices.Clone(s.history[key])
	s.mu.Unlock()
	c := ports.NewHistoryCollector(q)
	for _, sb := range slices.Backward(batches) {
		b, err := record.UnmarshalHistoryBatch(sb.b)
		if err != nil {
			return nil, domain.Unavailable(err, "read the history of the %s graph: %v", key.Level, err)
		}
		if !c.Add(b) {
			break
		}
	}
	return c.Entries(), nil
}

// PruneHistory implements ports.HistoryRepository.
func (s *Store) PruneHistory(ctx context.Context, key domain.GraphKey, cutoff domain.Micros) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	hs := s.history[key]
	i := 0
	for i < len(hs) && hs[i].last < cutoff {
		i++
	}
	s.history[key] = slices.Clone(hs[i:])
	return nil
}
