package codec

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kg-memory/kg/domain"
)

// A graph's journal record holds one saved batch: the seqs it took and the
// whole current content of every item the batch changed, or its removal
// (docs/decisions/0011-json-journal.md). Nodes and edges are written as in
// the graph file, so one decoder reads both.
//
//	{"seq":[<seq before>,<seq after>],
//	 "project_path":"<the project>",
//	 "nodes":{"<id>":{"node":{…},"version":{…}}, "<removed id>":null},
//	 "edges":[{"from":…,"to":…,"rel":…,"edge":{…},"version":{…}}, {"from":…,"to":…,"rel":…}],
//	 "node_tombstones":{"<id>":{…}, "<id>":null},
//	 "edge_tombstones":[{"from":…,"to":…,"rel":…,"tombstone":{…}}, {"from":…,"to":…,"rel":…}],
//	 "progress":{"<task>":{"state":…}, "<task>":null},
//	 "meta":{"seq":…,"project_path":…,"unknown":{…}}}
//
// An edge or edge tombstone without its value is a removal; "meta" is
// present when the batch changed the seq, the project path or unknown
// metadata, and then holds all of them. "project_path", in every record of
// a project graph, names the project the journal belongs to (kg before it
// wrote it only in "meta").

// GraphRecord encodes the batch cs of g, whose seqs lie above before, as a
// record payload. projectPath is the path the file records.
func GraphRecord(g *domain.Graph, cs domain.ChangeSet, before uint64, projectPath string) []byte {
	w := &recordWriter{enc: &enc{flat: true, b: make([]byte, 0, 256*(1+cs.Size()))}, g: g}
	w.open('{')
	w.member("seq")
	w.b = append(w.b, '[')
	w.b = strconv.AppendUint(w.b, before, 10)
	w.b = append(w.b, ',')
	w.b = strconv.AppendUint(w.b, g.Seq(), 10)
	w.b = append(w.b, ']')
	if projectPath != "" {
		// Every record names its project, so that a folder whose graph
		// file and .prev are gone still has an owner (folder lookup).
		w.member("project_path")
		w.str(projectPath)
	}
	if len(cs.Nodes) > 0 {
		w.member("nodes")
		w.nodes(cs.Nodes)
	}
	if len(cs.Edges) > 0 {
		w.member("edges")
		w.edges(cs.Edges)
	}
	if len(cs.NodeTombstones) > 0 {
		w.member("node_tombstones")
		w.nodeTombstones(cs.NodeTombstones)
	}
	if len(cs.EdgeTombstones) > 0 {
		w.member("edge_tombstones")
		w.edgeTombstones(cs.EdgeTombstones)
	}
	if len(cs.Progress) > 0 {
		w.member("progress")
		w.progress(cs.Progress)
	}
	if cs.Meta {
		w.member("meta")
		w.meta(projectPath)
	}
	w.close('}', w.members)
	return w.b
}

// recordWriter writes the members of a journal record from the items of g
// its batch names.
type recordWriter struct {
	*enc
	g       *domain.Graph
	x       extras
	members int // members of the record written so far
}

// member starts the record's next member, name.
func (w *recordWriter) member(name string) {
	w.key(w.members, name)
	w.members++
}

// nodes writes the named nodes with their versions, null for one removed.
func (w *recordWriter) nodes(named map[string]struct{}) {
	w.open('{')
	for i, id := range slices.Sorted(maps.Keys(named)) {
		w.key(i, id)
		n, ok := w.g.Node(id)
		if !ok {
			w.b = append(w.b, "null"...)
			continue
		}
		w.open('{')
		w.key(0, "node")
		w.node(n, &w.x)
		w.key(1, "version")
		w.version(n.Version)
		w.close('}', 2)
	}
	w.close('}', len(named))
}

