package bolt

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kg-memory/kg/adapters/storage/record"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// A node, an edge and a tombstone are stored as their adapters/storage/record
// records (docs/decisions/0085-one-record-encoding.md). Unknown fields (Extra)
// are spliced in verbatim by marshalWithExtra, because encoding/json would
// compact and re-escape a json.RawMessage and the bytes would not come back
// as they were stored. A session's record is bolt's own.

type syncedRec struct {
	Level   string `json:"level"`
	Project string `json:"project,omitempty"`
	Seq     uint64 `json:"seq"`
}

// countedRec is the ids a session has counted in one graph, oldest first.
type countedRec struct {
	Level   string   `json:"level"`
	Project string   `json:"project,omitempty"`
	IDs     []string `json:"ids"`
	// Packed holds a list of ports.PackFrom ids or more (ports.PackIDs)
	// in place of IDs (docs/decisions/0070-compact-session-id-lists.md).
	Packed string `json:"packed,omitempty"`
}

type sessionRec struct {
	ProjectPath  string       `json:"project_path,omitempty"`
	Start        int64        `json:"start_ts"`
	LastActivity int64        `json:"last_activity"`
	OpCount      int64        `json:"op_count"`
	LastSyncedTS int64        `json:"last_synced_ts,omitempty"`
	Synced       *[]syncedRec `json:"synced"` // pointer: nil and empty map both round-trip
	Counted      []countedRec `json:"counted,omitempty"`
	// HookState is ports.MarshalHookState's object, absent when empty.
	HookState json.RawMessage            `json:"hook_state,omitempty"`
	Extra     map[string]json.RawMessage `json:"extra,omitempty"`
}

func encodeNode(n *domain.Node) ([]byte, error) {
	r, err := record.NodeOf(n)
	if err != nil {
		return nil, err
	}
	r.Extra = nil // spliced in as stored
	return marshalWithExtra(r, n.Extra)
}

func decodeNode(b []byte) (domain.Node, error) {
	var r record.Node
	if err := json.Unmarshal(b, &r); err != nil {
		return domain.Node{}, err
	}
	return r.Domain()
}

func encodeEdge(e *domain.Edge) ([]byte, error) {
	r := record.EdgeOf(e)
	r.Extra = nil // spliced in as stored
	return marshalWithExtra(r, e.Extra)
}

func decodeEdge(b []byte) (domain.Edge, error) {
	var r record.Edge
	if err := json.Unmarshal(b, &r); err != nil {
		return domain.Edge{}, err
	}
	return r.Domain(), nil
}

// encodeTomb stores an edge tombstone with its ends: an edge key in the
// bucket is not meant to be parsed back.
func encodeTomb(t domain.Tombstone, edge *domain.EdgeKey) ([]byte, error) {
	r := record.TombstoneOf(t)
	if edge != nil {
		r.From, r.To, r.Rel = edge.From, edge.To, edge.Rel
	}
	return json.Marshal(r)
}

func decodeTomb(b []byte) (domain.Tombstone, domain.EdgeKey, error) {
	var r record.Tombstone
	if err := json.Unmarshal(b, &r); err != nil {
		return domain.Tombstone{}, domain.EdgeKey{}, err
	}
	return r.Domain(), domain.EdgeKey{From: r.From, To: r.To, Rel: r.Rel}, nil
}

