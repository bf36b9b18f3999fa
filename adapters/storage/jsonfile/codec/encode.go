package codec

import (
	"bytes"
	"encoding/json"
	"io"
	"iter"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kg-memory/kg/domain"
)

// enc writes JSON the way the replaced server's files look: two-space
// indent, ", " never used, ": " after keys, keys sorted, UTF-8 unescaped.
// It is hand-written rather than json.MarshalIndent because keys of nodes
// mix known and unknown fields in one sorted order, and because a 100k-node
// graph is rewritten on every commit: it streams the file in one pass
// straight from the graph, without building it in memory.
type enc struct {
	b     []byte
	depth int
	// w, when set, receives b in chunks of about flushAt bytes (see flush),
	// so that writing a graph needs a small buffer, not a copy of the file.
	w   io.Writer
	err error // the first error of w; later output is dropped
	// flat writes compact JSON on one line, as journal records are.
	flat bool
}

// flushAt is the size of the chunks handed to enc.w: large enough that the
// write calls cost nothing next to the encoding.
const flushAt = 64 << 10

// flush hands what has been written to w once there is a chunk of it, or
// all of it when final. Without w it does nothing.
func (e *enc) flush(final bool) {
	if e.w == nil || (!final && len(e.b) < flushAt) {
		return
	}
	if e.err == nil && len(e.b) > 0 {
		_, e.err = e.w.Write(e.b)
	}
	e.b = e.b[:0]
}

// indent is a newline and the spaces of the deepest usual indentation:
// nl copies a prefix of it rather than appending two spaces at a time.
const indent = "\n                                "

func (e *enc) nl() {
	if e.flat {
		return
	}
	if n := 1 + 2*e.depth; n <= len(indent) {
		e.b = append(e.b, indent[:n]...)
		return
	}
	e.b = append(e.b, indent...)
	for range e.depth - len(indent)/2 {
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
	e.keyPrefixed(i, "", k)
}

// keyPrefixed starts member i of an object whose key is prefix+k; prefix
// needs no escaping ("node:", "edge:"). It saves building the key string.
func (e *enc) keyPrefixed(i int, prefix, k string) {
	if i > 0 {
		e.b = append(e.b, ',')
	}
	e.nl()
	e.b = append(e.b, '"')
	e.b = append(e.b, prefix...)
	e.strBody(k)
	if e.flat {
		e.b = append(e.b, '"', ':')
		return
	}
	e.b = append(e.b, '"', ':', ' ')
}

const hexDigits = "0123456789abcdef"

// str writes a JSON string.
func (e *enc) str(s string) {
	e.b = append(e.b, '"')
	e.strBody(s)
	e.b = append(e.b, '"')
}

// strBody writes the inside of a JSON string. Only what JSON requires is
// escaped: not <, >, & nor U+2028/U+2029 (which encoding/json escapes by
// default), and control characters other than \n, \r, \t as \u00XX. This
// is the format the golden files fix; changing it would rewrite every
// stored string that holds one. Invalid UTF-8 (which validation keeps out)
// becomes U+FFFD as encoding/json does.
func (e *enc) strBody(s string) {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if plain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
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

// files writes a node's file stamps as an object of path to hash, in path
// order (docs/design/trust.md#staleness).
func (e *enc) files(stamps []domain.FileStamp) {
	e.open('{')
	for i, s := range stamps {
		e.key(i, s.Path)
		e.str(s.Hash)
	}
	e.close('}', len(stamps))
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
	if e.flat {
		e.compact(r)
		return
	}
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

// compact writes a stored JSON value on one line, whatever the depth. A
// value that is not valid JSON is written as null, as raw does.
func (e *enc) compact(r domain.RawJSON) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, r); err != nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, buf.Bytes()...)
}

// field is one member of an object whose known and unknown members are
// written together in key order (sessions, _meta).
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
	slices.SortFunc(fs, func(a, b field) int { return strings.Compare(a.key, b.key) })
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

// extras walks the unknown fields of an item in key order, to be merged
// with its known fields, which are written in their (fixed) key order.
type extras struct {
	m    map[string]domain.RawJSON
	keys []string
	next int
}

func (x *extras) reset(m map[string]domain.RawJSON) {
	x.m, x.keys, x.next = m, x.keys[:0], 0
	if len(m) == 0 {
		return
	}
	for k := range m {
		x.keys = append(x.keys, k)
	}
	slices.Sort(x.keys)
}

