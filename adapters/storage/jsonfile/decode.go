package jsonfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kg-memory/kg/domain"
)

// fileGraph is the top level of a graph file. Unknown top-level keys are
// not kept: neither the replaced server nor kg writes any.
type fileGraph struct {
	// Items are decoded to field maps in the same pass as the file, which
	// saves re-scanning every item (Load of a 100k-node graph).
	Nodes map[string]map[string]json.RawMessage `json:"nodes"`
	Edges map[string]map[string]json.RawMessage `json:"edges"`
	Meta  map[string]json.RawMessage            `json:"_meta"`
}

// fileEntry is a version entry or a tombstone. TS is raw so that seconds
// are parsed exactly to the microsecond.
type fileEntry struct {
	V       uint64          `json:"v"`
	TS      json.RawMessage `json:"ts"`
	Session *string         `json:"session"`
	Seq     uint64          `json:"seq"`
	Pruned  bool            `json:"pruned"`
	// From, To and Rel name an edge tombstone whose key does not parse.
	From *string `json:"from"`
	To   *string `json:"to"`
	Rel  *string `json:"rel"`
}

// decodeGraph parses a graph file. It returns an error for a file that does
// not parse or has a known field of the wrong type (naming the item), and
// notes, for the caller to log, about entries it had to drop.
func decodeGraph(b []byte) (domain.GraphData, []string, error) {
	var f fileGraph
	if err := json.Unmarshal(b, &f); err != nil {
		return domain.GraphData{}, nil, err
	}
	var d domain.GraphData
	var notes []string

	versions := map[string]fileEntry{}
	tombs := map[string]fileEntry{}
	d.Meta = map[string]domain.RawJSON{}
	d.Progress = map[string]domain.RawJSON{}
	for k, v := range f.Meta {
		if isNull(v) {
			switch k {
			case "schema", "seq", "project_path", "versions", "tombstones", "progress":
			default:
				d.Meta[k] = domain.RawJSON("null")
			}
			continue
		}
		var err error
		switch k {
		case "schema":
			var n uint64
			err = json.Unmarshal(v, &n)
			d.Schema = int(min(n, math.MaxInt32))
		case "seq":
			err = json.Unmarshal(v, &d.Seq)
		case "project_path":
			err = json.Unmarshal(v, &d.ProjectPath)
		case "versions":
			err = json.Unmarshal(v, &versions)
		case "tombstones":
			err = json.Unmarshal(v, &tombs)
		case "progress":
			var p map[string]json.RawMessage
			err = json.Unmarshal(v, &p)
			for task, state := range p {
				d.Progress[task] = compact(state)
			}
		default:
			d.Meta[k] = compact(v)
		}
		if err != nil {
			return domain.GraphData{}, nil, fmt.Errorf("_meta.%s: %w", k, err)
		}
	}

	// Nodes, in map-key byte order so that Restore resolves two entries
	// claiming one id the same way every time.
	keys := slices.Sorted(mapKeys(f.Nodes))
	d.Nodes = make([]domain.Node, 0, len(keys))
	for _, key := range keys {
		n, err := decodeNode(key, f.Nodes[key])
		if err != nil {
			return domain.GraphData{}, nil, err
		}
		if ve, ok := versions["node:"+n.ID]; ok {
			if n.Version, err = ve.version(); err != nil {
				return domain.GraphData{}, nil, fmt.Errorf("_meta.versions: node %q: %w", n.ID, err)
			}
		}
		d.Nodes = append(d.Nodes, n)
	}

	// Edges: map keys are ignored, values are the truth; version entries
	// are found under the key the edge is written with.
	mapKeyOf := make(map[domain.EdgeKey]string, len(f.Edges))
	d.Edges = make([]domain.Edge, 0, len(f.Edges))
	for _, key := range slices.Sorted(mapKeys(f.Edges)) {
		e, err := decodeEdge(key, f.Edges[key])
		if err != nil {
			return domain.GraphData{}, nil, err
		}
		if _, dup := mapKeyOf[e.Key()]; !dup {
			mapKeyOf[e.Key()] = key
		}
		d.Edges = append(d.Edges, e)
	}
	ids := make([]domain.EdgeKey, 0, len(mapKeyOf))
	for k := range mapKeyOf {
		ids = append(ids, k)
	}
	canon := make(map[domain.EdgeKey]string, len(ids))
	for _, ke := range edgeKeys(ids) {
		canon[ke.k] = ke.key
	}
	for i := range d.Edges {
		k := d.Edges[i].Key()
		ve, ok := versions["edge:"+canon[k]]
		if !ok {
			ve, ok = versions["edge:"+mapKeyOf[k]]
		}
		if ok {
			v, err := ve.version()
			if err != nil {
				return domain.GraphData{}, nil, fmt.Errorf("_meta.versions: edge %s: %w", edgeKeyString(k), err)
			}
			d.Edges[i].Version = v
		}
	}

	d.NodeTombstones = map[string]domain.Tombstone{}
	d.EdgeTombstones = map[domain.EdgeKey]domain.Tombstone{}
	for key, te := range tombs {
		v, err := te.version()
		if err != nil {
			return domain.GraphData{}, nil, fmt.Errorf("_meta.tombstones: %q: %w", key, err)
		}
		t := domain.Tombstone{V: v.V, TS: v.TS, Session: v.Session, Seq: v.Seq, Pruned: te.Pruned}
		switch {
		case strings.HasPrefix(key, "node:"):
			d.NodeTombstones[key[len("node:"):]] = t
		case strings.HasPrefix(key, "edge:"):
			var k domain.EdgeKey
			ok := false
			if te.From != nil && te.To != nil && te.Rel != nil {
				k, ok = domain.EdgeKey{From: *te.From, To: *te.To, Rel: *te.Rel}, true
			} else {
				k, ok = parseEdgeKey(key[len("edge:"):])
			}
			if !ok {
				notes = append(notes, fmt.Sprintf("tombstone %q: cannot tell the edge; dropped", key))
				continue
			}
			d.EdgeTombstones[k] = t
		default:
			notes = append(notes, fmt.Sprintf("tombstone %q: unknown kind; dropped", key))
		}
	}
	return d, notes, nil
}

