package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/stale"
)

// fileEntry is a version entry or a tombstone.
type fileEntry struct {
	V       uint64
	Seq     uint64
	TS      []byte // as in the file, parsed when used (parseMicros)
	Session string
	Pruned  bool
	// ends name an edge tombstone whose key does not parse; nil for most
	// entries, which keeps the 200k entries of a large graph small.
	ends *entryEnds
}

// entryEnds are the from, to and rel of a tombstone, each nil if absent.
type entryEnds struct {
	from, to, rel *string
}

func (fe *fileEntry) setEnd(which int, s string, present bool) {
	if fe.ends == nil {
		if !present {
			return
		}
		fe.ends = &entryEnds{}
	}
	var v *string
	if present {
		v = &s
	}
	switch which {
	case 0:
		fe.ends.from = v
	case 1:
		fe.ends.to = v
	default:
		fe.ends.rel = v
	}
}

// keyedEntry is a fileEntry under its key in the file.
type keyedEntry struct {
	key []byte
	e   fileEntry
}

// entries reads _meta.versions or _meta.tombstones, in file order.
func (p *parser) entries(name string) (list[keyedEntry], error) {
	var out list[keyedEntry]
	switch p.peek() {
	case 'n':
		return out, p.lit("null")
	case '{':
	default:
		return out, fmt.Errorf("_meta.%s: want an object", name)
	}
	err := p.object(func(key []byte, esc bool) error {
		if esc {
			key = []byte(unquote(key))
		}
		fe, err := p.entry(name, key)
		out.add(keyedEntry{key, fe})
		return err
	})
	return out, err
}

// entry reads the entry stored under key in _meta.<name>. A null entry is
// one with no fields, as encoding/json reads it.
func (p *parser) entry(name string, key []byte) (fileEntry, error) {
	var fe fileEntry
	switch p.peek() {
	case 'n':
		return fe, p.lit("null")
	case '{':
	default:
		return fe, fmt.Errorf("_meta.%s: %q: want an object", name, key)
	}
	err := p.object(func(k []byte, esc bool) error {
		if esc {
			k = []byte(unquote(k))
		}
		null, err := p.null()
		if err != nil {
			return err
		}
		want, ok, err := p.entryField(&fe, k, null)
		if err == nil && !ok {
			err = fmt.Errorf("_meta.%s: %q: field %s: want %s", name, key, k, want)
		}
		return err
	})
	return fe, err
}

// entryField reads the value of the entry's field k into fe; ok is false
// when it has the wrong type, and want says what it should be. A repeated
// field's last value wins; a null one is absent.
func (p *parser) entryField(fe *fileEntry, k []byte, null bool) (want string, ok bool, err error) {
	ok = true
	switch {
	case bytes.EqualFold(k, []byte("v")):
		want = "a non-negative integer"
		if !null {
			fe.V, ok, err = p.uint()
		}
	case bytes.EqualFold(k, []byte("seq")):
		want = "a non-negative integer"
		if !null {
			fe.Seq, ok, err = p.uint()
		}
	case bytes.EqualFold(k, []byte("ts")):
		fe.TS = nil
		if !null {
			p.peek()
			start := p.i
			err = p.skip()
			fe.TS = p.b[start:p.i]
		}
	case bytes.EqualFold(k, []byte("session")):
		want = "a string or null"
		fe.Session = ""
		if !null {
			fe.Session, ok, err = p.session()
		}
	case bytes.EqualFold(k, []byte("pruned")):
		want = "true or false"
		if !null {
			fe.Pruned, ok, err = p.bool()
		}
	default:
		end := edgeEndField(k)
		if end < 0 {
			if !null {
				err = p.skip()
			}
			break
		}
		want = "a string or null"
		var s string
		if !null {
			s, ok, err = p.str()
		}
		fe.setEnd(end, s, !null)
	}
	return want, ok, err
}

// session reads a session name, interned: a large graph holds few
// sessions in many entries. A value that is not a string is skipped.
func (p *parser) session() (string, bool, error) {
	if p.peek() != '"' {
		return "", false, p.skip()
	}
	s, esc, err := p.strSpan()
	if err != nil {
		return "", true, err
	}
	return p.intern(s, esc), true, nil
}

