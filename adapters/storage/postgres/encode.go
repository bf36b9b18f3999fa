package postgres

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/kg-memory/kg/adapters/storage/record"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/ports"
)

// A node, an edge and a tombstone are stored as their adapters/storage/record
// records, the jsonb bodies of the tables and of the change log
// (docs/design/team.md#tables, docs/decisions/0085-one-record-encoding.md).
// Unknown fields of an item are kept under "extra", each a JSON value of its
// own: jsonb keeps their meaning (not their key order or spacing, which carry
// none). The change log's, events' and summaries' records below are
// postgres's own.

// edgeHash is the key column of an edge or an edge tombstone: a SHA-256 of
// its three parts, each prefixed with its length, so that no separator must
// be trusted and the index stays small whatever the ends hold.
func edgeHash(k domain.EdgeKey) []byte {
	h := sha256.New()
	for _, s := range []string{k.From, k.To, k.Rel} {
		var n [binary.MaxVarintLen64]byte
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		h.Write([]byte(s))
	}
	return h.Sum(nil)
}

// ---- the change log's records ----

// itemsRec is the items of one batch in the change log: each changed item
// before and after the batch (null: absent).
type itemsRec struct {
	Nodes          []nodeChange     `json:"nodes,omitempty"`
	Edges          []edgeChange     `json:"edges,omitempty"`
	NodeTombstones []nodeTombChange `json:"node_tombstones,omitempty"`
	EdgeTombstones []edgeTombChange `json:"edge_tombstones,omitempty"`
	Progress       []progressChange `json:"progress,omitempty"`
	ProjectPath    *string          `json:"project_path,omitempty"`
}

type nodeChange struct {
	ID     string       `json:"id"`
	Before *record.Node `json:"before"`
	After  *record.Node `json:"after"`
}

type edgeChange struct {
	From   string       `json:"from"`
	To     string       `json:"to"`
	Rel    string       `json:"rel"`
	Before *record.Edge `json:"before"`
	After  *record.Edge `json:"after"`
}

type nodeTombChange struct {
	ID     string            `json:"id"`
	Before *record.Tombstone `json:"before"`
	After  *record.Tombstone `json:"after"`
}

type edgeTombChange struct {
	From   string            `json:"from"`
	To     string            `json:"to"`
	Rel    string            `json:"rel"`
	Before *record.Tombstone `json:"before"`
	After  *record.Tombstone `json:"after"`
}

type progressChange struct {
	Task  string          `json:"task"`
	After json.RawMessage `json:"after"` // null: removed
}

func nodeRecPtr(n *domain.Node) (*record.Node, error) {
	if n == nil {
		return nil, nil
	}
	r, err := record.NodeOf(n)
	return &r, err
}

func edgeRecPtr(e *domain.Edge) *record.Edge {
	if e == nil {
		return nil
	}
	r := record.EdgeOf(e)
	return &r
}

func tombRecPtr(t *domain.Tombstone) *record.Tombstone {
	if t == nil {
		return nil
	}
	r := record.TombstoneOf(*t)
	return &r
}

// itemsOf builds the change log's items from a batch's values before and
// after.
func itemsOf(before, after domain.Delta) (itemsRec, error) {
	var r itemsRec
	for id, n := range after.Nodes {
		a, err := nodeRecPtr(n)
		if err != nil {
			return r, err
		}
		b, err := nodeRecPtr(before.Nodes[id])
		if err != nil {
			return r, err
		}
		r.Nodes = append(r.Nodes, nodeChange{ID: id, Before: b, After: a})
	}
	for k, e := range after.Edges {
		r.Edges = append(r.Edges, edgeChange{From: k.From, To: k.To, Rel: k.Rel, Before: edgeRecPtr(before.Edges[k]), After: edgeRecPtr(e)})
	}
	for id, t := range after.NodeTombstones {
		r.NodeTombstones = append(r.NodeTombstones, nodeTombChange{ID: id, Before: tombRecPtr(before.NodeTombstones[id]), After: tombRecPtr(t)})
	}
	for k, t := range after.EdgeTombstones {
		r.EdgeTombstones = append(r.EdgeTombstones, edgeTombChange{From: k.From, To: k.To, Rel: k.Rel,
			Before: tombRecPtr(before.EdgeTombstones[k]), After: tombRecPtr(t)})
	}
	for task, st := range after.Progress {
		var raw json.RawMessage
		if st != nil {
			raw = json.RawMessage(st)
		}
		r.Progress = append(r.Progress, progressChange{Task: task, After: raw})
	}
	r.ProjectPath = after.ProjectPath
	return r, nil
}

