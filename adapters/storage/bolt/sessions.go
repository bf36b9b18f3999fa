package bolt

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	bbolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// bucketQuarantine holds what was set aside because it could not be read:
// quarantine/<unix time>/sessions is a sessions bucket moved there whole.
var bucketQuarantine = []byte("quarantine")

// LoadSessions returns every stored session by id. Sessions are
// disposable (docs/design/sync.md#sessions): when one does not decode, or
// the pages holding them cannot be read, the whole sessions bucket is set
// aside under quarantine/<unix time>/sessions — kept byte for byte, never
// deleted — the damage is logged with what it means, and the store starts
// with no sessions. Agents then start new sessions with kg_read; the graphs
// are not touched.
func (s *Store) LoadSessions(ctx context.Context) (map[string]ports.Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, unavailable(err, "load sessions")
	}
	out := map[string]ports.Session{}
	var err error
	if problem, bad := s.sessionsDamaged(); bad {
		// The check at Open found their pages damaged: they are not read.
		err = fmt.Errorf("%w: their pages are damaged (%s)", ports.ErrDamaged, problem)
	} else {
		err = recovered(func() error {
			return s.db.View(func(tx *bbolt.Tx) error {
				b := tx.Bucket(bucketSessions)
				if b == nil { // a file opened read-only before its first start
					return nil
				}
				return b.ForEach(func(k, v []byte) error {
					sess, err := decodeSession(string(k), v)
					if err != nil {
						return damagedf("session %q: %v", k, err)
					}
					out[sess.ID] = sess
					return nil
				})
			})
		})
	}
	if err == nil {
		return out, nil
	}
	if !errors.Is(err, ports.ErrDamaged) {
		return nil, unavailable(err, "sessions in %s cannot be loaded", s.path)
	}
	if s.readOnly {
		return nil, unavailable(err, "the sessions in %s are damaged (the server sets them aside at its next start, and starts with none)", s.path)
	}
	where, qerr := s.quarantineSessions(time.Now())
	if qerr != nil {
		s.log.Error("bolt: sessions are damaged and could not be set aside", "file", s.path, "err", err, "set_aside_err", qerr)
		return nil, unavailable(fmt.Errorf("%w; setting them aside: %w", err, qerr), "sessions in %s are damaged and could not be set aside; %s", s.path, repairHint)
	}
	s.damageMu.Lock()
	delete(s.damaged, area{kind: areaSessions})
	s.damageMu.Unlock()
	s.log.Error("bolt: sessions are damaged; set aside, starting with none", "file", s.path, "err", err, "kept_in", where,
		"hint", "agents start new sessions with kg_read {cwd}; the graphs are not affected")
	return map[string]ports.Session{}, nil
}

// quarantineSessions moves the sessions bucket, without reading it, to
// quarantine/<unix time>/sessions and puts an empty one in its place. It
// returns where the old one went.
func (s *Store) quarantineSessions(now time.Time) (string, error) {
	var where string
	err := recovered(func() error {
		return s.db.Update(func(tx *bbolt.Tx) error {
			q, err := tx.CreateBucketIfNotExists(bucketQuarantine)
			if err != nil {
				return err
			}
			name := strconv.FormatInt(now.Unix(), 10)
			dst, err := q.CreateBucket([]byte(name))
			for i := 2; errors.Is(err, berrors.ErrBucketExists); i++ {
				name = fmt.Sprintf("%d-%d", now.Unix(), i)
				dst, err = q.CreateBucket([]byte(name))
			}
			if err != nil {
				return err
			}
			if err := tx.MoveBucket(bucketSessions, nil, dst); err != nil {
				return err
			}
			where = fmt.Sprintf("bucket %s/%s/%s of %s", bucketQuarantine, name, bucketSessions, s.path)
			_, err = tx.CreateBucket(bucketSessions)
			return err
		})
	})
	return where, err
}

// UpdateSessions applies one incremental save of the sessions in one
// transaction: the sessions of ch.Put written, those of ch.Delete deleted,
// and nothing else read or written, so it costs O(changed) whatever the
// number of sessions stored.
func (s *Store) UpdateSessions(ctx context.Context, ch ports.SessionChanges) error {
	if err := ctx.Err(); err != nil {
		return unavailable(err, "save sessions")
	}
	enc := make([][]byte, len(ch.Put))
	for i, sess := range ch.Put {
		if sess.ID == "" {
			return domain.Invalidf("session", "empty session id")
		}
		v, err := encodeSession(sess)
		if err != nil {
			return unavailable(err, "encode session %q", sess.ID)
		}
		enc[i] = v
	}
	var c counter
	err := recovered(func() error {
		return s.db.Update(func(tx *bbolt.Tx) error {
			b := tx.Bucket(bucketSessions)
			for _, id := range ch.Delete {
				if b.Get([]byte(id)) == nil {
					continue
				}
				if err := c.del(b, []byte(id)); err != nil {
					return err
				}
			}
			for i, sess := range ch.Put {
				if err := c.put(b, []byte(sess.ID), enc[i]); err != nil {
					return fmt.Errorf("session %q: %w", sess.ID, err)
				}
			}
			return s.injected()
		})
	})
	if err != nil {
		return unavailable(err, "save sessions to %s%s", s.path, hintIfDamaged(err))
	}
	s.record(c)
	return nil
}