// edgeEndField returns which end of an edge a tombstone field names (0 from,
// 1 to, 2 rel; see setEnd), or -1 for any other field.
func edgeEndField(k []byte) int {
	for i, name := range [...]string{"from", "to", "rel"} {
		if bytes.EqualFold(k, []byte(name)) {
			return i
		}
	}
	return -1
}

func (p *parser) intern(s []byte, esc bool) string {
	if esc {
		return unquote(s)
	}
	if name, ok := p.sessions[string(s)]; ok {
		return name
	}
	if p.sessions == nil {
		p.sessions = map[string]string{}
	}
	name := string(s)
	p.sessions[name] = name
	return name
}

// wrongType is the error for a known field of the wrong type.
func wrongType(item, field, want string) error {
	return fmt.Errorf("%s: field %s: want %s", item, field, want)
}

// The known fields of a node, in the order their type errors are reported.
var nodeFields = [...]struct{ name, want string }{
	{"id", "a string"}, {"gist", "a string"}, {"notes", "a list of strings"}, {"touches", "a list of strings"},
	{"_created_ts", "a number of seconds"}, {"_last_read_ts", "a number of seconds"}, {"_orphaned_ts", "a number of seconds"},
	{"_archived", "true or false"}, {"_tier_seq", "a non-negative integer"},
}

// node reads the value of the node stored under key.
func (p *parser) node(key string) (domain.Node, error) {
	if err := p.wantNodeObject(key); err != nil {
		return domain.Node{}, err
	}
	var r nodeRead
	if err := p.object(func(k []byte, esc bool) error { return r.field(p, k, esc) }); err != nil {
		return r.n, err
	}
	return r.finish(key)
}

// wantNodeObject checks that the value of the node under key is an object;
// when it is not, it skips the value and says so.
func (p *parser) wantNodeObject(key string) error {
	switch p.peek() {
	case '{':
		return nil
	case 'n':
		if err := p.lit("null"); err != nil {
			return err
		}
	default:
		if err := p.skip(); err != nil {
			return err
		}
	}
	return wrongType(fmt.Sprintf("node %q", key), "(value)", "an object")
}

// nodeRead is a node as the parser meets its fields. A repeated field's
// last value wins; a null one is absent.
type nodeRead struct {
	n                  domain.Node
	id                 string
	bad                [len(nodeFields)]bool // known fields of the wrong type
	archived, orphaned bool
	use                storedUse
}

// field reads the value of the node's field k.
func (r *nodeRead) field(p *parser, k []byte, esc bool) error {
	if esc {
		k = []byte(unquote(k))
	}
	null, err := p.null()
	if err != nil {
		return err
	}
	if handled, err := r.use.field(p, k, null); handled {
		return err
	}
	if string(k) == "_files" {
		return r.files(p, null)
	}
	f := nodeFieldIndex(k)
	if f < 0 {
		return r.extra(p, k, null)
	}
	ok, err := r.known(p, f, null)
	r.bad[f] = !ok
	return err
}

// nodeFieldIndex is the index of k in nodeFields, or -1.
func nodeFieldIndex(k []byte) int {
	for i := range nodeFields {
		if string(k) == nodeFields[i].name {
			return i
		}
	}
	return -1
}

// files reads _files. Not a type error when it is no object of strings:
// the node reads without stamps (docs/design/trust.md#staleness).
func (r *nodeRead) files(p *parser, null bool) error {
	r.n.Files = nil
	if null {
		return nil
	}
	raw, err := p.raw()
	if err != nil {
		return err
	}
	r.n.Files = stale.ParseFileStamps(raw)
	return nil
}

// extra keeps a field kg does not know as it is written.
func (r *nodeRead) extra(p *parser, k []byte, null bool) error {
	v := domain.RawJSON("null")
	if !null {
		var err error
		if v, err = p.raw(); err != nil {
			return err
		}
	}
	if r.n.Extra == nil {
		r.n.Extra = map[string]domain.RawJSON{}
	}
	r.n.Extra[string(k)] = v
	return nil
}