// known starts member *i, the known field k, after writing the unknown
// fields that sort before it. An unknown field of the same name is
// dropped: the known one is the truth.
func (e *enc) known(i *int, x *extras, k string) {
	for x.next < len(x.keys) && x.keys[x.next] < k {
		e.key(*i, x.keys[x.next])
		e.raw(x.m[x.keys[x.next]])
		*i++
		x.next++
	}
	if x.next < len(x.keys) && x.keys[x.next] == k {
		x.next++
	}
	e.key(*i, k)
	*i++
}

// restExtras writes the unknown fields that sort after every known one.
func (e *enc) restExtras(i *int, x *extras) {
	for ; x.next < len(x.keys); x.next++ {
		e.key(*i, x.keys[x.next])
		e.raw(x.m[x.keys[x.next]])
		*i++
	}
}

// node writes a node's value: the known fields in key order ("_archived",
// "_created_ts", "_files", "_last_read_ts", "_orphaned_ts", "_tier_seq", "_use",
// "_use_day", "gist", "id", "notes", "touches") merged with its unknown
// ones.
func (e *enc) node(n *domain.Node, x *extras) {
	x.reset(n.Extra)
	e.open('{')
	i := 0
	// The replaced server reads _archived on orphaned nodes too.
	if n.Tier != domain.Active {
		e.known(&i, x, "_archived")
		e.b = append(e.b, "true"...)
	}
	if n.Created != 0 {
		e.known(&i, x, "_created_ts")
		e.micros(n.Created)
	}
	if len(n.Files) > 0 {
		e.known(&i, x, "_files")
		e.files(n.Files)
	}
	if n.LastRead != 0 {
		e.known(&i, x, "_last_read_ts")
		e.micros(n.LastRead)
	}
	if n.Tier == domain.Orphaned {
		e.known(&i, x, "_orphaned_ts")
		e.micros(n.OrphanedAt)
	}
	if n.TierSeq != 0 {
		e.known(&i, x, "_tier_seq")
		e.b = strconv.AppendUint(e.b, n.TierSeq, 10)
	}
	if n.Use.Known {
		e.known(&i, x, "_use")
		e.b = strconv.AppendUint(e.b, n.Use.Count, 10)
		e.known(&i, x, "_use_day")
		e.b = strconv.AppendInt(e.b, int64(n.Use.Day), 10)
	}
	e.known(&i, x, "gist")
	e.str(n.Gist)
	e.known(&i, x, "id")
	e.str(n.ID)
	if n.Notes != nil {
		e.known(&i, x, "notes")
		e.strings(n.Notes)
	}
	if n.Touches != nil {
		e.known(&i, x, "touches")
		e.strings(n.Touches)
	}
	e.restExtras(&i, x)
	e.close('}', i)
}

// edge writes an edge's value: "from", "notes", "rel", "to" merged with
// its unknown fields.
func (e *enc) edge(ed *domain.Edge, x *extras) {
	x.reset(ed.Extra)
	e.open('{')
	i := 0
	e.known(&i, x, "from")
	e.str(ed.From)
	if ed.Notes != nil {
		e.known(&i, x, "notes")
		e.strings(ed.Notes)
	}
	e.known(&i, x, "rel")
	e.str(ed.Rel)
	e.known(&i, x, "to")
	e.str(ed.To)
	e.restExtras(&i, x)
	e.close('}', i)
}

// edgeKeyString renders an edge's map key before collision suffixes.
func edgeKeyString(k domain.EdgeKey) string { return k.From + "->" + k.To + ":" + k.Rel }

// keyedEdge pairs an edge identity with the map key it is written under.
type keyedEdge struct {
	key string
	k   domain.EdgeKey
}

// edgeKeys gives each identity its map key (see edgeNames), sorted by map
// key.
func edgeKeys(ks []domain.EdgeKey) []keyedEdge {
	names := edgeNames(len(ks), func(i int) domain.EdgeKey { return ks[i] })
	out := make([]keyedEdge, len(names))
	for j, nm := range names {
		out[j] = keyedEdge{nm.key, ks[nm.i]}
	}
	return out
}

// edgeName is the map key of the identity at index i of some list.
type edgeName struct {
	key string
	i   int
}

