package codec

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// SessionsRecord is the payload of a sessions journal record:
// {"sessions":{"<id>":{…as in sessions.json…},"<removed id>":null}}.
func SessionsRecord(sessions map[string]ports.Session, changed, removed []string) []byte {
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

// ReplaySessions applies one sessions record to sessions.
func ReplaySessions(sessions map[string]ports.Session, payload []byte) error {
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

// Known fields of a stored session; the rest is kept in Extra.
var sessionFields = []string{"counted", "counted_packed", "last_activity", "last_synced_ts", "op_count", "project_path", "start_ts", "synced_seq", ports.HookStateField}

func DecodeSessions(b []byte) (map[string]ports.Session, error) {
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

func EncodeSessions(sessions map[string]ports.Session) []byte {
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