// known reads the known field nodeFields[f]; ok is false when its value
// has the wrong type.
func (r *nodeRead) known(p *parser, f int, null bool) (ok bool, err error) {
	n := &r.n
	ok = true
	switch f {
	case 0:
		r.id = ""
		if !null {
			r.id, ok, err = p.str()
		}
	case 1:
		n.Gist = ""
		if !null {
			n.Gist, ok, err = p.str()
		}
	case 2:
		n.Notes = nil
		if !null {
			n.Notes, ok, err = p.strList()
		}
	case 3:
		n.Touches = nil
		if !null {
			n.Touches, ok, err = p.strList()
		}
	case 4:
		n.Created = 0
		if !null {
			n.Created, ok, err = p.micros()
		}
	case 5:
		n.LastRead = 0
		if !null {
			n.LastRead, ok, err = p.micros()
		}
	case 6:
		n.OrphanedAt, r.orphaned = 0, false
		if !null {
			n.OrphanedAt, ok, err = p.micros()
			r.orphaned = true
		}
	case 7:
		r.archived = false
		if !null {
			r.archived, ok, err = p.bool()
		}
	case 8:
		n.TierSeq = 0
		if !null {
			n.TierSeq, ok, err = p.uint()
		}
	}
	return ok, err
}

// finish names the node (its id field, else its key), reports the first
// field of the wrong type, and sets its tier and use count.
func (r *nodeRead) finish(key string) (domain.Node, error) {
	n := &r.n
	n.ID = key
	if r.id != "" {
		n.ID = r.id
	}
	for f, b := range r.bad {
		if b {
			return *n, wrongType(fmt.Sprintf("node %q", n.ID), nodeFields[f].name, nodeFields[f].want)
		}
	}
	// An orphaned time makes the node orphaned, whatever else it says.
	switch {
	case r.orphaned:
		n.Tier = domain.Orphaned
	case r.archived:
		n.Tier = domain.Archived
	}
	n.Use = r.use.use()
	return *n, nil
}

// storedUse collects a node's _use and _use_day as the parser meets them. A
// value that is not a non-negative integer is no type error: the node reads
// as one without a use count (docs/design/compaction.md#the-use-count).
type storedUse struct {
	count, day     uint64
	countOK, dayOK bool
}

// field reads member k of a node if it is one of the use count's; a
// repeated member's last value wins, and a null one is absent.
func (u *storedUse) field(p *parser, k []byte, null bool) (handled bool, err error) {
	var v *uint64
	var ok *bool
	switch string(k) {
	case "_use":
		v, ok = &u.count, &u.countOK
	case "_use_day":
		v, ok = &u.day, &u.dayOK
	default:
		return false, nil
	}
	*v, *ok = 0, false
	if !null {
		*v, *ok, err = p.uint()
	}
	return true, err
}

func (u storedUse) use() domain.Use { return domain.StoredUse(u.count, u.day, u.countOK && u.dayOK) }

// edge reads the value of the edge stored under key.
func (p *parser) edge(key string) (domain.Edge, error) {
	var e domain.Edge
	item := func() string { return fmt.Sprintf("edge %q", key) }
	switch p.peek() {
	case '{':
	case 'n':
		if err := p.lit("null"); err != nil {
			return e, err
		}
		return e, wrongType(item(), "(value)", "an object")
	default:
		if err := p.skip(); err != nil {
			return e, err
		}
		return e, wrongType(item(), "(value)", "an object")
	}
	badNotes := false
	err := p.object(func(k []byte, esc bool) error {
		if esc {
			k = []byte(unquote(k))
		}
		null, err := p.null()
		if err != nil {
			return err
		}
		var dst *string
		switch string(k) {
		case "from":
			dst = &e.From
		case "to":
			dst = &e.To
		case "rel":
			dst = &e.Rel
		case "notes":
			e.Notes, badNotes = nil, false
			if !null {
				var ok bool
				e.Notes, ok, err = p.strList()
				badNotes = !ok
			}
			return err
		default:
			v := domain.RawJSON("null")
			if !null {
				if v, err = p.raw(); err != nil {
					return err
				}
			}
			if e.Extra == nil {
				e.Extra = map[string]domain.RawJSON{}
			}
			e.Extra[string(k)] = v
			return nil
		}
		// A null or wrong-typed end is left empty: reported below.
		*dst = ""
		if !null {
			*dst, _, err = p.str()
		}
		return err
	})
	if err != nil {
		return e, err
	}
	for _, f := range [][2]string{{"from", e.From}, {"to", e.To}, {"rel", e.Rel}} {
		if f[1] == "" {
			return e, wrongType(item(), f[0], "a non-empty string")
		}
	}
	if badNotes {
		return e, wrongType(item(), "notes", "a list of strings")
	}
	return e, nil
}