// edgeNames gives each of n identities, read with at, its map key:
// "<from>-><to>:<rel>", with "#2", "#3"… added in (from, to, rel) byte
// order when several share that string. The result is sorted by map key.
// The keys share one allocation: a graph has as many as it has edges.
func edgeNames(n int, at func(int) domain.EdgeKey) []edgeName {
	size := 0
	for i := range n {
		k := at(i)
		size += len(k.From) + len(k.To) + len(k.Rel) + 3
	}
	var sb strings.Builder
	sb.Grow(size)
	ends := make([]int, n)
	for i := range n {
		k := at(i)
		sb.WriteString(k.From)
		sb.WriteString("->")
		sb.WriteString(k.To)
		sb.WriteString(":")
		sb.WriteString(k.Rel)
		ends[i] = sb.Len()
	}
	all := sb.String()
	out := make([]edgeName, n)
	start := 0
	for i, end := range ends {
		out[i] = edgeName{all[start:end], i}
		start = end
	}
	slices.SortFunc(out, func(a, b edgeName) int {
		if c := strings.Compare(a.key, b.key); c != 0 {
			return c
		}
		ka, kb := at(a.i), at(b.i)
		if c := strings.Compare(ka.From, kb.From); c != 0 {
			return c
		}
		if c := strings.Compare(ka.To, kb.To); c != 0 {
			return c
		}
		return strings.Compare(ka.Rel, kb.Rel)
	})
	renamed := false
	var taken map[string]bool // every key given, once one needs a suffix
	for i := 0; i < len(out); {
		j := i + 1
		for j < len(out) && out[j].key == out[i].key {
			j++
		}
		if j > i+1 && taken == nil {
			taken = make(map[string]bool, len(out))
			for _, nm := range out {
				taken[nm.key] = true
			}
		}
		n := 2
		for m := i + 1; m < j; m++ {
			// A legacy rel may itself end in "#2" (a rel written by kg
			// cannot): a suffix that names another edge is skipped.
			for taken[out[i].key+"#"+strconv.Itoa(n)] {
				n++
			}
			out[m].key = out[i].key + "#" + strconv.Itoa(n)
			taken[out[m].key] = true
			n++
			renamed = true
		}
		i = j
	}
	if renamed {
		// "a#2" can sort after "a-b": restore key order.
		slices.SortFunc(out, func(a, b edgeName) int { return strings.Compare(a.key, b.key) })
	}
	return out
}

// GraphSource is what a graph file is written from: a graph (Commit) or
// its data (tests, folder moves). Nodes are sorted by id; the rest is in
// any order.
type GraphSource struct {
	seq         uint64
	ProjectPath string
	nodes       []*domain.Node
	edges       []*domain.Edge
	nodeTombs   []nodeTomb
	edgeTombs   []edgeTomb
	progress    map[string]domain.RawJSON
	meta        map[string]domain.RawJSON
	// Cache, when set, keeps the encoded nodes from one write of the
	// graph to the next.
	Cache *NodeCache
}

// NodeCache keeps the encoded value and version entry of each node as the
// last write of its graph file wrote them, so that the next write copies
// the bytes of every node that did not change instead of encoding it again
// (docs/decisions/0011-json-journal.md gives the gain and the memory it
// costs). The graph never changes a node in place (a change puts a new
// *Node), so an unchanged pointer means unchanged bytes. Nodes are kept
// sorted by id, as the file lists them, so that a write finds them by
// merging two sorted lists rather than by a lookup each.
type NodeCache struct {
	nodes   []cachedNode
	scratch enc
}

// cachedNode is the encoded value and version entry of one node.
type cachedNode struct {
	n              *domain.Node
	value, version []byte
}

// Values yields the id and encoded value of each node c holds, in id
// order: the bytes the next write copies for an unchanged node.
func (c *NodeCache) Values() iter.Seq2[string, []byte] {
	return func(yield func(string, []byte) bool) {
		for _, n := range c.nodes {
			if !yield(n.n.ID, n.value) {
				return
			}
		}
	}
}

// Size returns how many bytes of encoded values and version entries c
// holds.
func (c *NodeCache) Size() int {
	size := 0
	for _, n := range c.nodes {
		size += len(n.value) + len(n.version)
	}
	return size
}

// Depths of the values the cache holds in a graph file: a node is a
// member of a top-level member, a version entry one level deeper.
const (
	nodeDepth    = 2
	versionDepth = 3
)

