package codec

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/kg-memory/kg/domain"
)

// typedDecodeGraph decodes a graph file with encoding/json and typed
// structures, the way docs/decisions/0010-json-md weighs against the
// one-pass parser: json.Unmarshal checks and splits the file, keeping each
// field of a node or edge as its bytes (so unknown fields can be kept),
// version entries decode into a struct, and each item is then converted
// with its key at hand. It is the oracle of the differential fuzz test and
// the "typed" side of BenchmarkDecoders; it shares with DecodeGraph only
// what is not parsing: reading times (parseMicros), compacting unknown
// values, and the edge-key rules of the format (edgeNames, parseEdgeKey).
func typedDecodeGraph(b []byte) (domain.GraphData, []string, error) {
	var f typedFile
	if err := json.Unmarshal(b, &f); err != nil {
		return domain.GraphData{}, nil, typedExplain(b, err)
	}
	return f.data()
}

// typedRaw is a value as its bytes in the file; valid while decoding.
type typedRaw []byte

func (r *typedRaw) UnmarshalJSON(b []byte) error {
	*r = b
	return nil
}

type typedFile struct {
	Nodes map[string]map[string]typedRaw `json:"nodes"`
	Edges map[string]map[string]typedRaw `json:"edges"`
	Meta  map[string]typedRaw            `json:"_meta"`
}

type typedEntry struct {
	V       uint64    `json:"v"`
	Seq     uint64    `json:"seq"`
	TS      typedTime `json:"ts"`
	Session string    `json:"session"`
	Pruned  bool      `json:"pruned"`
	From    *string   `json:"from"`
	To      *string   `json:"to"`
	Rel     *string   `json:"rel"`
}

// typedTime keeps a bad time's error for when its entry is used.
type typedTime struct {
	m   domain.Micros
	err error
}

func (t *typedTime) UnmarshalJSON(b []byte) error {
	t.m, t.err = parseMicros(b)
	return nil
}

func (e *typedEntry) version() (domain.Version, error) {
	if e.TS.err != nil {
		return domain.Version{}, fmt.Errorf("ts: %w", e.TS.err)
	}
	return domain.Version{V: e.V, TS: e.TS.m, Seq: e.Seq, Session: e.Session}, nil
}

// typedExplain names the node or edge that is not an object, which
// encoding/json's error does not.
func typedExplain(b []byte, err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err
	}
	if te.Field == "" {
		return errors.New("the file holds no JSON object")
	}
	if (te.Field == "nodes" || te.Field == "edges") && te.Type == reflect.TypeFor[map[string]typedRaw]() {
		var s struct {
			Nodes map[string]typedRaw `json:"nodes"`
			Edges map[string]typedRaw `json:"edges"`
		}
		if json.Unmarshal(b, &s) == nil {
			section, kind := s.Nodes, "node"
			if te.Field == "edges" {
				section, kind = s.Edges, "edge"
			}
			for _, k := range slices.Sorted(maps.Keys(section)) {
				if v := section[k]; len(v) == 0 || v[0] != '{' {
					return fmt.Errorf("%s %q: field (value): want an object", kind, k)
				}
			}
		}
	}
	return fmt.Errorf("%s: want an object", te.Field)
}

func typedEntries(name string, b typedRaw) (map[string]typedEntry, error) {
	if typedNull(b) {
		return nil, nil
	}
	var m map[string]typedEntry
	err := json.Unmarshal(b, &m)
	if err == nil {
		return m, nil
	}
	var byKey map[string]typedRaw
	if json.Unmarshal(b, &byKey) != nil {
		return nil, fmt.Errorf("_meta.%s: want an object", name)
	}
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		var e typedEntry
		if err := json.Unmarshal(byKey[k], &e); err != nil {
			return nil, fmt.Errorf("_meta.%s: %q: %w", name, k, err)
		}
	}
	return nil, fmt.Errorf("_meta.%s: %w", name, err)
}

func typedStr(v typedRaw) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	for _, c := range inner {
		if !plain[c] {
			var s string
			return s, json.Unmarshal(v, &s) == nil
		}
	}
	return string(inner), true
}