// edges writes the named edges by their ends, with value and version
// unless removed.
func (w *recordWriter) edges(named map[domain.EdgeKey]struct{}) {
	w.open('[')
	for i, k := range slices.SortedFunc(maps.Keys(named), cmpEdgeKey) {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.open('{')
		w.ends(k)
		if ed, ok := w.g.Edge(k); ok {
			w.key(3, "edge")
			w.edge(ed, &w.x)
			w.key(4, "version")
			w.version(ed.Version)
		}
		w.close('}', 3)
	}
	w.close(']', len(named))
}

// nodeTombstones writes the named node tombstones, null for one removed.
func (w *recordWriter) nodeTombstones(named map[string]struct{}) {
	w.open('{')
	for i, id := range slices.Sorted(maps.Keys(named)) {
		w.key(i, id)
		if t, ok := w.g.NodeTombstone(id); ok {
			w.tombstone(t)
		} else {
			w.b = append(w.b, "null"...)
		}
	}
	w.close('}', len(named))
}

// edgeTombstones writes the named edge tombstones by their ends, with the
// tombstone unless removed.
func (w *recordWriter) edgeTombstones(named map[domain.EdgeKey]struct{}) {
	w.open('[')
	for i, k := range slices.SortedFunc(maps.Keys(named), cmpEdgeKey) {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.open('{')
		w.ends(k)
		if t, ok := w.g.EdgeTombstone(k); ok {
			w.key(3, "tombstone")
			w.tombstone(t)
		}
		w.close('}', 3)
	}
	w.close(']', len(named))
}

// progress writes the named tasks' progress, null for one removed.
func (w *recordWriter) progress(named map[string]struct{}) {
	w.open('{')
	for i, task := range slices.Sorted(maps.Keys(named)) {
		w.key(i, task)
		if p, ok := w.g.Progress(task); ok {
			w.b = append(w.b, `{"state":`...)
			w.raw(p)
			w.b = append(w.b, '}')
		} else {
			w.b = append(w.b, "null"...)
		}
	}
	w.close('}', len(named))
}

// meta writes the seq, the project path and the unknown metadata, all of
// them.
func (w *recordWriter) meta(projectPath string) {
	w.open('{')
	w.key(0, "seq")
	w.b = strconv.AppendUint(w.b, w.g.Seq(), 10)
	w.key(1, "project_path")
	w.str(projectPath)
	w.key(2, "unknown")
	names := w.g.MetaNames()
	w.open('{')
	for i, name := range names {
		w.key(i, name)
		v, _ := w.g.Meta(name)
		w.raw(v)
	}
	w.close('}', len(names))
	w.close('}', 3)
}

func cmpEdgeKey(a, b domain.EdgeKey) int {
	if c := strings.Compare(a.From, b.From); c != 0 {
		return c
	}
	if c := strings.Compare(a.To, b.To); c != 0 {
		return c
	}
	return strings.Compare(a.Rel, b.Rel)
}

// ends writes the "from", "to" and "rel" members of an edge record.
func (e *enc) ends(k domain.EdgeKey) {
	e.key(0, "from")
	e.str(k.From)
	e.key(1, "to")
	e.str(k.To)
	e.key(2, "rel")
	e.str(k.Rel)
}

func (e *enc) version(v domain.Version) { e.entry(v.V, v.Seq, v.TS, v.Session, false, nil) }

func (e *enc) tombstone(t domain.Tombstone) { e.entry(t.V, t.Seq, t.TS, t.Session, t.Pruned, nil) }

// graphBatch is a graph record as encoding/json reads it.
type graphBatch struct {
	Seq            [2]uint64                  `json:"seq"`
	ProjectPath    string                     `json:"project_path"`
	Nodes          map[string]*nodeRecord     `json:"nodes"`
	Edges          []edgeRecord               `json:"edges"`
	NodeTombstones map[string]*entryRecord    `json:"node_tombstones"`
	EdgeTombstones []edgeTombRecord           `json:"edge_tombstones"`
	Progress       map[string]*progressRecord `json:"progress"`
	Meta           *metaRecord                `json:"meta"`
}

type nodeRecord struct {
	Node    json.RawMessage `json:"node"`
	Version entryRecord     `json:"version"`
}