// update brings the cache to nodes (sorted by id): the bytes of a node
// that did not change since the last write are kept, the others encoded.
func (c *NodeCache) update(nodes []*domain.Node, x *extras) {
	last := c.nodes
	c.nodes = make([]cachedNode, len(nodes))
	j := 0
	for i, n := range nodes {
		for j < len(last) && last[j].n.ID < n.ID {
			j++
		}
		if j < len(last) && last[j].n == n {
			c.nodes[i] = last[j]
			continue
		}
		c.nodes[i] = cachedNode{n: n,
			value:   c.encode(nodeDepth, func(e *enc) { e.node(n, x) }),
			version: c.encode(versionDepth, func(e *enc) { e.version(n.Version) })}
	}
}

// encode returns the bytes write makes at depth, from the scratch encoder.
func (c *NodeCache) encode(depth int, write func(e *enc)) []byte {
	c.scratch.b, c.scratch.depth = c.scratch.b[:0], depth
	write(&c.scratch)
	return slices.Clone(c.scratch.b)
}

type nodeTomb struct {
	id string
	t  domain.Tombstone
}

type edgeTomb struct {
	k domain.EdgeKey
	t domain.Tombstone
}

func SourceOfData(d domain.GraphData) GraphSource {
	src := GraphSource{seq: d.Seq, ProjectPath: d.ProjectPath, progress: d.Progress, meta: d.Meta,
		nodes: make([]*domain.Node, len(d.Nodes)), edges: make([]*domain.Edge, len(d.Edges))}
	for i := range d.Nodes {
		src.nodes[i] = &d.Nodes[i]
	}
	slices.SortFunc(src.nodes, func(a, b *domain.Node) int { return strings.Compare(a.ID, b.ID) })
	for i := range d.Edges {
		src.edges[i] = &d.Edges[i]
	}
	for id, t := range d.NodeTombstones {
		src.nodeTombs = append(src.nodeTombs, nodeTomb{id, t})
	}
	for k, t := range d.EdgeTombstones {
		src.edgeTombs = append(src.edgeTombs, edgeTomb{k, t})
	}
	return src
}

// SourceOfGraph reads g in place: nothing of it is copied but pointers.
func SourceOfGraph(g *domain.Graph) GraphSource {
	src := GraphSource{seq: g.Seq(), ProjectPath: g.ProjectPath(), nodes: g.Nodes(),
		edges: make([]*domain.Edge, 0, g.EdgeCount()), progress: map[string]domain.RawJSON{}, meta: map[string]domain.RawJSON{}}
	for e := range g.AllEdges() {
		src.edges = append(src.edges, e)
	}
	for id, t := range g.AllNodeTombstones() {
		src.nodeTombs = append(src.nodeTombs, nodeTomb{id, t})
	}
	for k, t := range g.AllEdgeTombstones() {
		src.edgeTombs = append(src.edgeTombs, edgeTomb{k, t})
	}
	for task, p := range g.AllProgress() {
		src.progress[task] = p
	}
	for _, name := range g.MetaNames() {
		src.meta[name], _ = g.Meta(name)
	}
	return src
}

// EncodeGraph renders d in the graph file format
// (docs/design/storage.md#graph-file-format), schema 2.
func EncodeGraph(d domain.GraphData) []byte {
	e := &enc{}
	e.graph(SourceOfData(d))
	return e.b
}

// WriteGraph streams src to w in the graph file format, schema 2.
func WriteGraph(w io.Writer, src GraphSource) error {
	e := &enc{b: make([]byte, 0, flushAt+flushAt/4), w: w}
	e.graph(src)
	e.flush(true)
	return e.err
}

func (e *enc) graph(src GraphSource) {
	edges := edgeNames(len(src.edges), func(i int) domain.EdgeKey { return src.edges[i].Key() })
	var x extras
	if c := src.Cache; c != nil {
		c.update(src.nodes, &x)
	}
	e.open('{')
	e.key(0, "_meta")
	e.graphMeta(src, edges)
	e.key(1, "edges")
	e.graphEdges(src, edges, &x)
	e.key(2, "nodes")
	e.graphNodes(src, &x)
	e.close('}', 3)
	e.b = append(e.b, '\n')
}

