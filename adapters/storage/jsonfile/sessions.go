package jsonfile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

func (s *Store) sessionsFile() file { return file{dir: s.root, stem: "sessions"} }

// LoadSessions implements ports.SessionRepository.
func (s *Store) LoadSessions(ctx context.Context) (map[string]ports.Session, error) {
	out := map[string]ports.Session{}
	err := s.load(ctx, s.sessionsFile(), func(b []byte) error {
		got, err := decodeSessions(b)
		if err == nil {
			out = got
		}
		return err
	})
	if errors.Is(err, errMissing) {
		return map[string]ports.Session{}, nil
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SaveSessions implements ports.SessionRepository: sessions.json is
// rewritten atomically, like a graph.
func (s *Store) SaveSessions(ctx context.Context, sessions map[string]ports.Session) error {
	data := encodeSessions(sessions)
	s.sessMu.Lock()
	defer s.sessMu.Unlock()
	f := s.sessionsFile()
	if err := s.writeAtomic(ctx, f, writeBytes(data)); err != nil {
		return domain.Unavailable(err, "save sessions to %s: %v", f.path(), err)
	}
	return nil
}

// Known fields of a stored session; the rest is kept in Extra.
var sessionFields = []string{"last_activity", "last_synced_ts", "op_count", "project_path", "start_ts", "synced_seq"}

func decodeSessions(b []byte) (map[string]ports.Session, error) {
	var top map[string]map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, err
	}
	out := make(map[string]ports.Session, len(top))
	for id, m := range top {
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
			default:
				if ss.Extra == nil {
					ss.Extra = map[string]domain.RawJSON{}
				}
				ss.Extra[k] = compact(v)
			}
			if err != nil {
				return nil, fmt.Errorf("%s: field %s: %w", item, k, err)
			}
		}
		out[id] = ss
	}
	return out, nil
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
	ids := slices.Sorted(mapKeys(sessions))
	e.open('{')
	fs := make([]field, 0, 8)
	for i, id := range ids {
		ss := sessions[id]
		e.key(i, id)
		fs = append(fs[:0],
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
		fs = appendExtra(fs, ss.Extra)
		e.fields(fs)
	}
	e.close('}', len(ids))
	e.b = append(e.b, '\n')
	return e.b
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
