package jsonfile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

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
		got, err := decodeSessions(b)
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
		if rerr := replaySessions(sessions, records[i].payload); rerr != nil {
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
	rec := frameRecord(nil, sessionsRecord(put, changed, removed))
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
	data := encodeSessions(sessions)
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

// sessionsRecord is the payload of a sessions journal record:
// {"sessions":{"<id>":{…as in sessions.json…},"<removed id>":null}}.
func sessionsRecord(sessions map[string]ports.Session, changed, removed []string) []byte {
	e := &enc{flat: true, b: make([]byte, 0, 256*(len(changed)+1))}
	e.open('{')
	e.key(0, "sessions")
	e.open('{')
	i := 0
	for _, id := range changed {
		e.key(i, id)
		e.session(sessions[id])
		i++
	}
	for _, id := range removed {
		e.key(i, id)
		e.b = append(e.b, "null"...)
		i++
	}
	e.close('}', i)
	e.close('}', 1)
	return e.b
}

// replaySessions applies one sessions record to sessions.
func replaySessions(sessions map[string]ports.Session, payload []byte) error {
	var rec struct {
		Sessions map[string]map[string]json.RawMessage `json:"sessions"`
	}
	if err := json.Unmarshal(payload, &rec); err != nil {
		return err
	}
	for id, fields := range rec.Sessions {
		if fields == nil {
			delete(sessions, id)
			continue
		}
		ss, err := decodeSession(id, fields)
		if err != nil {
			return err
		}
		sessions[id] = ss
	}
	return nil
}

func cloneSession(ss ports.Session) ports.Session {
	ss.Synced = maps.Clone(ss.Synced)
	ss.Counted = maps.Clone(ss.Counted) // its slices are never changed in place
	ss.Extra = maps.Clone(ss.Extra)
	ss.Hooks = ss.Hooks.Clone()
	return ss
}

// Known fields of a stored session; the rest is kept in Extra.
var sessionFields = []string{"counted", "counted_packed", "last_activity", "last_synced_ts", "op_count", "project_path", "start_ts", "synced_seq", ports.HookStateField}

func decodeSessions(b []byte) (map[string]ports.Session, error) {
	var top map[string]map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, err
	}
	out := make(map[string]ports.Session, len(top))
	for id, m := range top {
		ss, err := decodeSession(id, m)
		if err != nil {
			return nil, err
		}
		out[id] = ss
	}
	return out, nil
}

// decodeSession reads the fields of the session stored under id.
func decodeSession(id string, m map[string]json.RawMessage) (ports.Session, error) {
	item := fmt.Sprintf("session %q", id)
	ss := ports.Session{ID: id}
	var err error
	for k, v := range m {
		if isNull(v) && slices.Contains(sessionFields, k) {
			continue
		}
		switch k {
		case "start_ts":
			ss.Start, err = parseMicros(v)
		case "last_activity":
			ss.LastActivity, err = parseMicros(v)
		case "last_synced_ts":
			ss.LastSyncedTS, err = parseMicros(v)
		case "project_path":
			err = json.Unmarshal(v, &ss.ProjectPath)
		case "op_count":
			err = json.Unmarshal(v, &ss.OpCount)
		case ports.HookStateField:
			ss.Hooks, err = ports.UnmarshalHookState(v)
		case "synced_seq":
			var w map[string]uint64
			if err = json.Unmarshal(v, &w); err == nil && len(w) > 0 {
				ss.Synced = make(map[domain.GraphKey]uint64, len(w))
				for gk, seq := range w {
					key, ok := parseGraphKey(gk)
					if !ok {
						err = fmt.Errorf("graph %q", gk)
						break
					}
					ss.Synced[key] = seq
				}
			}
		case "counted":
			var w map[string][]string
			if err = json.Unmarshal(v, &w); err == nil {
				err = addCounted(&ss, w)
			}
		case "counted_packed":
			var w map[string]string
			if err = json.Unmarshal(v, &w); err == nil {
				lists := make(map[string][]string, len(w))
				for gk, packed := range w {
					if lists[gk], err = ports.UnpackIDs(packed); err != nil {
						break
					}
				}
				if err == nil {
					err = addCounted(&ss, lists)
				}
			}
		default:
			if ss.Extra == nil {
				ss.Extra = map[string]domain.RawJSON{}
			}
			ss.Extra[k] = compact(v)
		}
		if err != nil {
			return ports.Session{}, fmt.Errorf("%s: field %s: %w", item, k, err)
		}
	}
	return ss, nil
}