func encodeSession(s ports.Session) ([]byte, error) {
	r := sessionRec{ProjectPath: s.ProjectPath, Start: int64(s.Start), LastActivity: int64(s.LastActivity),
		OpCount: s.OpCount, LastSyncedTS: int64(s.LastSyncedTS)}
	if s.Synced != nil {
		list := make([]syncedRec, 0, len(s.Synced))
		for k, seq := range s.Synced {
			list = append(list, syncedRec{Level: string(k.Level), Project: k.Project, Seq: seq})
		}
		// Sorted so that one session always encodes to the same bytes.
		slices.SortFunc(list, func(a, b syncedRec) int {
			if c := strings.Compare(a.Level, b.Level); c != 0 {
				return c
			}
			return strings.Compare(a.Project, b.Project)
		})
		r.Synced = &list
	}
	hooks, err := ports.MarshalHookState(s.Hooks)
	if err != nil {
		return nil, err
	}
	r.HookState = json.RawMessage(hooks)
	for k, ids := range s.Counted {
		c := countedRec{Level: string(k.Level), Project: k.Project, IDs: ids}
		switch {
		case len(ids) >= ports.PackFrom:
			c.IDs, c.Packed = nil, ports.PackIDs(ids)
		case len(ids) == 0:
			continue
		}
		r.Counted = append(r.Counted, c)
	}
	slices.SortFunc(r.Counted, func(a, b countedRec) int {
		if c := strings.Compare(a.Level, b.Level); c != 0 {
			return c
		}
		return strings.Compare(a.Project, b.Project)
	})
	return marshalWithExtra(r, s.Extra)
}

func decodeSession(id string, b []byte) (ports.Session, error) {
	var r sessionRec
	if err := json.Unmarshal(b, &r); err != nil {
		return ports.Session{}, err
	}
	s := ports.Session{ID: id, ProjectPath: r.ProjectPath, Start: domain.Micros(r.Start),
		LastActivity: domain.Micros(r.LastActivity), OpCount: r.OpCount,
		LastSyncedTS: domain.Micros(r.LastSyncedTS), Extra: record.RawJSONs(r.Extra)}
	if r.HookState != nil {
		h, err := ports.UnmarshalHookState(r.HookState)
		if err != nil {
			return ports.Session{}, fmt.Errorf("hook_state: %w", err)
		}
		s.Hooks = h
	}
	if r.Synced != nil {
		s.Synced = make(map[domain.GraphKey]uint64, len(*r.Synced))
		for _, w := range *r.Synced {
			s.Synced[domain.GraphKey{Level: domain.Level(w.Level), Project: w.Project}] = w.Seq
		}
	}
	if len(r.Counted) > 0 {
		s.Counted = make(map[domain.GraphKey][]string, len(r.Counted))
		for _, c := range r.Counted {
			ids := c.IDs
			if c.Packed != "" {
				var err error
				if ids, err = ports.UnpackIDs(c.Packed); err != nil {
					return ports.Session{}, fmt.Errorf("counted: %w", err)
				}
			}
			s.Counted[domain.GraphKey{Level: domain.Level(c.Level), Project: c.Project}] = ids
		}
	}
	return s, nil
}

// marshalWithExtra encodes v (a struct) and appends "extra" with the raw
// values of extra byte for byte. A nil extra is left out; an empty one is
// written as {} so that it comes back empty rather than nil.
func marshalWithExtra(v any, extra map[string]domain.RawJSON) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if extra == nil {
		return b, nil
	}
	if len(b) < 2 || b[len(b)-1] != '}' {
		return nil, errors.New("record is not a JSON object")
	}
	var buf bytes.Buffer
	buf.Grow(len(b) + 64)
	buf.Write(b[:len(b)-1])
	if len(b) > 2 {
		buf.WriteByte(',')
	}
	buf.WriteString(`"extra":{`)
	for i, name := range slices.Sorted(maps.Keys(extra)) {
		raw := extra[name]
		if !json.Valid(raw) {
			return nil, fmt.Errorf("unknown field %q is not valid JSON", name)
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		k, err := json.Marshal(name)
		if err != nil {
			return nil, err
		}
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(raw)
	}
	buf.WriteString("}}")
	return buf.Bytes(), nil
}

// edgeKey is the bucket key of an edge or an edge tombstone: each of from
// and to prefixed with its length, then rel. Ends may hold any byte a legacy
// file held, so no separator could be trusted.
func edgeKey(k domain.EdgeKey) []byte {
	b := make([]byte, 0, len(k.From)+len(k.To)+len(k.Rel)+2*binary.MaxVarintLen64)
	b = binary.AppendUvarint(b, uint64(len(k.From)))
	b = append(b, k.From...)
	b = binary.AppendUvarint(b, uint64(len(k.To)))
	b = append(b, k.To...)
	return append(b, k.Rel...)
}
