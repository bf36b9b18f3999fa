package jsonfile

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/kg-memory/kg/domain"
)

// enc writes JSON the way the replaced server's files look: two-space
// indent, ", " never used, ": " after keys, keys sorted, UTF-8 unescaped.
// It is hand-written rather than json.MarshalIndent because keys of nodes
// mix known and unknown fields in one sorted order, and because a 100k-node
// graph is rewritten on every commit.
type enc struct {
	b     []byte
	depth int
}

func (e *enc) nl() {
	e.b = append(e.b, '\n')
	for range e.depth {
		e.b = append(e.b, ' ', ' ')
	}
}

// open starts an object or list.
func (e *enc) open(c byte) {
	e.b = append(e.b, c)
	e.depth++
}

// close ends an object or list that had n members.
func (e *enc) close(c byte, n int) {
	e.depth--
	if n > 0 {
		e.nl()
	}
	e.b = append(e.b, c)
}

// key starts member i of an object.
func (e *enc) key(i int, k string) {
	if i > 0 {
		e.b = append(e.b, ',')
	}
	e.nl()
	e.str(k)
	e.b = append(e.b, ':', ' ')
}

const hexDigits = "0123456789abcdef"

// str writes a JSON string. Only what JSON requires is escaped; invalid
// UTF-8 (which validation keeps out) becomes U+FFFD as encoding/json does.
func (e *enc) str(s string) {
	e.b = append(e.b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			e.b = append(e.b, s[start:i]...)
			switch c {
			case '"', '\\':
				e.b = append(e.b, '\\', c)
			case '\n':
				e.b = append(e.b, '\\', 'n')
			case '\r':
				e.b = append(e.b, '\\', 'r')
			case '\t':
				e.b = append(e.b, '\\', 't')
			default:
				e.b = append(e.b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			e.b = append(e.b, s[start:i]...)
			e.b = append(e.b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	e.b = append(e.b, s[start:]...)
	e.b = append(e.b, '"')
}

func (e *enc) strOrNull(s string) {
	if s == "" {
		e.b = append(e.b, "null"...)
		return
	}
	e.str(s)
}

// micros writes a time as seconds with exactly six decimals.
func (e *enc) micros(m domain.Micros) {
	u := uint64(m)
	if m < 0 {
		e.b = append(e.b, '-')
		u = uint64(-m)
	}
	e.b = strconv.AppendUint(e.b, u/1_000_000, 10)
	frac := u % 1_000_000
	e.b = append(e.b, '.')
	for d := uint64(100_000); d > 0; d /= 10 {
		e.b = append(e.b, byte('0'+frac/d%10))
	}
}

func (e *enc) strings(list []string) {
	e.open('[')
	for i, s := range list {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.nl()
		e.str(s)
	}
	e.close(']', len(list))
}

// raw writes a stored JSON value re-indented to the current depth. A value
// that is not valid JSON (which decoding never produces) is written as
// null rather than corrupting the file.
func (e *enc) raw(r domain.RawJSON) {
	var buf bytes.Buffer
	prefix := make([]byte, 0, 2*e.depth)
	for range e.depth {
		prefix = append(prefix, ' ', ' ')
	}
	if err := json.Indent(&buf, r, string(prefix), "  "); err != nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, buf.Bytes()...)
}

// field is one member of an object whose known and unknown members are
// written together in key order.
type field struct {
	key  string
	kind fieldKind
	s    string
	n    uint64
	t    domain.Micros
	list []string
	raw  domain.RawJSON
}

type fieldKind uint8

const (
	fString fieldKind = iota
	fTrue
	fUint
	fMicros
	fStrings
	fRaw
)

func (e *enc) fields(fs []field) {
	slices.SortFunc(fs, func(a, b field) int { return cmpStr(a.key, b.key) })
	e.open('{')
	for i, f := range fs {
		e.key(i, f.key)
		switch f.kind {
		case fString:
			e.str(f.s)
		case fTrue:
			e.b = append(e.b, "true"...)
		case fUint:
			e.b = strconv.AppendUint(e.b, f.n, 10)
		case fMicros:
			e.micros(f.t)
		case fStrings:
			e.strings(f.list)
		case fRaw:
			e.raw(f.raw)
		}
	}
	e.close('}', len(fs))
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// appendExtra adds the unknown fields, skipping any that a known field
// already writes (a stored file cannot produce that, a caller could).
func appendExtra(fs []field, extra map[string]domain.RawJSON) []field {
	for k, v := range extra {
		dup := false
		for _, f := range fs {
			if f.key == k {
				dup = true
				break
			}
		}
		if !dup {
			fs = append(fs, field{key: k, kind: fRaw, raw: v})
		}
	}
	return fs
}

// edgeKeyString renders an edge's map key before collision suffixes.
func edgeKeyString(k domain.EdgeKey) string { return k.From + "->" + k.To + ":" + k.Rel }

// keyedEdge pairs an edge identity with the map key it is written under.
type keyedEdge struct {
	key string
	k   domain.EdgeKey
}

// edgeKeys gives each identity its map key: "<from>-><to>:<rel>", with
// "#2", "#3"… added in (from, to, rel) byte order when several share that
// string. The result is sorted by map key.
func edgeKeys(ks []domain.EdgeKey) []keyedEdge {
	out := make([]keyedEdge, len(ks))
	for i, k := range ks {
		out[i] = keyedEdge{edgeKeyString(k), k}
	}
	slices.SortFunc(out, func(a, b keyedEdge) int {
		if c := cmpStr(a.key, b.key); c != 0 {
			return c
		}
		if c := cmpStr(a.k.From, b.k.From); c != 0 {
			return c
		}
		if c := cmpStr(a.k.To, b.k.To); c != 0 {
			return c
		}
		return cmpStr(a.k.Rel, b.k.Rel)
	})
	for i := 1; i < len(out); {
		j := i
		for j < len(out) && edgeKeyString(out[j].k) == edgeKeyString(out[i-1].k) {
			out[j].key = edgeKeyString(out[j].k) + "#" + strconv.Itoa(j-i+2)
			j++
		}
		i = j + 1
	}
	// "a#2" can sort after "a-b": restore key order.
	slices.SortFunc(out, func(a, b keyedEdge) int { return cmpStr(a.key, b.key) })
	return out
}

// encodeGraph renders d in the graph file format (storage.md), schema 2.
func encodeGraph(d domain.GraphData) []byte {
	e := &enc{b: make([]byte, 0, 256*(len(d.Nodes)+len(d.Edges))+1024)}
	e.open('{')

	// _meta
	e.key(0, "_meta")
	meta := make([]field, 0, 6+len(d.Meta))
	meta = append(meta,
		field{key: "schema", kind: fUint, n: domain.SchemaVersion},
		field{key: "seq", kind: fUint, n: d.Seq},
	)
	if d.ProjectPath != "" {
		meta = append(meta, field{key: "project_path", kind: fString, s: d.ProjectPath})
	}
	// progress, versions and tombstones are written by hand below, in
	// their sorted places; placeholders keep the order.
	meta = append(meta, field{key: "progress"}, field{key: "tombstones"}, field{key: "versions"})
	meta = appendExtra(meta, d.Meta)
	slices.SortFunc(meta, func(a, b field) int { return cmpStr(a.key, b.key) })

	edgeIDs := make([]domain.EdgeKey, len(d.Edges))
	byKey := make(map[domain.EdgeKey]*domain.Edge, len(d.Edges))
	for i := range d.Edges {
		edgeIDs[i] = d.Edges[i].Key()
		byKey[edgeIDs[i]] = &d.Edges[i]
	}
	edges := edgeKeys(edgeIDs)

	e.open('{')
	for i, f := range meta {
		e.key(i, f.key)
		switch f.key {
		case "progress":
			keys := slices.Sorted(mapKeys(d.Progress))
			e.open('{')
			for j, k := range keys {
				e.key(j, k)
				e.raw(d.Progress[k])
			}
			e.close('}', len(keys))
		case "tombstones":
			e.tombstones(d)
		case "versions":
			e.versions(d.Nodes, edges, byKey)
		default:
			switch f.kind {
			case fUint:
				e.b = strconv.AppendUint(e.b, f.n, 10)
			case fString:
				e.str(f.s)
			default:
				e.raw(f.raw)
			}
		}
	}
	e.close('}', len(meta))

	// edges
	e.key(1, "edges")
	e.open('{')
	fs := make([]field, 0, 8)
	for i, ke := range edges {
		ed := byKey[ke.k]
		e.key(i, ke.key)
		fs = append(fs[:0],
			field{key: "from", kind: fString, s: ed.From},
			field{key: "to", kind: fString, s: ed.To},
			field{key: "rel", kind: fString, s: ed.Rel},
		)
		if ed.Notes != nil {
			fs = append(fs, field{key: "notes", kind: fStrings, list: ed.Notes})
		}
		fs = appendExtra(fs, ed.Extra)
		e.fields(fs)
	}
	e.close('}', len(edges))

	// nodes
	e.key(2, "nodes")
	nodes := make([]*domain.Node, len(d.Nodes))
	for i := range d.Nodes {
		nodes[i] = &d.Nodes[i]
	}
	slices.SortFunc(nodes, func(a, b *domain.Node) int { return cmpStr(a.ID, b.ID) })
	e.open('{')
	for i, n := range nodes {
		e.key(i, n.ID)
		fs = append(fs[:0],
			field{key: "id", kind: fString, s: n.ID},
			field{key: "gist", kind: fString, s: n.Gist},
		)
		if n.Notes != nil {
			fs = append(fs, field{key: "notes", kind: fStrings, list: n.Notes})
		}
		if n.Touches != nil {
			fs = append(fs, field{key: "touches", kind: fStrings, list: n.Touches})
		}
		if n.Created != 0 {
			fs = append(fs, field{key: "_created_ts", kind: fMicros, t: n.Created})
		}
		if n.LastRead != 0 {
			fs = append(fs, field{key: "_last_read_ts", kind: fMicros, t: n.LastRead})
		}
		// The replaced server reads _archived on orphaned nodes too.
		if n.Tier != domain.Active {
			fs = append(fs, field{key: "_archived", kind: fTrue})
		}
		if n.Tier == domain.Orphaned {
			fs = append(fs, field{key: "_orphaned_ts", kind: fMicros, t: n.OrphanedAt})
		}
		if n.TierSeq != 0 {
			fs = append(fs, field{key: "_tier_seq", kind: fUint, n: n.TierSeq})
		}
		fs = appendExtra(fs, n.Extra)
		e.fields(fs)
	}
	e.close('}', len(nodes))

	e.close('}', 3)
	e.b = append(e.b, '\n')
	return e.b
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// entry writes a version entry or tombstone. from, to and rel are written
// only for an edge tombstone whose key does not parse back to its identity
// (ends containing "->"), since a tombstone has no edge value to read
// them from.
func (e *enc) entry(v, seq uint64, ts domain.Micros, session string, pruned bool, ek *domain.EdgeKey) {
	n := 4
	e.open('{')
	i := 0
	if ek != nil {
		e.key(i, "from")
		e.str(ek.From)
		i++
	}
	if pruned {
		e.key(i, "pruned")
		e.b = append(e.b, "true"...)
		i++
	}
	if ek != nil {
		e.key(i, "rel")
		e.str(ek.Rel)
		i++
	}
	e.key(i, "seq")
	e.b = strconv.AppendUint(e.b, seq, 10)
	e.key(i+1, "session")
	e.strOrNull(session)
	if ek != nil {
		e.key(i+2, "to")
		e.str(ek.To)
		n++
	}
	e.key(i+2, "ts")
	e.micros(ts)
	e.key(i+3, "v")
	e.b = strconv.AppendUint(e.b, v, 10)
	e.close('}', n+i)
}

func (e *enc) versions(nodes []domain.Node, edges []keyedEdge, byKey map[domain.EdgeKey]*domain.Edge) {
	// "edge:" sorts before "node:": edges first, each group in key order.
	ids := make([]int, len(nodes))
	for i := range ids {
		ids[i] = i
	}
	slices.SortFunc(ids, func(a, b int) int { return cmpStr(nodes[a].ID, nodes[b].ID) })
	e.open('{')
	i := 0
	for _, ke := range edges {
		v := byKey[ke.k].Version
		e.key(i, "edge:"+ke.key)
		e.entry(v.V, v.Seq, v.TS, v.Session, false, nil)
		i++
	}
	for _, j := range ids {
		v := nodes[j].Version
		e.key(i, "node:"+nodes[j].ID)
		e.entry(v.V, v.Seq, v.TS, v.Session, false, nil)
		i++
	}
	e.close('}', i)
}

func (e *enc) tombstones(d domain.GraphData) {
	ks := slices.Collect(mapKeys(d.EdgeTombstones))
	edges := edgeKeys(ks)
	ids := slices.Sorted(mapKeys(d.NodeTombstones))
	e.open('{')
	i := 0
	for _, ke := range edges {
		t := d.EdgeTombstones[ke.k]
		var ek *domain.EdgeKey
		if p, ok := parseEdgeKey(ke.key); !ok || p != ke.k {
			ek = &ke.k
		}
		e.key(i, "edge:"+ke.key)
		e.entry(t.V, t.Seq, t.TS, t.Session, t.Pruned, ek)
		i++
	}
	for _, id := range ids {
		t := d.NodeTombstones[id]
		e.key(i, "node:"+id)
		e.entry(t.V, t.Seq, t.TS, t.Session, t.Pruned, nil)
		i++
	}
	e.close('}', i)
}