// parseGraphKey reads "user" or "project:<path>", the form GraphKey.String
// writes.
func parseGraphKey(s string) (domain.GraphKey, bool) {
	if s == "user" {
		return domain.UserGraph, true
	}
	if p, ok := strings.CutPrefix(s, "project:"); ok && p != "" {
		return domain.ProjectGraph(p), true
	}
	return domain.GraphKey{}, false
}

func encodeSessions(sessions map[string]ports.Session) []byte {
	e := &enc{b: make([]byte, 0, 256*len(sessions)+16)}
	ids := slices.Sorted(maps.Keys(sessions))
	e.open('{')
	for i, id := range ids {
		e.key(i, id)
		e.session(sessions[id])
	}
	e.close('}', len(ids))
	e.b = append(e.b, '\n')
	return e.b
}

// session writes one session's fields in key order.
func (e *enc) session(ss ports.Session) {
	fs := make([]field, 0, 8)
	fs = append(fs,
		field{key: "start_ts", kind: fMicros, t: ss.Start},
		field{key: "last_activity", kind: fMicros, t: ss.LastActivity},
		field{key: "op_count", kind: fRaw, raw: domain.RawJSON(strconv.FormatInt(ss.OpCount, 10))},
		field{key: "synced_seq", kind: fRaw, raw: syncedJSON(ss.Synced)},
	)
	if ss.ProjectPath != "" {
		fs = append(fs, field{key: "project_path", kind: fString, s: ss.ProjectPath})
	} else {
		fs = append(fs, field{key: "project_path", kind: fRaw, raw: domain.RawJSON("null")})
	}
	if ss.LastSyncedTS != 0 {
		fs = append(fs, field{key: "last_synced_ts", kind: fMicros, t: ss.LastSyncedTS})
	}
	// The hook state always marshals: it holds strings, numbers and a bool.
	if hooks, _ := ports.MarshalHookState(ss.Hooks); hooks != nil {
		fs = append(fs, field{key: ports.HookStateField, kind: fRaw, raw: hooks})
	}
	plain, packed := countedJSON(ss.Counted)
	if plain != nil {
		fs = append(fs, field{key: "counted", kind: fRaw, raw: plain})
	}
	if packed != nil {
		fs = append(fs, field{key: "counted_packed", kind: fRaw, raw: packed})
	}
	fs = appendExtra(fs, ss.Extra)
	e.fields(fs)
}

// addCounted adds the counted ids of each graph of w, as stored under
// "counted" or "counted_packed", to ss.
func addCounted(ss *ports.Session, w map[string][]string) error {
	for gk, ids := range w {
		key, ok := parseGraphKey(gk)
		if !ok {
			return fmt.Errorf("graph %q", gk)
		}
		if len(ids) == 0 {
			continue
		}
		if ss.Counted == nil {
			ss.Counted = make(map[domain.GraphKey][]string, len(w))
		}
		ss.Counted[key] = append(ss.Counted[key], ids...)
	}
	return nil
}

// countedJSON renders the counted ids as {"user": [...], "project:<path>":
// [...]}, and the lists of ports.PackFrom ids or more packed (ports.PackIDs)
// as {"user": "<packed>", …} for "counted_packed"; nil for none. A kg that
// predates the packed field keeps it as an unknown field and counts anew.
func countedJSON(c map[domain.GraphKey][]string) (plain, packed domain.RawJSON) {
	m := make(map[string][]string, len(c))
	p := make(map[string]string)
	for k, ids := range c {
		switch {
		case len(ids) >= ports.PackFrom:
			p[k.String()] = ports.PackIDs(ids)
		case len(ids) > 0:
			m[k.String()] = ids
		}
	}
	if len(m) > 0 {
		plain, _ = json.Marshal(m) // a map of strings to strings always marshals
	}
	if len(p) > 0 {
		packed, _ = json.Marshal(p)
	}
	return plain, packed
}

// syncedJSON renders the watermarks as {"user": n, "project:<path>": n}.
func syncedJSON(w map[domain.GraphKey]uint64) domain.RawJSON {
	m := make(map[string]uint64, len(w))
	for k, v := range w {
		m[k.String()] = v
	}
	b, _ := json.Marshal(m) // a map of strings to numbers always marshals
	return b
}
