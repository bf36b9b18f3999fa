package jsonfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sync"

	"github.com/kg-memory/kg/adapters/storage/jsonfile/codec"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var _ ports.SessionCheckpointer = (*Store)(nil)

// sessionsState is what the store knows of the stored sessions between
// calls: sessions.json and its journal, sessions.journal, whose records
// each hold the sessions a save changed (whole) or removed
// (docs/decisions/0011-json-journal.md).
type sessionsState struct {
	mu    sync.Mutex
	known bool                     // saved holds the stored set
	saved map[string]ports.Session // the stored set, as the files hold it
	j     journal
	// fileSize is the size of sessions.json as last read or written; -1
	// when missing or set aside: the next save writes it whole.
	fileSize int64
}

func (s *Store) sessionsFile() file { return file{dir: s.root, stem: "sessions"} }

// LoadSessions implements ports.SessionRepository: sessions.json (or its
// .prev) with its journal replayed. Sessions are disposable: when they
// cannot be loaded for what the files hold (no loadable .prev, a damaged
// journal), the damaged files are kept as .corrupt-<unix time>, an error
// with a hint is logged, and the store starts with none.
func (s *Store) LoadSessions(ctx context.Context) (map[string]ports.Session, error) {
	st := &s.sess
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := s.readSessions(ctx); err != nil {
		return nil, err
	}
	out := make(map[string]ports.Session, len(st.saved))
	for id, ss := range st.saved {
		out[id] = cloneSession(ss)
	}
	return out, nil
}

// readSessions reads the stored set into s.sess.
func (s *Store) readSessions(ctx context.Context) error {
	st, f := &s.sess, s.sessionsFile()
	st.j.path = f.journal()
	sessions := map[string]ports.Session{}
	size, err := s.load(ctx, f, func(b []byte) error {
		got, err := codec.DecodeSessions(b)
		if err == nil {
			sessions = got
		}
		return err
	})
	switch {
	case errors.Is(err, errMissing):
		size = -1
	case errors.Is(err, errDamaged):
		return s.quarantineSessions(f, err)
	case err != nil:
		return err
	}
	b, err := s.fs.ReadFile(f.journal())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		err = linkErr(f.journal(), err)
		return domain.Unavailable(err, "read %s: %v", f.journal(), err)
	}
	records, good, err := scanJournal(b)
	for i := 0; err == nil && i < len(records); i++ {
		if rerr := codec.ReplaySessions(sessions, records[i].payload); rerr != nil {
			err = &JournalDamage{Line: records[i].line, Offset: records[i].offset, Reason: "it does not decode: " + rerr.Error(),
				Last: i == len(records)-1}
		}
	}
	if err != nil {
		return s.quarantineSessions(f, err)
	}
	st.saved, st.known, st.fileSize, st.j.size = sessions, true, size, int64(good)
	s.dropTornTail(&st.j, f.journal(), good, len(b))
	return nil
}

// quarantineSessions sets the damaged sessions files aside as
// .corrupt-<unix time> and starts with no sessions: agents start new ones
// with kg_read and cwd. The next save writes sessions.json whole.
func (s *Store) quarantineSessions(f file, cause error) error {
	st := &s.sess
	var kept []string
	for _, p := range []string{f.path(), f.journal()} {
		if _, err := s.fs.Stat(p); err != nil {
			continue
		}
		name, err := s.keepAside(p, true)
		if err != nil {
			// Starting with none would be undone by the next load.
			return domain.Unavailable(err, "the sessions are damaged (%v) and %s could not be set aside: %v", cause, p, err)
		}
		kept = append(kept, name)
	}
	s.log.Error("storage: the sessions could not be loaded; starting with none", "err", cause, "kept_as", kept,
		"hint", "agents start new sessions with kg_read and cwd; the damaged files are kept for inspection and can be deleted")
	st.j.forget()
	st.saved, st.known, st.fileSize, st.j.size, st.j.dirty = map[string]ports.Session{}, true, -1, 0, false
	return nil
}

// UpdateSessions implements ports.SessionRepository: one journal record
// with the sessions put (whole) and removed, appended and fsynced; the set
// the store keeps is then changed in place, so a save costs O(changed), not
// O(sessions). sessions.json is written whole (O(sessions)) only when it
// does not exist yet and when the journal has grown past it.
func (s *Store) UpdateSessions(ctx context.Context, ch ports.SessionChanges) error {
	if err := ctx.Err(); err != nil {
		return domain.Unavailable(err, "save sessions: %v", err)
	}
	st, f := &s.sess, s.sessionsFile()
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := s.readySessions(ctx, f); err != nil {
		return err
	}
	return s.updateSessions(ctx, f, ch)
}