// parseEdgeKey reads "<from>-><to>:<rel>" with an optional "#n" suffix. rel
// cannot contain ':' or '#', and a node id cannot contain '>', so splitting
// at the last ':' and the first "->" is right whenever from is a node id.
func parseEdgeKey(s string) (domain.EdgeKey, bool) {
	if i := strings.LastIndexByte(s, '#'); i >= 0 {
		if _, err := strconv.Atoi(s[i+1:]); err == nil {
			s = s[:i]
		}
	}
	c := strings.LastIndexByte(s, ':')
	if c < 0 {
		return domain.EdgeKey{}, false
	}
	ft, rel := s[:c], s[c+1:]
	from, to, ok := strings.Cut(ft, "->")
	if !ok || rel == "" {
		return domain.EdgeKey{}, false
	}
	return domain.EdgeKey{From: from, To: to, Rel: rel}, true
}

func (fe fileEntry) version() (domain.Version, error) {
	ts, err := parseMicros(fe.TS)
	if err != nil {
		return domain.Version{}, fmt.Errorf("ts: %w", err)
	}
	v := domain.Version{V: fe.V, TS: ts, Seq: fe.Seq}
	if fe.Session != nil {
		v.Session = *fe.Session
	}
	return v, nil
}

func isNull(r json.RawMessage) bool { return len(r) == 0 || string(r) == "null" }

// compact strips insignificant whitespace from a stored value, so that
// values compare equal whatever indentation the file had; it also copies
// it out of the file's buffer.
func compact(r json.RawMessage) domain.RawJSON {
	var b bytes.Buffer
	if err := json.Compact(&b, r); err != nil {
		return domain.RawJSON(slices.Clone(r))
	}
	return domain.RawJSON(b.Bytes())
}

// wrongType is the error for a known field of the wrong type.
func wrongType(item, field, want string) error {
	return fmt.Errorf("%s: field %s: want %s", item, field, want)
}