// delta turns the change log's items back into what the batch committed.
func (r itemsRec) delta(seq uint64) (domain.Delta, error) {
	d, err := r.side(true)
	if err != nil {
		return d, err
	}
	d.Seq = seq
	for _, c := range r.Progress {
		if len(c.After) == 0 || string(c.After) == "null" {
			d.Progress[c.Task] = nil
		} else {
			d.Progress[c.Task] = domain.RawJSON(c.After)
		}
	}
	d.ProjectPath = r.ProjectPath
	return d, nil
}

// before is the delta of the items' values before the batch: what the
// change log shows as each entry's before (docs/design/trust.md#team-mode).
func (r itemsRec) before() (domain.Delta, error) { return r.side(false) }

// side is the delta of the nodes, edges and tombstones of the batch as they
// were after it (after) or before it; nil names an item absent on that side.
func (r itemsRec) side(after bool) (domain.Delta, error) {
	d := domain.NewDelta()
	for _, c := range r.Nodes {
		v := pick(after, c.Before, c.After)
		if v == nil {
			d.Nodes[c.ID] = nil
			continue
		}
		n, err := v.Domain()
		if err != nil {
			return d, fmt.Errorf("node %q: %w", c.ID, err)
		}
		d.Nodes[c.ID] = &n
	}
	for _, c := range r.Edges {
		k := domain.EdgeKey{From: c.From, To: c.To, Rel: c.Rel}
		v := pick(after, c.Before, c.After)
		if v == nil {
			d.Edges[k] = nil
			continue
		}
		e := v.Domain()
		d.Edges[k] = &e
	}
	for _, c := range r.NodeTombstones {
		d.NodeTombstones[c.ID] = tombPtr(pick(after, c.Before, c.After))
	}
	for _, c := range r.EdgeTombstones {
		d.EdgeTombstones[domain.EdgeKey{From: c.From, To: c.To, Rel: c.Rel}] = tombPtr(pick(after, c.Before, c.After))
	}
	return d, nil
}

// pick returns an item's value after the batch (after) or before it.
func pick[T any](after bool, before, afterV T) T {
	if after {
		return afterV
	}
	return before
}

func tombPtr(r *record.Tombstone) *domain.Tombstone {
	if r == nil {
		return nil
	}
	t := r.Domain()
	return &t
}

// writeRec is one write of a batch in the change log.
type writeRec struct {
	Session   string `json:"session,omitempty"`
	Principal string `json:"principal,omitempty"`
	FirstSeq  uint64 `json:"first_seq"`
	LastSeq   uint64 `json:"last_seq"`
	Op        string `json:"op,omitempty"` // the change log's op when not each item's put or delete
}

// eventRec is a published event in the change log, so that every server
// publishes it to its own subscribers.
type eventRec struct {
	Type          string          `json:"type"`
	Level         string          `json:"level"`
	Project       string          `json:"project,omitempty"`
	Owner         string          `json:"owner,omitempty"`
	Seq           uint64          `json:"seq"`
	SourceSession string          `json:"source_session,omitempty"`
	Node          *record.Node    `json:"node,omitempty"`
	Edge          *record.Edge    `json:"edge,omitempty"`
	NodeID        string          `json:"node_id,omitempty"`
	EdgeKey       *edgeKeyRec     `json:"edge_key,omitempty"`
	EdgesDeleted  int             `json:"edges_deleted,omitempty"`
	Rescued       []string        `json:"rescued,omitempty"`
	Compaction    json.RawMessage `json:"compaction,omitempty"`
}