// updateSessions saves ch; s.sess.mu is held and the sessions are ready.
func (s *Store) updateSessions(ctx context.Context, f file, ch ports.SessionChanges) error {
	st := &s.sess
	put := make(map[string]ports.Session, len(ch.Put))
	for _, ss := range ch.Put {
		if ss.ID == "" {
			return domain.Invalidf("session", "empty session id")
		}
		put[ss.ID] = cloneSession(ss)
	}
	var removed []string
	for _, id := range ch.Delete {
		if _, ok := st.saved[id]; ok {
			if _, again := put[id]; !again {
				removed = append(removed, id)
			}
		}
	}
	if len(put)+len(removed) == 0 && st.fileSize >= 0 {
		return nil
	}
	if st.fileSize < 0 || st.j.dirty {
		// The file is written whole: the set it holds is built anew, and
		// only replaces the one kept once it is durable.
		next := maps.Clone(st.saved)
		for _, id := range removed {
			delete(next, id)
		}
		maps.Copy(next, put)
		if written, err := s.writeSessions(ctx, next); !written {
			return domain.Unavailable(err, "save sessions to %s: %v", f.path(), err)
		}
		return nil
	}
	changed := slices.Sorted(maps.Keys(put))
	slices.Sort(removed)
	rec := frameRecord(nil, codec.SessionsRecord(put, changed, removed))
	if err := s.appendRecord(&st.j, rec); err != nil {
		return domain.Unavailable(err, "save sessions to %s: %v", f.journal(), err)
	}
	for _, id := range removed {
		delete(st.saved, id)
	}
	maps.Copy(st.saved, put)
	if st.j.size > max(st.fileSize, minCheckpoint) {
		if _, err := s.writeSessions(ctx, st.saved); err != nil {
			s.log.Error("storage: sessions checkpoint failed; the journal keeps every record", "err", err)
		}
	}
	return nil
}

// readySessions makes the sessions ready for a write; s.sess.mu must be
// held. It reads the saved set if it is not known yet, then checks that
// the journal handle still names sessions.journal and that sessions.json
// is still there; what vanished is written again.
func (s *Store) readySessions(ctx context.Context, f file) error {
	st := &s.sess
	if !st.known {
		if err := s.readSessions(ctx); err != nil {
			return err
		}
	}
	if err := s.noLinks(f.path(), f.prev(), f.journal()); err != nil {
		return err
	}
	if _, err := s.fs.Stat(st.j.path); errors.Is(err, fs.ErrNotExist) && st.j.size > 0 || s.replaced(&st.j) {
		// The journal went, and its records with it: the set is written
		// whole before anything else.
		st.j.forget()
		st.fileSize, st.j.size = -1, 0
	}
	if _, err := s.fs.Stat(f.path()); err != nil {
		st.fileSize = -1
	}
	return nil
}

// CheckpointSessions implements ports.SessionCheckpointer.
func (s *Store) CheckpointSessions(ctx context.Context) error {
	st, f := &s.sess, s.sessionsFile()
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := s.readySessions(ctx, f); err != nil {
		return err
	}
	if st.fileSize >= 0 && st.j.size == 0 && !st.j.dirty {
		return nil
	}
	if _, err := s.writeSessions(ctx, st.saved); err != nil {
		return domain.Unavailable(err, "checkpoint sessions to %s: %v", f.path(), err)
	}
	return nil
}

// writeSessions writes sessions.json whole with sessions (tmp, fsync,
// .prev, rename, fsync the folder) and empties the journal. written
// reports whether the file was written: the set is then durable.
func (s *Store) writeSessions(ctx context.Context, sessions map[string]ports.Session) (written bool, err error) {
	st, f := &s.sess, s.sessionsFile()
	data := codec.EncodeSessions(sessions)
	if err := s.writeAtomic(ctx, f, writeBytes(data)); err != nil {
		return false, err
	}
	st.saved, st.fileSize = sessions, int64(len(data))
	if st.j.size > 0 || st.j.dirty {
		if err := s.truncateJournal(&st.j, 0); err != nil {
			return true, fmt.Errorf("empty %s: %w", f.journal(), err)
		}
	}
	return true, nil
}

func cloneSession(ss ports.Session) ports.Session {
	ss.Synced = maps.Clone(ss.Synced)
	ss.Counted = maps.Clone(ss.Counted) // its slices are never changed in place
	ss.Extra = maps.Clone(ss.Extra)
	ss.Hooks = ss.Hooks.Clone()
	return ss
}