func decodeNode(key string, m map[string]json.RawMessage) (domain.Node, error) {
	item := fmt.Sprintf("node %q", key)
	if m == nil {
		return domain.Node{}, wrongType(item, "(value)", "an object")
	}
	n := domain.Node{ID: key}
	var err error
	archived := false
	orphaned := false
	for k, v := range m {
		if isNull(v) {
			if k != "id" && k != "gist" && k != "notes" && k != "touches" &&
				k != "_created_ts" && k != "_last_read_ts" && k != "_archived" && k != "_orphaned_ts" && k != "_tier_seq" {
				n.Extra = setExtra(n.Extra, k, v)
			}
			continue
		}
		switch k {
		case "id":
			var id string
			if json.Unmarshal(v, &id) != nil {
				return n, wrongType(item, k, "a string")
			}
			if id != "" {
				n.ID = id
				item = fmt.Sprintf("node %q", id)
			}
		case "gist":
			if json.Unmarshal(v, &n.Gist) != nil {
				return n, wrongType(item, k, "a string")
			}
		case "notes":
			if json.Unmarshal(v, &n.Notes) != nil {
				return n, wrongType(item, k, "a list of strings")
			}
		case "touches":
			if json.Unmarshal(v, &n.Touches) != nil {
				return n, wrongType(item, k, "a list of strings")
			}
		case "_created_ts":
			if n.Created, err = parseMicros(v); err != nil {
				return n, wrongType(item, k, "a number of seconds")
			}
		case "_last_read_ts":
			if n.LastRead, err = parseMicros(v); err != nil {
				return n, wrongType(item, k, "a number of seconds")
			}
		case "_orphaned_ts":
			if n.OrphanedAt, err = parseMicros(v); err != nil {
				return n, wrongType(item, k, "a number of seconds")
			}
			orphaned = true
		case "_archived":
			if json.Unmarshal(v, &archived) != nil {
				return n, wrongType(item, k, "true or false")
			}
		case "_tier_seq":
			if json.Unmarshal(v, &n.TierSeq) != nil {
				return n, wrongType(item, k, "a non-negative integer")
			}
		default:
			n.Extra = setExtra(n.Extra, k, v)
		}
	}
	// An orphaned time makes the node orphaned, whatever else it says.
	switch {
	case orphaned:
		n.Tier = domain.Orphaned
	case archived:
		n.Tier = domain.Archived
	}
	return n, nil
}

func setExtra(m map[string]domain.RawJSON, k string, v json.RawMessage) map[string]domain.RawJSON {
	if m == nil {
		m = map[string]domain.RawJSON{}
	}
	m[k] = compact(v)
	return m
}

func decodeEdge(key string, m map[string]json.RawMessage) (domain.Edge, error) {
	item := fmt.Sprintf("edge %q", key)
	if m == nil {
		return domain.Edge{}, wrongType(item, "(value)", "an object")
	}
	var e domain.Edge
	for k, v := range m {
		switch k {
		case "from", "to", "rel":
			var s string
			if json.Unmarshal(v, &s) != nil || s == "" {
				return e, wrongType(item, k, "a non-empty string")
			}
			switch k {
			case "from":
				e.From = s
			case "to":
				e.To = s
			default:
				e.Rel = s
			}
		case "notes":
			if isNull(v) {
				continue
			}
			if json.Unmarshal(v, &e.Notes) != nil {
				return e, wrongType(item, k, "a list of strings")
			}
		default:
			if e.Extra == nil {
				e.Extra = map[string]domain.RawJSON{}
			}
			e.Extra[k] = compact(v)
		}
	}
	for _, f := range [][2]string{{"from", e.From}, {"to", e.To}, {"rel", e.Rel}} {
		if f[1] == "" {
			return e, wrongType(item, f[0], "a non-empty string")
		}
	}
	return e, nil
}

// parseMicros reads a number of seconds and rounds it to the nearest
// microsecond. Plain decimals are read exactly, digit by digit: a float64
// has too few digits for seconds since 1970 at microsecond precision to
// round reliably.
func parseMicros(r json.RawMessage) (domain.Micros, error) {
	s := string(bytes.TrimSpace(r))
	if s == "" || s == "null" {
		return 0, nil
	}
	neg := false
	body := s
	if body[0] == '-' {
		neg, body = true, body[1:]
	}
	ip, fp, _ := strings.Cut(body, ".")
	exact := ip != "" && len(ip) <= 12 && allDigits(ip) && allDigits(fp) && !strings.ContainsAny(body, "eE")
	if !exact {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1e12 {
			return 0, fmt.Errorf("%q is not a number of seconds", s)
		}
		return domain.Micros(math.Round(f * 1e6)), nil
	}
	sec, _ := strconv.ParseInt(ip, 10, 64)
	var us int64
	for i := range 6 {
		us *= 10
		if i < len(fp) {
			us += int64(fp[i] - '0')
		}
	}
	m := sec*1_000_000 + us
	if len(fp) > 6 && fp[6] >= '5' {
		m++
	}
	if neg {
		m = -m
	}
	return domain.Micros(m), nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