// graphMeta writes the graph file's _meta object, its members in key
// order.
func (e *enc) graphMeta(src GraphSource, edges []edgeName) {
	meta := metaFields(src)
	e.open('{')
	for i, f := range meta {
		e.key(i, f.key)
		switch f.key {
		case "progress":
			e.progressStates(src.progress)
		case "tombstones":
			e.tombstones(src)
		case "versions":
			e.versions(src, edges)
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
}

// metaFields lists the members of _meta sorted by key.
func metaFields(src GraphSource) []field {
	meta := make([]field, 0, 6+len(src.meta))
	meta = append(meta,
		field{key: "schema", kind: fUint, n: domain.SchemaVersion},
		field{key: "seq", kind: fUint, n: src.seq},
	)
	if src.ProjectPath != "" {
		meta = append(meta, field{key: "project_path", kind: fString, s: src.ProjectPath})
	}
	// progress, versions and tombstones are written by hand (graphMeta),
	// in their sorted places; placeholders keep the order.
	meta = append(meta, field{key: "progress"}, field{key: "tombstones"}, field{key: "versions"})
	meta = appendExtra(meta, src.meta)
	slices.SortFunc(meta, func(a, b field) int { return strings.Compare(a.key, b.key) })
	return meta
}

// progressStates writes _meta.progress, tasks in key order.
func (e *enc) progressStates(progress map[string]domain.RawJSON) {
	keys := slices.Sorted(mapKeys(progress))
	e.open('{')
	for j, k := range keys {
		// A state is a client's, up to 64 KiB, nested as deep as it
		// likes: indented, each level would add two spaces to every
		// line inside it, and a state 6,000 arrays deep took 69 MiB
		// rewritten at every checkpoint. One line keeps it its own
		// size (docs/design/storage.md#graph-file-format).
		e.key(j, k)
		e.compact(progress[k])
	}
	e.close('}', len(keys))
}

// graphEdges writes the edges object, under the names edges gives them.
func (e *enc) graphEdges(src GraphSource, edges []edgeName, x *extras) {
	e.open('{')
	for i, nm := range edges {
		e.key(i, nm.key)
		e.edge(src.edges[nm.i], x)
		e.flush(false)
	}
	e.close('}', len(edges))
}

// graphNodes writes the nodes object, from the cache of encoded nodes when
// src has one.
func (e *enc) graphNodes(src GraphSource, x *extras) {
	e.open('{')
	for i, n := range src.nodes {
		e.key(i, n.ID)
		if c := src.Cache; c != nil {
			e.b = append(e.b, c.nodes[i].value...)
		} else {
			e.node(n, x)
		}
		e.flush(false)
	}
	e.close('}', len(src.nodes))
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

func (e *enc) versions(src GraphSource, edges []edgeName) {
	// "edge:" sorts before "node:": edges first, each group in key order.
	e.open('{')
	i := 0
	for _, nm := range edges {
		e.keyPrefixed(i, "edge:", nm.key)
		e.version(src.edges[nm.i].Version)
		i++
		e.flush(false)
	}
	for j, n := range src.nodes {
		e.keyPrefixed(i, "node:", n.ID)
		if c := src.Cache; c != nil {
			e.b = append(e.b, c.nodes[j].version...)
		} else {
			e.version(n.Version)
		}
		i++
		e.flush(false)
	}
	e.close('}', i)
}

func (e *enc) tombstones(src GraphSource) {
	edges := edgeNames(len(src.edgeTombs), func(i int) domain.EdgeKey { return src.edgeTombs[i].k })
	nodes := slices.SortedFunc(slices.Values(src.nodeTombs), func(a, b nodeTomb) int { return strings.Compare(a.id, b.id) })
	e.open('{')
	i := 0
	for _, nm := range edges {
		et := &src.edgeTombs[nm.i]
		t := et.t
		var ek *domain.EdgeKey
		if p, ok := parseEdgeKey(nm.key); !ok || p != et.k {
			ek = &et.k
		}
		e.keyPrefixed(i, "edge:", nm.key)
		e.entry(t.V, t.Seq, t.TS, t.Session, t.Pruned, ek)
		i++
		e.flush(false)
	}
	for _, nt := range nodes {
		t := nt.t
		e.keyPrefixed(i, "node:", nt.id)
		e.entry(t.V, t.Seq, t.TS, t.Session, t.Pruned, nil)
		i++
		e.flush(false)
	}
	e.close('}', i)
}