func typedStrList(v typedRaw) ([]string, bool) {
	var l []string
	if json.Unmarshal(v, &l) != nil {
		return nil, false
	}
	return l, true
}

func typedMicros(v typedRaw) (domain.Micros, bool) {
	if c := v[0]; c != '-' && (c < '0' || c > '9') {
		return 0, false
	}
	m, err := parseMicros(v)
	return m, err == nil
}

func typedUint(v typedRaw) (uint64, bool) {
	var n uint64
	if json.Unmarshal(v, &n) != nil || strings.ContainsAny(string(v), ".eE") {
		return 0, false
	}
	return n, true
}

func typedNode(key string, fields map[string]typedRaw) (domain.Node, error) {
	var n domain.Node
	if fields == nil {
		return n, fmt.Errorf("node %q: field (value): want an object", key)
	}
	id := ""
	bad := -1
	archived, orphaned := false, false
	for i, f := range nodeFields {
		v, ok := fields[f.name]
		if !ok || typedNull(v) {
			continue
		}
		switch f.name {
		case "id":
			id, ok = typedStr(v)
		case "gist":
			n.Gist, ok = typedStr(v)
		case "notes":
			n.Notes, ok = typedStrList(v)
		case "touches":
			n.Touches, ok = typedStrList(v)
		case "_created_ts":
			n.Created, ok = typedMicros(v)
		case "_last_read_ts":
			n.LastRead, ok = typedMicros(v)
		case "_orphaned_ts":
			n.OrphanedAt, ok = typedMicros(v)
			orphaned = true
		case "_archived":
			ok = json.Unmarshal(v, &archived) == nil
		case "_tier_seq":
			n.TierSeq, ok = typedUint(v)
		}
		if !ok && bad < 0 {
			bad = i
		}
	}
	n.ID = key
	if id != "" {
		n.ID = id
	}
	if bad >= 0 {
		return n, fmt.Errorf("node %q: field %s: want %s", n.ID, nodeFields[bad].name, nodeFields[bad].want)
	}
	switch {
	case orphaned:
		n.Tier = domain.Orphaned
	case archived:
		n.Tier = domain.Archived
	}
	// The use count is never a type error: what is not a pair of
	// non-negative integers reads as no count.
	use, useOK := fields["_use"], false
	day, dayOK := fields["_use_day"], false
	var count, days uint64
	if use != nil && !typedNull(use) {
		count, useOK = typedUint(use)
	}
	if day != nil && !typedNull(day) {
		days, dayOK = typedUint(day)
	}
	n.Use = domain.StoredUse(count, days, useOK && dayOK)
	for k, v := range fields {
		if k == "_use" || k == "_use_day" ||
			slices.ContainsFunc(nodeFields[:], func(f struct{ name, want string }) bool { return f.name == k }) {
			continue
		}
		if n.Extra == nil {
			n.Extra = map[string]domain.RawJSON{}
		}
		n.Extra[k] = compact(v)
	}
	return n, nil
}

func typedEdge(key string, fields map[string]typedRaw) (domain.Edge, error) {
	var e domain.Edge
	if fields == nil {
		return e, fmt.Errorf("edge %q: field (value): want an object", key)
	}
	e.From, _ = typedStr(fields["from"])
	e.To, _ = typedStr(fields["to"])
	e.Rel, _ = typedStr(fields["rel"])
	for _, f := range [][2]string{{"from", e.From}, {"to", e.To}, {"rel", e.Rel}} {
		if f[1] == "" {
			return e, fmt.Errorf("edge %q: field %s: want a non-empty string", key, f[0])
		}
	}
	if v := fields["notes"]; !typedNull(v) {
		var ok bool
		if e.Notes, ok = typedStrList(v); !ok {
			return e, fmt.Errorf("edge %q: field notes: want a list of strings", key)
		}
	}
	for k, v := range fields {
		switch k {
		case "from", "to", "rel", "notes":
			continue
		}
		if e.Extra == nil {
			e.Extra = map[string]domain.RawJSON{}
		}
		e.Extra[k] = compact(v)
	}
	return e, nil
}