// graphFile is what one pass over a graph file collects; finish joins it.
type graphFile struct {
	nodes    list[domain.Node]
	nodeKeys list[[]byte] // map key of each node
	edges    list[domain.Edge]
	edgeKeys list[[]byte]

	schema      uint64
	seq         uint64
	projectPath string
	versions    list[keyedEntry]
	tombs       list[keyedEntry]
	progress    map[string]domain.RawJSON
	meta        map[string]domain.RawJSON
}

// versionsOf counts the version entries read so far whose key starts with
// prefix ("node:" or "edge:"): about the number of nodes or edges a file kg
// wrote holds.
func (f *graphFile) versionsOf(prefix string) int {
	n := 0
	for _, c := range f.versions.chunks {
		for i := range c {
			if bytes.HasPrefix(c[i].key, []byte(prefix)) {
				n++
			}
		}
	}
	return n
}

// key returns a map key as a string and as bytes, unquoted.
func key(k []byte, esc bool) (string, []byte) {
	if esc {
		s := unquote(k)
		return s, []byte(s)
	}
	return string(k), k
}

func (p *parser) top(f *graphFile) error {
	return p.object(func(k []byte, esc bool) error {
		if esc {
			k = []byte(unquote(k))
		}
		switch {
		case bytes.EqualFold(k, []byte("nodes")):
			switch p.peek() {
			case 'n':
				f.nodes, f.nodeKeys = list[domain.Node]{}, list[[]byte]{}
				return p.lit("null")
			case '{':
			default:
				return errors.New("nodes: want an object")
			}
			// _meta comes first in a file kg wrote (its keys are
			// sorted), and holds a version entry per node: room for
			// them all, so the nodes are not copied from chunks.
			f.nodes.reserve(f.versionsOf("node:"))
			f.nodeKeys.reserve(f.versionsOf("node:"))
			return p.object(func(k []byte, esc bool) error {
				ks, kb := key(k, esc)
				n, err := p.node(ks)
				if err == nil {
					if !esc && n.ID == ks {
						kb = k
					}
					f.nodes.add(n)
					f.nodeKeys.add(kb)
				}
				return err
			})
		case bytes.EqualFold(k, []byte("edges")):
			switch p.peek() {
			case 'n':
				f.edges, f.edgeKeys = list[domain.Edge]{}, list[[]byte]{}
				return p.lit("null")
			case '{':
			default:
				return errors.New("edges: want an object")
			}
			f.edges.reserve(f.versionsOf("edge:"))
			f.edgeKeys.reserve(f.versionsOf("edge:"))
			return p.object(func(k []byte, esc bool) error {
				ks, kb := key(k, esc)
				e, err := p.edge(ks)
				if err == nil {
					f.edges.add(e)
					f.edgeKeys.add(kb)
				}
				return err
			})
		case bytes.EqualFold(k, []byte("_meta")):
			return p.meta(f)
		}
		return p.skip()
	})
}

func (p *parser) meta(f *graphFile) error {
	switch p.peek() {
	case 'n':
		// As encoding/json would: the metadata read so far is dropped.
		*f = graphFile{nodes: f.nodes, nodeKeys: f.nodeKeys, edges: f.edges, edgeKeys: f.edgeKeys}
		return p.lit("null")
	case '{':
	default:
		return errors.New("_meta: want an object")
	}
	return p.object(func(k []byte, esc bool) error {
		name, _ := key(k, esc)
		null, err := p.null()
		if err != nil {
			return err
		}
		ok := true
		want := ""
		// A repeated key's last value wins; a null known one is absent.
		switch name {
		case "schema":
			want = "a non-negative integer"
			f.schema = 0
			if !null {
				f.schema, ok, err = p.uint()
			}
		case "seq":
			want = "a non-negative integer"
			f.seq = 0
			if !null {
				f.seq, ok, err = p.uint()
			}
		case "project_path":
			want = "a string"
			f.projectPath = ""
			if !null {
				f.projectPath, ok, err = p.str()
			}
		case "versions":
			f.versions = list[keyedEntry]{}
			if !null {
				f.versions, err = p.entries(name)
			}
		case "tombstones":
			f.tombs = list[keyedEntry]{}
			if !null {
				f.tombs, err = p.entries(name)
			}
		case "progress":
			f.progress = nil
			if null {
				break
			}
			if p.peek() != '{' {
				return errors.New("_meta.progress: want an object")
			}
			f.progress = map[string]domain.RawJSON{}
			err = p.object(func(k []byte, esc bool) error {
				task, _ := key(k, esc)
				v, err := p.raw()
				f.progress[task] = v
				return err
			})
		default:
			v := domain.RawJSON("null")
			if !null {
				v, err = p.raw()
			}
			if f.meta == nil {
				f.meta = map[string]domain.RawJSON{}
			}
			f.meta[name] = v
		}
		if err == nil && !ok {
			err = fmt.Errorf("_meta.%s: want %s", name, want)
		}
		return err
	})
}

