package postgres

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// The records below are the jsonb bodies of the tables and of the change
// log (docs/design/team.md#tables). They belong to this adapter, so that a
// change of a domain type never changes the stored format by accident.
// Times are integer Unix microseconds. Unknown fields of an item are kept
// under "extra", each a JSON value of its own: jsonb keeps their meaning
// (not their key order or spacing, which carry none).

type versionRec struct {
	V         uint64 `json:"v"`
	TS        int64  `json:"ts"`
	Session   string `json:"session,omitempty"`
	Seq       uint64 `json:"seq,omitempty"`
	Principal string `json:"principal,omitempty"`
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
	// absent in items written before it, which then read as a node
	// without one.
	Use    *uint64 `json:"use,omitempty"`
	UseDay *uint64 `json:"use_day,omitempty"`
	// Files are the node's file stamps, path to hash
	// (docs/design/trust.md#staleness); absent in records written before
	// them, and one that does not read as such is no stamps.
	Files   json.RawMessage            `json:"files,omitempty"`
	Version versionRec                 `json:"version"`
	Extra   map[string]json.RawMessage `json:"extra,omitempty"`
}

type edgeRec struct {
	From    string                     `json:"from"`
	To      string                     `json:"to"`
	Rel     string                     `json:"rel"`
	Notes   []string                   `json:"notes"`
	Version versionRec                 `json:"version"`
	Extra   map[string]json.RawMessage `json:"extra,omitempty"`
}

type tombRec struct {
	V       uint64 `json:"v"`
	TS      int64  `json:"ts"`
	Session string `json:"session,omitempty"`
	Seq     uint64 `json:"seq,omitempty"`
	Pruned  bool   `json:"pruned,omitempty"`
}

var tierNames = [...]string{domain.Active: "active", domain.Archived: "archived", domain.Orphaned: "orphaned"}

func tierName(t domain.Tier) (string, error) {
	if int(t) < len(tierNames) {
		return tierNames[t], nil
	}
	return "", fmt.Errorf("unknown tier %d", t)
}

func tierOf(s string) (domain.Tier, error) {
	for t, name := range tierNames {
		if name == s {
			return domain.Tier(t), nil
		}
	}
	return 0, fmt.Errorf("unknown tier %q", s)
}

func versionOf(v domain.Version) versionRec {
	return versionRec{V: v.V, TS: int64(v.TS), Session: v.Session, Seq: v.Seq, Principal: v.Principal}
}

func (r versionRec) domain() domain.Version {
	return domain.Version{V: r.V, TS: domain.Micros(r.TS), Session: r.Session, Seq: r.Seq, Principal: r.Principal}
}

func nodeRecOf(n *domain.Node) (nodeRec, error) {
	tier, err := tierName(n.Tier)
	if err != nil {
		return nodeRec{}, fmt.Errorf("node %q: %w", n.ID, err)
	}
	r := nodeRec{ID: n.ID, Gist: n.Gist, Notes: n.Notes, Touches: n.Touches, Tier: tier,
		Created: int64(n.Created), LastRead: int64(n.LastRead), OrphanedAt: int64(n.OrphanedAt),
		TierSeq: n.TierSeq, Version: versionOf(n.Version), Extra: rawMessages(n.Extra)}
	if n.Use.Known {
		day := uint64(max(n.Use.Day, 0))
		r.Use, r.UseDay = &n.Use.Count, &day
	}
	if m := domain.FileStampMap(n.Files); m != nil {
		r.Files, _ = json.Marshal(m) // a map of strings always marshals
	}
	return r, nil
}

