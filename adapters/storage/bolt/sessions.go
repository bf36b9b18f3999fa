package bolt

import (
	"bytes"
	"context"
	"fmt"

	bbolt "go.etcd.io/bbolt"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// LoadSessions returns every stored session by id. A session that does not
// decode makes the whole set unavailable: a session dropped silently would
// be recreated with a wrong watermark (sync.md).
func (s *Store) LoadSessions(ctx context.Context) (map[string]ports.Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, domain.Unavailable(err, "load sessions")
	}
	out := map[string]ports.Session{}
	err := s.db.View(func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketSessions).ForEach(func(k, v []byte) error {
			sess, err := decodeSession(string(k), v)
			if err != nil {
				return fmt.Errorf("session %q: %w", k, err)
			}
			out[sess.ID] = sess
			return nil
		})
	})
	if err != nil {
		s.log.Error("bolt: sessions cannot be loaded", "file", s.path, "err", err)
		return nil, domain.Unavailable(err, "sessions in %s cannot be loaded: %v", s.path, err)
	}
	return out, nil
}

// SaveSessions replaces the stored set with sessions in one transaction,
// writing only the sessions whose encoding changed and deleting those no
// longer in the set.
func (s *Store) SaveSessions(ctx context.Context, sessions map[string]ports.Session) error {
	if err := ctx.Err(); err != nil {
		return domain.Unavailable(err, "save sessions")
	}
	enc := make(map[string][]byte, len(sessions))
	for id, sess := range sessions {
		if id == "" {
			return domain.Invalidf("session", "empty session id")
		}
		v, err := encodeSession(sess)
		if err != nil {
			return domain.Unavailable(err, "encode session %q", id)
		}
		enc[id] = v
	}
	var c counter
	err := s.db.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketSessions)
		var gone [][]byte
		err := b.ForEach(func(k, _ []byte) error {
			if _, ok := enc[string(k)]; !ok {
				gone = append(gone, bytes.Clone(k))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range gone {
			if err := c.del(b, k); err != nil {
				return err
			}
		}
		for id, v := range enc {
			if old := b.Get([]byte(id)); old != nil && bytes.Equal(old, v) {
				continue
			}
			if err := c.put(b, []byte(id), v); err != nil {
				return fmt.Errorf("session %q: %w", id, err)
			}
		}
		return s.injected()
	})
	if err != nil {
		return domain.Unavailable(err, "save sessions to %s", s.path)
	}
	s.record(c)
	return nil
}
