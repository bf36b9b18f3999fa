package bolt

import (
	"bytes"
	"context"

	bbolt "go.etcd.io/bbolt"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var _ ports.ToolEventRepository = (*Store)(nil)

// keyToolEvents holds, in the kg bucket, the counts of
// docs/design/hooks.md#tool-events: one JSON document, written whole by the
// maintenance tick.
var keyToolEvents = []byte("tool_events")

// LoadToolEvents implements ports.ToolEventRepository.
func (s *Store) LoadToolEvents(ctx context.Context) (domain.RawJSON, error) {
	if err := ctx.Err(); err != nil {
		return nil, unavailable(err, "load the tool-event counts")
	}
	var doc domain.RawJSON
	err := recovered(func() error {
		return s.db.View(func(tx *bbolt.Tx) error {
			if kg := tx.Bucket(bucketKG); kg != nil {
				if v := kg.Get(keyToolEvents); v != nil {
					doc = bytes.Clone(v)
				}
			}
			return nil
		})
	})
	if err != nil {
		return nil, unavailable(err, "load the tool-event counts from %s", s.path)
	}
	return doc, nil
}

// SaveToolEvents implements ports.ToolEventRepository.
func (s *Store) SaveToolEvents(ctx context.Context, doc domain.RawJSON) error {
	if err := ctx.Err(); err != nil {
		return unavailable(err, "save the tool-event counts")
	}
	var c counter
	err := recovered(func() error {
		return s.db.Update(func(tx *bbolt.Tx) error {
			kg, err := tx.CreateBucketIfNotExists(bucketKG)
			if err != nil {
				return err
			}
			if err := c.put(kg, keyToolEvents, doc); err != nil {
				return err
			}
			return s.injected()
		})
	})
	if err != nil {
		return unavailable(err, "save the tool-event counts to %s%s", s.path, hintIfDamaged(err))
	}
	s.record(c)
	return nil
}