type edgeRecord struct {
	From    string          `json:"from"`
	To      string          `json:"to"`
	Rel     string          `json:"rel"`
	Edge    json.RawMessage `json:"edge"`
	Version entryRecord     `json:"version"`
}

type edgeTombRecord struct {
	From      string       `json:"from"`
	To        string       `json:"to"`
	Rel       string       `json:"rel"`
	Tombstone *entryRecord `json:"tombstone"`
}

type progressRecord struct {
	State json.RawMessage `json:"state"`
}

type metaRecord struct {
	Seq         uint64                     `json:"seq"`
	ProjectPath string                     `json:"project_path"`
	Unknown     map[string]json.RawMessage `json:"unknown"`
}

type entryRecord struct {
	V       uint64          `json:"v"`
	Seq     uint64          `json:"seq"`
	TS      json.RawMessage `json:"ts"`
	Session *string         `json:"session"`
	Pruned  bool            `json:"pruned"`
}

func (r *entryRecord) version() (domain.Version, error) {
	ts, err := parseMicros(r.TS)
	if err != nil {
		return domain.Version{}, fmt.Errorf("ts: %w", err)
	}
	v := domain.Version{V: r.V, TS: ts, Seq: r.Seq}
	if r.Session != nil {
		v.Session = *r.Session
	}
	return v, nil
}

func (r *entryRecord) tombstone() (domain.Tombstone, error) {
	v, err := r.version()
	return domain.Tombstone{V: v.V, TS: v.TS, Session: v.Session, Seq: v.Seq, Pruned: r.Pruned}, err
}

// Replay gathers what a run of graph records leaves of each item they
// name: its last content, or nil for a removal.
type Replay struct {
	nodes     map[string]*domain.Node
	edges     map[domain.EdgeKey]*domain.Edge
	nodeTombs map[string]*domain.Tombstone
	edgeTombs map[domain.EdgeKey]*domain.Tombstone
	progress  map[string]domain.RawJSON // nil value: removed
	meta      *metaRecord
	seq       uint64
	records   int
}

// NewReplay returns a Replay that has read no record.
func NewReplay() *Replay {
	return &Replay{nodes: map[string]*domain.Node{}, edges: map[domain.EdgeKey]*domain.Edge{},
		nodeTombs: map[string]*domain.Tombstone{}, edgeTombs: map[domain.EdgeKey]*domain.Tombstone{},
		progress: map[string]domain.RawJSON{}}
}

// Records returns how many records r has read.
func (r *Replay) Records() int { return r.records }

// Node returns the last content the records give node id, nil for none or
// a removal.
func (r *Replay) Node(id string) *domain.Node { return r.nodes[id] }

// Edge returns the last content the records give edge k, nil for none or a
// removal.
func (r *Replay) Edge(k domain.EdgeKey) *domain.Edge { return r.edges[k] }

// ApplyTo puts what the records leave into d: their items in place of
// those they name, their tombstones, progress and metadata, and the
// highest seq they took.
func (r *Replay) ApplyTo(d *domain.GraphData) {
	r.replaceItems(d)
	r.applyKeyed(d)
	if m := r.meta; m != nil {
		d.Seq = m.Seq
		d.ProjectPath = m.ProjectPath
		d.Meta = make(map[string]domain.RawJSON, len(m.Unknown))
		for k, v := range m.Unknown {
			d.Meta[k] = compact(v)
		}
	}
	d.Seq = max(d.Seq, r.seq)
}