// DecodeGraph parses a graph file. It returns an error for a file that does
// not parse or has a known field of the wrong type (naming the item), and
// notes, for the caller to log, about entries it had to drop.
func DecodeGraph(b []byte) (domain.GraphData, []string, error) {
	p := &parser{b: b}
	var f graphFile
	var err error
	switch p.peek() {
	case '{':
		err = p.top(&f)
	case 'n':
		err = p.lit("null") // as encoding/json: an empty graph
	case 0:
		err = errEnd
	default:
		if err = p.skip(); err == nil {
			err = errors.New("the file holds no JSON object")
		}
	}
	// peek gives 0 at the end and for a NUL byte alike: only the end
	// may follow the value.
	if p.peek(); err == nil && p.i < len(p.b) {
		err = p.fail("after top-level value")
	}
	if err != nil {
		return domain.GraphData{}, nil, err
	}
	return f.finish()
}

// byKey orders items by map key in byte order and drops all but the last
// of items stored under one key, as a JSON object keeps the last value of
// a repeated key. It returns nil when the items are already in order (a
// file kg wrote), else the indexes of the kept items in order.
func byKey(keys [][]byte) []int {
	sorted := true
	for i := 1; i < len(keys); i++ {
		if bytes.Compare(keys[i-1], keys[i]) >= 0 {
			sorted = false
			break
		}
	}
	if sorted {
		return nil
	}
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return bytes.Compare(keys[a], keys[b]) })
	out := idx[:0]
	for j, i := range idx {
		if j+1 < len(idx) && bytes.Equal(keys[i], keys[idx[j+1]]) {
			continue
		}
		out = append(out, i)
	}
	return out
}

func reorder[T any](items []T, keys [][]byte) ([]T, [][]byte) {
	idx := byKey(keys)
	if idx == nil {
		return items, keys
	}
	ni, nk := make([]T, len(idx)), make([][]byte, len(idx))
	for j, i := range idx {
		ni[j], nk[j] = items[i], keys[i]
	}
	return ni, nk
}

// finish turns what the parser collected into graph data: items in map-key
// order, version entries applied to them, tombstones keyed. The notes say
// what was dropped.
func (f *graphFile) finish() (domain.GraphData, []string, error) {
	d := domain.GraphData{Schema: int(min(f.schema, math.MaxInt32)), Seq: f.seq, ProjectPath: f.projectPath,
		Progress: f.progress, Meta: f.meta,
		NodeTombstones: map[string]domain.Tombstone{}, EdgeTombstones: map[domain.EdgeKey]domain.Tombstone{}}
	if d.Progress == nil {
		d.Progress = map[string]domain.RawJSON{}
	}
	if d.Meta == nil {
		d.Meta = map[string]domain.RawJSON{}
	}

	// Nodes, in map-key byte order so that Restore resolves two entries
	// claiming one id the same way every time.
	d.Nodes, _ = reorder(f.nodes.slice(), f.nodeKeys.slice())
	var edgeKeys [][]byte
	d.Edges, edgeKeys = reorder(f.edges.slice(), f.edgeKeys.slice())

	if err := f.applyVersions(d.Nodes, d.Edges, edgeKeys); err != nil {
		return domain.GraphData{}, nil, err
	}
	notes, err := f.applyTombstones(&d)
	if err != nil {
		return domain.GraphData{}, nil, err
	}
	return d, notes, nil
}

