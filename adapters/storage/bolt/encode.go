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

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// The records below are the on-disk encoding of one item each. They belong
// to this adapter so that a change of a domain type never changes the file
// format by accident. Times are integer Unix microseconds. Notes and touches
// have no omitempty: null and [] both round-trip, so a loaded item is equal to
// the committed one. Unknown fields (Extra) are spliced in verbatim by
// marshalWithExtra, because encoding/json would compact and re-escape a
// json.RawMessage and the bytes would not come back as they were stored.

type versionRec struct {
	V       uint64 `json:"v"`
	TS      int64  `json:"ts"`
	Session string `json:"session,omitempty"`
	Seq     uint64 `json:"seq,omitempty"`
}

type nodeRec struct {
	ID         string   `json:"id"`
	Gist       string   `json:"gist"`
	Notes      []string `json:"notes"`
	Touches    []string `json:"touches"`
	Tier       string   `json:"tier"`
	Created    int64    `json:"created,omitempty"`
	LastRead   int64    `json:"last_read,omitempty"`
	OrphanedAt int64    `json:"orphaned_at,omitempty"`
	TierSeq    uint64   `json:"tier_seq,omitempty"`
	// Use and UseDay are the use count (docs/design/compaction.md#the-use-count);
	// absent in records written before it, which then read as a node
	// without one.
	Use    *uint64 `json:"use,omitempty"`
	UseDay *uint64 `json:"use_day,omitempty"`
	// Files are the node's file stamps, path to hash
	// (docs/design/trust.md#staleness); absent in records written before
	// them, and one that does not read as such is no stamps.
	Files   json.RawMessage            `json:"files,omitempty"`
	Version versionRec                 `json:"version"`
	Extra   map[string]json.RawMessage `json:"extra,omitempty"` // read only; written by marshalWithExtra
}

type edgeRec struct {
	From    string                     `json:"from"`
	To      string                     `json:"to"`
	Rel     string                     `json:"rel"`
	Notes   []string                   `json:"notes"`
	Version versionRec                 `json:"version"`
	Extra   map[string]json.RawMessage `json:"extra,omitempty"`
}

// tombRec is a node or edge tombstone; From, To and Rel are set for edges
// only, because an edge key in the bucket is not meant to be parsed back.
type tombRec struct {
	V       uint64 `json:"v"`
	TS      int64  `json:"ts"`
	Session string `json:"session,omitempty"`
	Seq     uint64 `json:"seq,omitempty"`
	Pruned  bool   `json:"pruned,omitempty"`
	From    string `json:"from,omitempty"`
	To      string `json:"to,omitempty"`
	Rel     string `json:"rel,omitempty"`
}

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

var tierNames = map[domain.Tier]string{domain.Active: "active", domain.Archived: "archived", domain.Orphaned: "orphaned"}

func tierOf(s string) (domain.Tier, error) {
	for t, name := range tierNames {
		if name == s {
			return t, nil
		}
	}
	return 0, fmt.Errorf("unknown tier %q", s)
}

func versionOf(v domain.Version) versionRec {
	return versionRec{V: v.V, TS: int64(v.TS), Session: v.Session, Seq: v.Seq}
}

func (r versionRec) domain() domain.Version {
	return domain.Version{V: r.V, TS: domain.Micros(r.TS), Session: r.Session, Seq: r.Seq}
}

func encodeNode(n *domain.Node) ([]byte, error) {
	r := nodeRec{
		ID: n.ID, Gist: n.Gist, Notes: n.Notes, Touches: n.Touches,
		Tier: tierNames[n.Tier], Created: int64(n.Created), LastRead: int64(n.LastRead),
		OrphanedAt: int64(n.OrphanedAt), TierSeq: n.TierSeq, Version: versionOf(n.Version),
	}
	if n.Use.Known {
		day := uint64(max(n.Use.Day, 0))
		r.Use, r.UseDay = &n.Use.Count, &day
	}
	if m := domain.FileStampMap(n.Files); m != nil {
		r.Files, _ = json.Marshal(m) // a map of strings always marshals
	}
	if r.Tier == "" {
		return nil, fmt.Errorf("node %q: unknown tier %d", n.ID, n.Tier)
	}
	return marshalWithExtra(r, n.Extra)
}

func decodeNode(b []byte) (domain.Node, error) {
	var r nodeRec
	if err := json.Unmarshal(b, &r); err != nil {
		return domain.Node{}, err
	}
	tier, err := tierOf(r.Tier)
	if err != nil {
		return domain.Node{}, err
	}
	var use domain.Use
	if r.Use != nil && r.UseDay != nil {
		use = domain.StoredUse(*r.Use, *r.UseDay, true)
	}
	return domain.Node{
		ID: r.ID, Gist: r.Gist, Notes: r.Notes, Touches: r.Touches, Tier: tier,
		Created: domain.Micros(r.Created), LastRead: domain.Micros(r.LastRead),
		OrphanedAt: domain.Micros(r.OrphanedAt), TierSeq: r.TierSeq, Use: use, Files: domain.ParseFileStamps(r.Files),
		Version: r.Version.domain(), Extra: rawMap(r.Extra),
	}, nil
}

func encodeEdge(e *domain.Edge) ([]byte, error) {
	r := edgeRec{From: e.From, To: e.To, Rel: e.Rel, Notes: e.Notes, Version: versionOf(e.Version)}
	return marshalWithExtra(r, e.Extra)
}

func decodeEdge(b []byte) (domain.Edge, error) {
	var r edgeRec
	if err := json.Unmarshal(b, &r); err != nil {
		return domain.Edge{}, err
	}
	return domain.Edge{From: r.From, To: r.To, Rel: r.Rel, Notes: r.Notes,
		Version: r.Version.domain(), Extra: rawMap(r.Extra)}, nil
}

func encodeTomb(t domain.Tombstone, edge *domain.EdgeKey) ([]byte, error) {
	r := tombRec{V: t.V, TS: int64(t.TS), Session: t.Session, Seq: t.Seq, Pruned: t.Pruned}
	if edge != nil {
		r.From, r.To, r.Rel = edge.From, edge.To, edge.Rel
	}
	return json.Marshal(r)
}

func decodeTomb(b []byte) (domain.Tombstone, domain.EdgeKey, error) {
	var r tombRec
	if err := json.Unmarshal(b, &r); err != nil {
		return domain.Tombstone{}, domain.EdgeKey{}, err
	}
	return domain.Tombstone{V: r.V, TS: domain.Micros(r.TS), Session: r.Session, Seq: r.Seq, Pruned: r.Pruned},
		domain.EdgeKey{From: r.From, To: r.To, Rel: r.Rel}, nil
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
		LastSyncedTS: domain.Micros(r.LastSyncedTS), Extra: rawMap(r.Extra)}
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

func rawMap(m map[string]json.RawMessage) map[string]domain.RawJSON {
	if m == nil {
		return nil
	}
	out := make(map[string]domain.RawJSON, len(m))
	for k, v := range m {
		out[k] = domain.RawJSON(v)
	}
	return out
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