func (r nodeRec) domain() (domain.Node, error) {
	tier, err := tierOf(r.Tier)
	if err != nil {
		return domain.Node{}, err
	}
	var use domain.Use
	if r.Use != nil && r.UseDay != nil {
		use = domain.StoredUse(*r.Use, *r.UseDay, true)
	}
	return domain.Node{ID: r.ID, Gist: r.Gist, Notes: r.Notes, Touches: r.Touches, Tier: tier,
		Created: domain.Micros(r.Created), LastRead: domain.Micros(r.LastRead), OrphanedAt: domain.Micros(r.OrphanedAt),
		TierSeq: r.TierSeq, Use: use, Files: domain.ParseFileStamps(r.Files), Version: r.Version.domain(), Extra: rawJSONs(r.Extra)}, nil
}

func edgeRecOf(e *domain.Edge) edgeRec {
	return edgeRec{From: e.From, To: e.To, Rel: e.Rel, Notes: e.Notes, Version: versionOf(e.Version), Extra: rawMessages(e.Extra)}
}

func (r edgeRec) domain() domain.Edge {
	return domain.Edge{From: r.From, To: r.To, Rel: r.Rel, Notes: r.Notes, Version: r.Version.domain(), Extra: rawJSONs(r.Extra)}
}

func tombRecOf(t domain.Tombstone) tombRec {
	return tombRec{V: t.V, TS: int64(t.TS), Session: t.Session, Seq: t.Seq, Pruned: t.Pruned}
}

func (r tombRec) domain() domain.Tombstone {
	return domain.Tombstone{V: r.V, TS: domain.Micros(r.TS), Session: r.Session, Seq: r.Seq, Pruned: r.Pruned}
}

func rawMessages(m map[string]domain.RawJSON) map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out[k] = json.RawMessage(v)
	}
	return out
}

func rawJSONs(m map[string]json.RawMessage) map[string]domain.RawJSON {
	if m == nil {
		return nil
	}
	out := make(map[string]domain.RawJSON, len(m))
	for k, v := range m {
		out[k] = domain.RawJSON(v)
	}
	return out
}

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
	ID     string   `json:"id"`
	Before *nodeRec `json:"before"`
	After  *nodeRec `json:"after"`
}

type edgeChange struct {
	From   string   `json:"from"`
	To     string   `json:"to"`
	Rel    string   `json:"rel"`
	Before *edgeRec `json:"before"`
	After  *edgeRec `json:"after"`
}

type nodeTombChange struct {
	ID     string   `json:"id"`
	Before *tombRec `json:"before"`
	After  *tombRec `json:"after"`
}

type edgeTombChange struct {
	From   string   `json:"from"`
	To     string   `json:"to"`
	Rel    string   `json:"rel"`
	Before *tombRec `json:"before"`
	After  *tombRec `json:"after"`
}

type progressChange struct {
	Task  string          `json:"task"`
	After json.RawMessage `json:"after"` // null: removed
}

func nodeRecPtr(n *domain.Node) (*nodeRec, error) {
	if n == nil {
		return nil, nil
	}
	r, err := nodeRecOf(n)
	return &r, err
}

func edgeRecPtr(e *domain.Edge) *edgeRec {
	if e == nil {
		return nil
	}
	r := edgeRecOf(e)
	return &r
}

func tombRecPtr(t *domain.Tombstone) *tombRec {
	if t == nil {
		return nil
	}
	r := tombRecOf(*t)
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
		n, err := v.domain()
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
		e := v.domain()
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

func tombPtr(r *tombRec) *domain.Tombstone {
	if r == nil {
		return nil
	}
	t := r.domain()
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
	Node          *nodeRec        `json:"node,omitempty"`
	Edge          *edgeRec        `json:"edge,omitempty"`
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
		n, err := r.Node.domain()
		if err != nil {
			return ev, err
		}
		ev.Node = &n
	}
	if r.Edge != nil {
		e := r.Edge.domain()
		ev.Edge = &e
	}
	if r.EdgeKey != nil {
		ev.EdgeKey = &domain.EdgeKey{From: r.EdgeKey.From, To: r.EdgeKey.To, Rel: r.EdgeKey.Rel}
	}
	if len(r.Compaction) > 0 {
		var m domain.Moves
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