// applyVersions sets the version of each node and edge from _meta.versions.
// Version entries apply by key; the last of a repeated key wins, so they
// are walked from the end and each key used once.
func (f *graphFile) applyVersions(nodes []domain.Node, edges []domain.Edge, edgeKeys [][]byte) error {
	ni := indexNodeIDs(nodes)
	ei := indexEdgeVersions(edges, edgeKeys)
	for ke := range f.versions.backward() {
		if rest, ok := bytes.CutPrefix(ke.key, []byte("node:")); ok {
			if err := ni.apply(nodes, rest, &ke.e); err != nil {
				return err
			}
		} else if rest, ok := bytes.CutPrefix(ke.key, []byte("edge:")); ok {
			ei.offer(rest, &ke.e)
		}
	}
	return ei.apply(edges)
}

// nodeIDIndex finds the nodes of one id: several entries may claim it.
type nodeIDIndex struct {
	first  map[string]int // node id → its first index
	sameID []int          // next node with the same id, or -1; nil when no id repeats
	done   []bool         // whether the node's version entry was applied
}

func indexNodeIDs(nodes []domain.Node) nodeIDIndex {
	x := nodeIDIndex{first: make(map[string]int, len(nodes)), done: make([]bool, len(nodes))}
	for i := range nodes {
		j, dup := x.first[nodes[i].ID]
		if !dup {
			x.first[nodes[i].ID] = i
			continue
		}
		if x.sameID == nil {
			x.sameID = make([]int, len(nodes))
			for k := range x.sameID {
				x.sameID[k] = -1
			}
		}
		for x.sameID[j] >= 0 {
			j = x.sameID[j]
		}
		x.sameID[j] = i
	}
	return x
}

// apply gives the version entry fe to every node of id, unless a later
// entry already did. id is a []byte, looked up without a copy.
func (x *nodeIDIndex) apply(nodes []domain.Node, id []byte, fe *fileEntry) error {
	i, ok := x.first[string(id)]
	if !ok || x.done[i] {
		return nil
	}
	x.done[i] = true
	v, err := fe.version()
	if err != nil {
		return fmt.Errorf("_meta.versions: node %q: %w", nodes[i].ID, err)
	}
	for ; i >= 0; i = next(x.sameID, i) {
		nodes[i].Version = v
	}
	return nil
}

// edgeVersionIndex finds the version entry of each edge. Edges: map keys
// are ignored, values are the truth; version entries are found under the
// key the edge is written with, else under its key in this file.
type edgeVersionIndex struct {
	edgeIdent  []int // edge index → its identity
	ids        []domain.EdgeKey
	idents     []edgeIdent
	canonOf    map[string]int // key the edge is written with → identity
	fallbackOf map[string]int // key in this file, when another → identity
}

type edgeIdent struct {
	mapKey          []byte     // the first in key order
	canon, fallback *fileEntry // version entries; nil none
}

func indexEdgeVersions(edges []domain.Edge, edgeKeys [][]byte) edgeVersionIndex {
	x := edgeVersionIndex{edgeIdent: make([]int, len(edges)),
		ids: make([]domain.EdgeKey, 0, len(edges)), idents: make([]edgeIdent, 0, len(edges))}
	identOf := make(map[domain.EdgeKey]int, len(edges))
	for i := range edges {
		k := edges[i].Key()
		j, ok := identOf[k]
		if !ok {
			j = len(x.ids)
			identOf[k] = j
			x.ids = append(x.ids, k)
			x.idents = append(x.idents, edgeIdent{mapKey: edgeKeys[i]})
		}
		x.edgeIdent[i] = j
	}
	x.canonOf = make(map[string]int, len(x.ids))
	for _, nm := range edgeNames(len(x.ids), func(i int) domain.EdgeKey { return x.ids[i] }) {
		x.canonOf[nm.key] = nm.i
		if mk := x.idents[nm.i].mapKey; string(mk) != nm.key {
			if x.fallbackOf == nil {
				x.fallbackOf = map[string]int{}
			}
			x.fallbackOf[string(mk)] = nm.i
		}
	}
	return x
}

// offer records fe, found under "edge:"+key, for the edge it names, unless
// a later entry already did.
func (x *edgeVersionIndex) offer(key []byte, fe *fileEntry) {
	if j, ok := x.canonOf[string(key)]; ok && x.idents[j].canon == nil {
		x.idents[j].canon = fe
	}
	if j, ok := x.fallbackOf[string(key)]; ok && x.idents[j].fallback == nil {
		x.idents[j].fallback = fe
	}
}