func (f *typedFile) data() (domain.GraphData, []string, error) {
	d := domain.GraphData{Progress: map[string]domain.RawJSON{}, Meta: map[string]domain.RawJSON{},
		NodeTombstones: map[string]domain.Tombstone{}, EdgeTombstones: map[domain.EdgeKey]domain.Tombstone{}}
	var versions, tombs map[string]typedEntry
	for k, v := range f.Meta {
		var err error
		ok := true
		switch k {
		case "schema":
			var n uint64
			if !typedNull(v) {
				n, ok = typedUint(v)
			}
			d.Schema = int(min(n, math.MaxInt32))
		case "seq":
			if !typedNull(v) {
				d.Seq, ok = typedUint(v)
			}
		case "project_path":
			if !typedNull(v) {
				d.ProjectPath, ok = typedStr(v)
			}
		case "versions":
			versions, err = typedEntries(k, v)
		case "tombstones":
			tombs, err = typedEntries(k, v)
		case "progress":
			var p map[string]typedRaw
			if json.Unmarshal(v, &p) != nil {
				return d, nil, errors.New("_meta.progress: want an object")
			}
			for task, s := range p {
				d.Progress[task] = compact(s)
			}
		default:
			d.Meta[k] = compact(v)
		}
		if err != nil {
			return d, nil, err
		}
		if !ok {
			return d, nil, fmt.Errorf("_meta.%s: wrong type", k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(f.Nodes)) {
		n, err := typedNode(k, f.Nodes[k])
		if err != nil {
			return d, nil, err
		}
		if e, ok := versions["node:"+n.ID]; ok {
			if n.Version, err = e.version(); err != nil {
				return d, nil, fmt.Errorf("_meta.versions: node %q: %w", n.ID, err)
			}
		}
		d.Nodes = append(d.Nodes, n)
	}
	fileKey := map[domain.EdgeKey]string{}
	for _, k := range slices.Sorted(maps.Keys(f.Edges)) {
		e, err := typedEdge(k, f.Edges[k])
		if err != nil {
			return d, nil, err
		}
		if _, seen := fileKey[e.Key()]; !seen {
			fileKey[e.Key()] = k
		}
		d.Edges = append(d.Edges, e)
	}
	ids := slices.Collect(maps.Keys(fileKey))
	found := map[domain.EdgeKey]*typedEntry{}
	for _, nm := range edgeNames(len(ids), func(i int) domain.EdgeKey { return ids[i] }) {
		for _, k := range []string{nm.key, fileKey[ids[nm.i]]} {
			if e, ok := versions["edge:"+k]; ok {
				found[ids[nm.i]] = &e
				break
			}
		}
	}
	for i := range d.Edges {
		if e := found[d.Edges[i].Key()]; e != nil {
			v, err := e.version()
			if err != nil {
				return d, nil, fmt.Errorf("_meta.versions: edge %s: %w", edgeKeyString(d.Edges[i].Key()), err)
			}
			d.Edges[i].Version = v
		}
	}
	var notes []string
	for _, key := range slices.Sorted(maps.Keys(tombs)) {
		te := tombs[key]
		v, err := te.version()
		if err != nil {
			return d, nil, fmt.Errorf("_meta.tombstones: %q: %w", key, err)
		}
		t := domain.Tombstone{V: v.V, TS: v.TS, Session: v.Session, Seq: v.Seq, Pruned: te.Pruned}
		if id, ok := strings.CutPrefix(key, "node:"); ok {
			d.NodeTombstones[id] = t
			continue
		}
		rest, ok := strings.CutPrefix(key, "edge:")
		if !ok {
			notes = append(notes, fmt.Sprintf("tombstone %q: unknown kind; dropped", key))
			continue
		}
		k, ok := domain.EdgeKey{}, false
		if te.From != nil && te.To != nil && te.Rel != nil {
			k, ok = domain.EdgeKey{From: *te.From, To: *te.To, Rel: *te.Rel}, true
		} else {
			k, ok = parseEdgeKey(rest)
		}
		if !ok {
			notes = append(notes, fmt.Sprintf("tombstone %q: cannot tell the edge; dropped", key))
			continue
		}
		d.EdgeTombstones[k] = t
	}
	return d, notes, nil
}

func typedNull(v typedRaw) bool { return len(v) == 0 || string(v) == "null" }