type edgeKeyRec struct {
	From string `json:"from"`
	To   string `json:"to"`
	Rel  string `json:"rel"`
}

func eventRecOf(ev ports.Event) (eventRec, error) {
	r := eventRec{Type: ev.Type, Level: string(ev.Level), Project: ev.Project, Owner: ev.Owner, Seq: ev.Seq, SourceSession: ev.SourceSession,
		NodeID: ev.NodeID, EdgesDeleted: ev.EdgesDeleted, Rescued: ev.Rescued}
	var err error
	if r.Node, err = nodeRecPtr(ev.Node); err != nil {
		return r, err
	}
	r.Edge = edgeRecPtr(ev.Edge)
	if ev.EdgeKey != nil {
		r.EdgeKey = &edgeKeyRec{From: ev.EdgeKey.From, To: ev.EdgeKey.To, Rel: ev.EdgeKey.Rel}
	}
	if ev.Compaction != nil {
		if r.Compaction, err = json.Marshal(ev.Compaction); err != nil {
			return r, err
		}
	}
	return r, nil
}

func (r eventRec) domain() (ports.Event, error) {
	ev := ports.Event{Type: r.Type, Level: domain.Level(r.Level), Project: r.Project, Owner: r.Owner, Seq: r.Seq, SourceSession: r.SourceSession,
		NodeID: r.NodeID, EdgesDeleted: r.EdgesDeleted, Rescued: r.Rescued}
	if r.Node != nil {
		n, err := r.Node.Domain()
		if err != nil {
			return ev, err
		}
		ev.Node = &n
	}
	if r.Edge != nil {
		e := r.Edge.Domain()
		ev.Edge = &e
	}
	if r.EdgeKey != nil {
		ev.EdgeKey = &domain.EdgeKey{From: r.EdgeKey.From, To: r.EdgeKey.To, Rel: r.EdgeKey.Rel}
	}
	if len(r.Compaction) > 0 {
		var m compaction.Moves
		if err := json.Unmarshal(r.Compaction, &m); err != nil {
			return ev, err
		}
		ev.Compaction = &m
	}
	return ev, nil
}

// summaryRec is the graphs.summary column: what a listing shows of a graph,
// written with each commit (docs/design/team.md#scale).
type summaryRec struct {
	Active     int   `json:"active"`
	Archived   int   `json:"archived"`
	Orphaned   int   `json:"orphaned"`
	GistCost   int   `json:"gist_cost"`
	NotesCost  int   `json:"notes_cost"`
	Edges      int   `json:"edges"`
	ShownEdges int   `json:"shown_edges"`
	LastChange int64 `json:"last_change"`
}

func summaryRecOf(st domain.Stats, last domain.Micros) summaryRec {
	return summaryRec{Active: st.Active, Archived: st.Archived, Orphaned: st.Orphaned,
		GistCost: st.GistCost, NotesCost: st.NotesCost, Edges: st.Edges, ShownEdges: st.ShownEdges,
		LastChange: int64(last)}
}

func (r summaryRec) summary() *ports.GraphSummary {
	return &ports.GraphSummary{
		Stats: domain.Stats{Active: r.Active, Archived: r.Archived, Orphaned: r.Orphaned,
			GistCost: r.GistCost, NotesCost: r.NotesCost, Edges: r.Edges, ShownEdges: r.ShownEdges},
		LastChange: domain.Micros(r.LastChange),
	}
}

// lastChangeIn is the newest version or tombstone time among the items a
// batch stores: with the time the graph's summary held before, the graph's
// last change after the batch.
func lastChangeIn(d domain.Delta) domain.Micros {
	var t domain.Micros
	for _, n := range d.Nodes {
		if n != nil {
			t = max(t, n.Version.TS)
		}
	}
	for _, e := range d.Edges {
		if e != nil {
			t = max(t, e.Version.TS)
		}
	}
	for _, tb := range d.NodeTombstones {
		if tb != nil {
			t = max(t, tb.TS)
		}
	}
	for _, tb := range d.EdgeTombstones {
		if tb != nil {
			t = max(t, tb.TS)
		}
	}
	return t
}