// apply sets each edge's version from its entry, the canonical one first.
func (x *edgeVersionIndex) apply(edges []domain.Edge) error {
	for i := range edges {
		id := x.idents[x.edgeIdent[i]]
		fe := id.canon
		if fe == nil {
			fe = id.fallback
		}
		if fe == nil {
			continue
		}
		v, err := fe.version()
		if err != nil {
			return fmt.Errorf("_meta.versions: edge %s: %w", edgeKeyString(x.ids[x.edgeIdent[i]]), err)
		}
		edges[i].Version = v
	}
	return nil
}

// applyTombstones keys the last tombstone of each key into d. A tombstone
// of an unknown kind, or of an edge it cannot tell, is dropped with a note.
func (f *graphFile) applyTombstones(d *domain.GraphData) ([]string, error) {
	var notes []string
	tombs := f.tombs.slice()
	last := make(map[string]int, len(tombs))
	for ti := range tombs {
		last[string(tombs[ti].key)] = ti
	}
	for ti := range tombs {
		ke := &tombs[ti]
		key := string(ke.key)
		if last[key] != ti {
			continue
		}
		v, err := ke.e.version()
		if err != nil {
			return nil, fmt.Errorf("_meta.tombstones: %q: %w", key, err)
		}
		t := domain.Tombstone{V: v.V, TS: v.TS, Session: v.Session, Seq: v.Seq, Pruned: ke.e.Pruned}
		switch {
		case strings.HasPrefix(key, "node:"):
			d.NodeTombstones[key[len("node:"):]] = t
		case strings.HasPrefix(key, "edge:"):
			k, ok := ke.e.tombstonedEdge(key[len("edge:"):])
			if !ok {
				notes = append(notes, fmt.Sprintf("tombstone %q: cannot tell the edge; dropped", key))
				continue
			}
			d.EdgeTombstones[k] = t
		default:
			notes = append(notes, fmt.Sprintf("tombstone %q: unknown kind; dropped", key))
		}
	}
	return notes, nil
}

// tombstonedEdge names the edge of a tombstone: by its from, to and rel
// fields when it has all three, else by its key.
func (fe *fileEntry) tombstonedEdge(key string) (domain.EdgeKey, bool) {
	if e := fe.ends; e != nil && e.from != nil && e.to != nil && e.rel != nil {
		return domain.EdgeKey{From: *e.from, To: *e.to, Rel: *e.rel}, true
	}
	return parseEdgeKey(key)
}

func next(sameID []int, i int) int {
	if sameID == nil {
		return -1
	}
	return sameID[i]
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

func (fe *fileEntry) version() (domain.Version, error) {
	ts, err := parseMicros(fe.TS)
	if err != nil {
		return domain.Version{}, fmt.Errorf("ts: %w", err)
	}
	return domain.Version{V: fe.V, TS: ts, Seq: fe.Seq, Session: fe.Session}, nil
}

// compact strips insignificant whitespace from a stored value, so that
// values compare equal whatever indentation the file had; it also copies
// it out of the file's buffer.
func compact(r []byte) domain.RawJSON {
	var b bytes.Buffer
	if err := json.Compact(&b, r); err != nil {
		return domain.RawJSON(slices.Clone(r))
	}
	return domain.RawJSON(b.Bytes())
}

// parseMicros reads a number of seconds and rounds it to the nearest
// microsecond. Plain decimals are read exactly, digit by digit: a float64
// has too few digits for seconds since 1970 at microsecond precision to
// round reliably.
func parseMicros(r []byte) (domain.Micros, error) {
	r = bytes.TrimSpace(r)
	if len(r) == 0 || string(r) == "null" {
		return 0, nil
	}
	neg := false
	body := r
	if body[0] == '-' {
		neg, body = true, body[1:]
	}
	ip, fp, _ := bytes.Cut(body, []byte{'.'})
	exact := len(ip) > 0 && len(ip) <= 12 && allDigits(ip) && allDigits(fp)
	if !exact {
		s := string(r)
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1e12 {
			return 0, fmt.Errorf("%q is not a number of seconds", s)
		}
		return domain.Micros(math.Round(f * 1e6)), nil
	}
	var sec int64
	for _, c := range ip {
		sec = sec*10 + int64(c-'0')
	}
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

func allDigits(s []byte) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func isNull(r json.RawMessage) bool { return len(r) == 0 || string(r) == "null" }