// Add reads one record payload into r.
func (r *Replay) Add(payload []byte) error {
	var b graphBatch
	if err := json.Unmarshal(payload, &b); err != nil {
		return err
	}
	r.records++
	r.seq = max(r.seq, b.Seq[1])
	for id, rec := range b.Nodes {
		if rec == nil {
			r.nodes[id] = nil
			continue
		}
		p := &parser{b: rec.Node}
		n, err := p.node(id)
		if p.peek(); err == nil && p.i < len(p.b) {
			err = p.fail("after node")
		}
		if err != nil {
			return fmt.Errorf("node %q: %w", id, err)
		}
		n.ID = id
		if n.Version, err = rec.Version.version(); err != nil {
			return fmt.Errorf("node %q: version: %w", id, err)
		}
		r.nodes[id] = &n
	}
	for _, rec := range b.Edges {
		k := domain.EdgeKey{From: rec.From, To: rec.To, Rel: rec.Rel}
		if rec.Edge == nil {
			r.edges[k] = nil
			continue
		}
		p := &parser{b: rec.Edge}
		ed, err := p.edge(edgeKeyString(k))
		if err != nil {
			return fmt.Errorf("edge %s: %w", edgeKeyString(k), err)
		}
		if ed.Key() != k {
			return fmt.Errorf("edge %s: holds edge %s", edgeKeyString(k), edgeKeyString(ed.Key()))
		}
		if ed.Version, err = rec.Version.version(); err != nil {
			return fmt.Errorf("edge %s: version: %w", edgeKeyString(k), err)
		}
		r.edges[k] = &ed
	}
	for id, rec := range b.NodeTombstones {
		if rec == nil {
			r.nodeTombs[id] = nil
			continue
		}
		t, err := rec.tombstone()
		if err != nil {
			return fmt.Errorf("node tombstone %q: %w", id, err)
		}
		r.nodeTombs[id] = &t
	}
	for _, rec := range b.EdgeTombstones {
		k := domain.EdgeKey{From: rec.From, To: rec.To, Rel: rec.Rel}
		if rec.Tombstone == nil {
			r.edgeTombs[k] = nil
			continue
		}
		t, err := rec.Tombstone.tombstone()
		if err != nil {
			return fmt.Errorf("edge tombstone %s: %w", edgeKeyString(k), err)
		}
		r.edgeTombs[k] = &t
	}
	for task, rec := range b.Progress {
		if rec == nil {
			r.progress[task] = nil
			continue
		}
		r.progress[task] = compact(rec.State)
	}
	if b.Meta != nil {
		r.meta = b.Meta
	}
	return nil
}

// replaceItems puts the records' nodes and edges in place of those of d
// they name, dropping the removed ones; the replaced items go last, in key
// order.
func (r *Replay) replaceItems(d *domain.GraphData) {
	if len(r.nodes) > 0 {
		kept := d.Nodes[:0:0]
		for _, n := range d.Nodes {
			if _, named := r.nodes[n.ID]; !named {
				kept = append(kept, n)
			}
		}
		for _, id := range slices.Sorted(maps.Keys(r.nodes)) {
			if n := r.nodes[id]; n != nil {
				kept = append(kept, *n)
			}
		}
		d.Nodes = kept
	}
	if len(r.edges) > 0 {
		kept := d.Edges[:0:0]
		for _, e := range d.Edges {
			if _, named := r.edges[e.Key()]; !named {
				kept = append(kept, e)
			}
		}
		for _, k := range slices.SortedFunc(maps.Keys(r.edges), cmpEdgeKey) {
			if e := r.edges[k]; e != nil {
				kept = append(kept, *e)
			}
		}
		d.Edges = kept
	}
}

// applyKeyed sets or removes the tombstones and progress the records name.
func (r *Replay) applyKeyed(d *domain.GraphData) {
	if d.NodeTombstones == nil {
		d.NodeTombstones = map[string]domain.Tombstone{}
	}
	setOrDelete(d.NodeTombstones, r.nodeTombs)
	if d.EdgeTombstones == nil {
		d.EdgeTombstones = map[domain.EdgeKey]domain.Tombstone{}
	}
	setOrDelete(d.EdgeTombstones, r.edgeTombs)
	if d.Progress == nil {
		d.Progress = map[string]domain.RawJSON{}
	}
	for task, p := range r.progress {
		if p == nil {
			delete(d.Progress, task)
		} else {
			d.Progress[task] = p
		}
	}
}

// setOrDelete sets each key of changes in m to its value, or deletes it
// when the value is nil.
func setOrDelete[K comparable, V any](m map[K]V, changes map[K]*V) {
	for k, v := range changes {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = *v
		}
	}
}
