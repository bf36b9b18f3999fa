package jsonfile

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var _ ports.ToolEventRepository = (*Store)(nil)

// toolEventsState serialises the saves of the tool-event counts; the app saves
// them from one tick at a time, this keeps a shutdown's save from racing it.
type toolEventsState struct{ mu sync.Mutex }

// toolEventsFile is tool_targets.json in the root, beside sessions.json: the
// counts of docs/design/hooks.md#tool-events, one JSON document written
// whole (tmp, fsync, .prev, rename) by the maintenance tick.
func (s *Store) toolEventsFile() file { return file{dir: s.root, stem: "tool_targets"} }

// LoadToolEvents implements ports.ToolEventRepository: the document, or its
// .prev when it is damaged; nil when neither exists.
func (s *Store) LoadToolEvents(ctx context.Context) (domain.RawJSON, error) {
	var doc domain.RawJSON
	_, err := s.load(ctx, s.toolEventsFile(), func(b []byte) error {
		if !json.Valid(b) {
			return errors.New("not JSON")
		}
		doc = b
		return nil
	})
	if errors.Is(err, errMissing) {
		return nil, nil
	}
	return doc, err
}

// SaveToolEvents implements ports.ToolEventRepository.
func (s *Store) SaveToolEvents(ctx context.Context, doc domain.RawJSON) error {
	s.tools.mu.Lock()
	defer s.tools.mu.Unlock()
	f := s.toolEventsFile()
	if err := s.writeAtomic(ctx, f, writeBytes(append(doc, '\n'))); err != nil {
		return domain.Unavailable(err, "save the tool-event counts to %s: %v", f.path(), err)
	}
	return nil
}
