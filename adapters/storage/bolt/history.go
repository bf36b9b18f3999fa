package bolt

import (
	"context"
	"encoding/binary"

	bbolt "go.etcd.io/bbolt"

	"github.com/kg-memory/kg/adapters/storage/record"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var _ ports.HistoryRepository = (*Store)(nil)

// The change log of a graph is its sub-bucket "history": one value per
// committed batch that logged something, keyed by the batch's last seq and
// the bucket's sequence number (8 bytes each, big-endian, so the keys sort
// as the seqs, and a batch that takes no seq — a migration's entry — gets a
// key of its own), holding the time of the
// batch's newest entry (8 bytes, big-endian Unix microseconds, for pruning
// without decoding) and then the batch in its stored form
// (record.MarshalHistoryBatch). It is written in the commit's transaction
// (docs/design/trust.md#the-change-log).

func writeHistory(b *bbolt.Bucket, c *counter, h domain.HistoryBatch) error {
	if len(h.Entries) == 0 {
		return nil
	}
	rec, err := record.MarshalHistoryBatch(h)
	if err != nil {
		return err
	}
	v := make([]byte, 8, 8+len(rec))
	binary.BigEndian.PutUint64(v, uint64(h.Entries[len(h.Entries)-1].Time))
	v = append(v, rec...)
	hb := b.Bucket(subHistory)
	var k [16]byte
	binary.BigEndian.PutUint64(k[:8], h.SeqAfter)
	for {
		n, err := hb.NextSequence()
		if err != nil {
			return err
		}
		binary.BigEndian.PutUint64(k[8:], n)
		if hb.Get(k[:]) == nil { // never over a batch kept: a bucket copied without its sequence
			return c.put(hb, k[:], v)
		}
	}
}

// History implements ports.HistoryRepository, reading the bucket from its
// newest batch back.
func (s *Store) History(ctx context.Context, key domain.GraphKey, q ports.HistoryQuery) ([]domain.HistoryEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, unavailable(err, "read the history of the %s graph", key)
	}
	if err := validKey(key); err != nil {
		return nil, err
	}
	if a, problem, bad := s.graphDamage(key); bad {
		return nil, s.areaError(key.String()+" graph", a, problem, "read")
	}
	col := ports.NewHistoryCollector(q)
	err := recovered(func() error {
		return s.db.View(func(tx *bbolt.Tx) error {
			b := graphBucket(tx, key)
			if b == nil || b.Bucket(subHistory) == nil {
				return nil
			}
			cur := b.Bucket(subHistory).Cursor()
			var k, v []byte
			if q.BeforeSeq != 0 {
				// The batch holding BeforeSeq, or the first after it.
				var seek [8]byte
				binary.BigEndian.PutUint64(seek[:], q.BeforeSeq)
				if k, v = cur.Seek(seek[:]); k == nil {
					k, v = cur.Last()
				}
			} else {
				k, v = cur.Last()
			}
			for ; k != nil; k, v = cur.Prev() {
				if len(v) < 8 {
					return &corruptHistory{key: key}
				}
				h, err := record.UnmarshalHistoryBatch(v[8:])
				if err != nil {
					return err
				}
				if !col.Add(h) {
					return nil
				}
			}
			return nil
		})
	})
	if err != nil {
		return nil, unavailable(err, "read the history of the %s graph in %s%s", key, s.path, hintIfDamaged(err))
	}
	return col.Entries(), nil
}

type corruptHistory struct{ key domain.GraphKey }

func (c *corruptHistory) Error() string {
	return "a change log value of the " + c.key.String() + " graph is cut short"
}

// PruneHistory implements ports.HistoryRepository: the batches whose
// newest entry is older than cutoff go, oldest first, in one transaction.
func (s *Store) PruneHistory(ctx context.Context, key domain.GraphKey, cutoff domain.Micros) error {
	if err := ctx.Err(); err != nil {
		return unavailable(err, "prune the history of the %s graph", key)
	}
	if err := validKey(key); err != nil {
		return err
	}
	if _, _, bad := s.graphDamage(key); bad {
		return nil // nothing is written to damaged pages
	}
	var old [][]byte
	err := recovered(func() error {
		return s.db.View(func(tx *bbolt.Tx) error {
			b := graphBucket(tx, key)
			if b == nil || b.Bucket(subHistory) == nil {
				return nil
			}
			cur := b.Bucket(subHistory).Cursor()
			for k, v := cur.First(); k != nil && len(v) >= 8 && domain.Micros(binary.BigEndian.Uint64(v)) < cutoff; k, v = cur.Next() {
				old = append(old, append([]byte(nil), k...))
			}
			return nil
		})
	})
	if err != nil || len(old) == 0 {
		if err != nil {
			return unavailable(err, "prune the history of the %s graph in %s", key, s.path)
		}
		return nil
	}
	var c counter
	err = recovered(func() error {
		return s.db.Update(func(tx *bbolt.Tx) error {
			b := graphBucket(tx, key)
			if b == nil || b.Bucket(subHistory) == nil {
				return nil
			}
			hb := b.Bucket(subHistory)
			for _, k := range old {
				if err := c.del(hb, k); err != nil {
					return err
				}
			}
			return s.injected()
		})
	})
	if err != nil {
		return unavailable(err, "prune the history of the %s graph in %s", key, s.path)
	}
	s.record(c)
	return nil
}
