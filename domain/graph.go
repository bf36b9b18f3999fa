package domain

import (
	"slices"
	"unicode/utf8"
)

// Graph is one level's knowledge graph in memory, with the indexes that keep
// compaction cheap: an adjacency index by end, the token-estimate components
// and the tier counts. Every change goes through a handful of primitives
// (setNode, setEdge, …) that keep those indexes exact and record what the
// change replaced, so that Rollback can restore the last durable state and
// Pending can tell a storage backend exactly what to write.
type Graph struct {
	key         GraphKey
	seq         uint64 // last seq handed out
	durableSeq  uint64 // highest seq known to be on disk
	projectPath string
	meta        map[string]RawJSON // unknown _meta keys, kept untouched

	nodes     map[string]*Node
	edges     map[EdgeKey]*Edge
	nodeTombs map[string]Tombstone
	edgeTombs map[EdgeKey]Tombstone
	progress  map[string]RawJSON

	// out and in index edges by the string at their from and to end, whether
	// or not that string names a node, so a node created later finds the
	// edges that already point at it.
	out map[string]map[EdgeKey]struct{}
	in  map[string]map[EdgeKey]struct{}

	stats Stats

	journal []undo    // what the changes since the last checkpoint replaced
	pending ChangeSet // what changed since the last checkpoint
}

// Stats are the counts kept up to date by every change: tier counts, the
// token-estimate components, and edge counts.
type Stats struct {
	Active, Archived, Orphaned int
	// GistCost is Σ floor(len(gist)/4) over active nodes; NotesCost is
	// Σ floor((len(gist)+Σ len(note))/4) over active nodes.
	GistCost, NotesCost int
	Edges               int
	ShownEdges          int
}

// Token costs (compaction.md).
const (
	NodeBaseTokens     = 20
	EdgeTokens         = 15
	ArchivedIDTokens   = 5
	charsPerTokenRatio = 4
)

// Estimate is the token estimate of the full read: active nodes and shown
// edges.
func (s Stats) Estimate(estimateNotes bool) int {
	text := s.GistCost
	if estimateNotes {
		text = s.NotesCost
	}
	return NodeBaseTokens*s.Active + text + EdgeTokens*s.ShownEdges
}

// NewGraph returns an empty graph for key.
func NewGraph(key GraphKey) *Graph {
	g := &Graph{
		key:       key,
		nodes:     map[string]*Node{},
		edges:     map[EdgeKey]*Edge{},
		nodeTombs: map[string]Tombstone{},
		edgeTombs: map[EdgeKey]Tombstone{},
		progress:  map[string]RawJSON{},
		meta:      map[string]RawJSON{},
		out:       map[string]map[EdgeKey]struct{}{},
		in:        map[string]map[EdgeKey]struct{}{},
	}
	if key.Level == LevelProject {
		g.projectPath = key.Project
	}
	g.pending.reset()
	return g
}

// Key returns the key of the graph.
func (g *Graph) Key() GraphKey { return g.key }

// Seq returns the last change sequence number handed out.
func (g *Graph) Seq() uint64 { return g.seq }

// DurableSeq returns the highest seq whose save is durable.
func (g *Graph) DurableSeq() uint64 { return g.durableSeq }

// ProjectPath returns the project path recorded in the graph (its owner);
// empty for the user graph.
func (g *Graph) ProjectPath() string { return g.projectPath }

// SetProjectPath records the project that owns the graph, as when a project
// is moved to a new path.
func (g *Graph) SetProjectPath(p string) {
	if g.projectPath != p {
		// Journaled like any change, so that Rollback of a failed save
		// also takes the path back to what is on disk.
		g.journal = append(g.journal, undo{kind: undoProjectPath, id: g.projectPath})
		g.projectPath = p
		g.pending.Meta = true
	}
}

// Stats returns the incrementally kept counts.
func (g *Graph) Stats() Stats { return g.stats }

// Node returns the node with id, if any. The node must not be modified.
func (g *Graph) Node(id string) (*Node, bool) {
	n, ok := g.nodes[id]
	return n, ok
}

// Edge returns the edge with key k, if any. The edge must not be modified.
func (g *Graph) Edge(k EdgeKey) (*Edge, bool) {
	e, ok := g.edges[k]
	return e, ok
}

// NodeTombstone returns the tombstone of a deleted node, if any.
func (g *Graph) NodeTombstone(id string) (Tombstone, bool) {
	t, ok := g.nodeTombs[id]
	return t, ok
}

// EdgeTombstone returns the tombstone of a deleted edge, if any.
func (g *Graph) EdgeTombstone(k EdgeKey) (Tombstone, bool) {
	t, ok := g.edgeTombs[k]
	return t, ok
}

// Progress returns the stored state of a task, if any.
func (g *Graph) Progress(task string) (RawJSON, bool) {
	p, ok := g.progress[task]
	return p, ok
}

// Meta returns the unknown metadata value stored under name, if any.
func (g *Graph) Meta(name string) (RawJSON, bool) {
	v, ok := g.meta[name]
	return v, ok
}

// NodeCount returns the number of nodes in every tier.
func (g *Graph) NodeCount() int { return len(g.nodes) }

// EdgeCount returns the number of edges.
func (g *Graph) EdgeCount() int { return len(g.edges) }

// Nodes returns every node, sorted by id.
func (g *Graph) Nodes() []*Node {
	ns := make([]*Node, 0, len(g.nodes))
	for _, n := range g.nodes {
		ns = append(ns, n)
	}
	slices.SortFunc(ns, func(a, b *Node) int { return cmpString(a.ID, b.ID) })
	return ns
}

// Edges returns every edge, sorted by (from, rel, to).
func (g *Graph) Edges() []*Edge {
	es := make([]*Edge, 0, len(g.edges))
	for _, e := range g.edges {
		es = append(es, e)
	}
	sortEdges(es)
	return es
}

// EdgesOf returns the edges of the graph that touch the end named id (as
// from or to), sorted by (from, rel, to). A self-loop is listed once.
func (g *Graph) EdgesOf(id string) []*Edge {
	keys := g.incident(id)
	es := make([]*Edge, 0, len(keys))
	for _, k := range keys {
		es = append(es, g.edges[k])
	}
	sortEdges(es)
	return es
}

// IsNode reports whether end names a node of this graph.
func (g *Graph) IsNode(end string) bool {
	_, ok := g.nodes[end]
	return ok
}

// Shown reports whether the edge with key k is listed by the full read and
// charged to the budget (compaction.md, Shown edges).
func (g *Graph) Shown(k EdgeKey) bool {
	from, fromIsNode := g.nodes[k.From]
	to, toIsNode := g.nodes[k.To]
	return edgeShown(tierOf(from, fromIsNode), tierOf(to, toIsNode))
}

// endTier describes an edge end for the shown-edge rule.
type endTier uint8

const (
	endRef endTier = iota // not a node of this graph
	endActive
	endArchived
	endOrphaned
)

func tierOf(n *Node, isNode bool) endTier {
	if !isNode {
		return endRef
	}
	switch n.Tier {
	case Active:
		return endActive
	case Archived:
		return endArchived
	}
	return endOrphaned
}

func edgeShown(from, to endTier) bool {
	if from == endOrphaned || to == endOrphaned {
		return false
	}
	if from == endActive || to == endActive {
		return true
	}
	return from == endRef && to == endRef
}

// incident returns the keys of the edges whose from or to is id, without
// duplicates, in no particular order.
func (g *Graph) incident(id string) []EdgeKey {
	out, in := g.out[id], g.in[id]
	keys := make([]EdgeKey, 0, len(out)+len(in))
	for k := range out {
		keys = append(keys, k)
	}
	for k := range in {
		if k.From == id { // self-loop, already listed
			continue
		}
		keys = append(keys, k)
	}
	return keys
}

// nodeCosts returns the two text costs of a node: floor(len(gist)/4) and
// floor((len(gist)+Σ len(note))/4), lengths in code points.
func nodeCosts(n *Node) (gist, notes int) {
	gl := utf8.RuneCountInString(n.Gist)
	nl := gl
	for _, s := range n.Notes {
		nl += utf8.RuneCountInString(s)
	}
	return gl / charsPerTokenRatio, nl / charsPerTokenRatio
}

func (s *Stats) addNode(n *Node, sign int) {
	switch n.Tier {
	case Active:
		s.Active += sign
		gc, nc := nodeCosts(n)
		s.GistCost += sign * gc
		s.NotesCost += sign * nc
	case Archived:
		s.Archived += sign
	case Orphaned:
		s.Orphaned += sign
	}
}

// nextSeq hands out the next change sequence number.
func (g *Graph) nextSeq() uint64 {
	g.seq++
	g.pending.Meta = true
	return g.seq
}

// ---- primitives: every change of state goes through these ----

type undoKind uint8

const (
	undoNode undoKind = iota
	undoEdge
	undoNodeTomb
	undoEdgeTomb
	undoProgress
	undoProjectPath // id holds the path before the change
)

// undo records what one primitive replaced.
type undo struct {
	kind     undoKind
	id       string
	edge     EdgeKey
	node     *Node
	edgeVal  *Edge
	tomb     Tombstone
	had      bool
	progress RawJSON
}

// setNode puts n under id (nil removes it), keeping the indexes exact.
func (g *Graph) setNode(id string, n *Node) {
	old, had := g.nodes[id]
	g.journal = append(g.journal, undo{kind: undoNode, id: id, node: old, had: had})
	g.pending.Nodes[id] = struct{}{}
	g.putNode(id, old, had, n)
}

func (g *Graph) putNode(id string, old *Node, had bool, n *Node) {
	if had {
		g.stats.addNode(old, -1)
	}
	if n == nil {
		delete(g.nodes, id)
	} else {
		g.nodes[id] = n
		g.stats.addNode(n, +1)
	}
	before, after := tierOf(old, had), tierOf(n, n != nil)
	if before == after {
		return // the shown state of an edge depends on its ends' tiers only
	}
	// Re-judge each edge touching id. Its other end is looked up once; a
	// self-loop has this node at both ends.
	rejudge := func(k EdgeKey, other string) {
		o := before
		if other != id {
			on, isNode := g.nodes[other]
			o = tierOf(on, isNode)
			g.stats.ShownEdges += b2i(edgeShown(after, o)) - b2i(edgeShown(before, o))
			return
		}
		g.stats.ShownEdges += b2i(edgeShown(after, after)) - b2i(edgeShown(o, o))
	}
	for k := range g.out[id] {
		rejudge(k, k.To)
	}
	for k := range g.in[id] {
		if k.From != id { // a self-loop was judged with the out-edges
			rejudge(k, k.From)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// setEdge puts e under k (nil removes it), keeping the indexes exact.
func (g *Graph) setEdge(k EdgeKey, e *Edge) {
	old, had := g.edges[k]
	g.journal = append(g.journal, undo{kind: undoEdge, edge: k, edgeVal: old, had: had})
	g.pending.Edges[k] = struct{}{}
	g.putEdge(k, had, e)
}

func (g *Graph) putEdge(k EdgeKey, had bool, e *Edge) {
	if had {
		if g.Shown(k) {
			g.stats.ShownEdges--
		}
		g.stats.Edges--
		delete(g.out[k.From], k)
		if len(g.out[k.From]) == 0 {
			delete(g.out, k.From)
		}
		delete(g.in[k.To], k)
		if len(g.in[k.To]) == 0 {
			delete(g.in, k.To)
		}
		delete(g.edges, k)
	}
	if e == nil {
		return
	}
	g.edges[k] = e
	g.stats.Edges++
	addIndex(g.out, k.From, k)
	addIndex(g.in, k.To, k)
	if g.Shown(k) {
		g.stats.ShownEdges++
	}
}

func addIndex(ix map[string]map[EdgeKey]struct{}, end string, k EdgeKey) {
	m := ix[end]
	if m == nil {
		m = map[EdgeKey]struct{}{}
		ix[end] = m
	}
	m[k] = struct{}{}
}

func (g *Graph) setNodeTomb(id string, t *Tombstone) {
	old, had := g.nodeTombs[id]
	g.journal = append(g.journal, undo{kind: undoNodeTomb, id: id, tomb: old, had: had})
	g.pending.NodeTombstones[id] = struct{}{}
	if t == nil {
		delete(g.nodeTombs, id)
	} else {
		g.nodeTombs[id] = *t
	}
}

func (g *Graph) setEdgeTomb(k EdgeKey, t *Tombstone) {
	old, had := g.edgeTombs[k]
	g.journal = append(g.journal, undo{kind: undoEdgeTomb, edge: k, tomb: old, had: had})
	g.pending.EdgeTombstones[k] = struct{}{}
	if t == nil {
		delete(g.edgeTombs, k)
	} else {
		g.edgeTombs[k] = *t
	}
}

func (g *Graph) setProgress(task string, state RawJSON) {
	old, had := g.progress[task]
	g.journal = append(g.journal, undo{kind: undoProgress, id: task, progress: old, had: had})
	g.pending.Progress[task] = struct{}{}
	if state == nil {
		delete(g.progress, task)
	} else {
		g.progress[task] = state
	}
}

// ---- durability bookkeeping ----

// ChangeSet names what changed since the last checkpoint, so a backend that
// stores items one by one writes only those. An entry names an item whose
// current value (or absence) must be stored.
type ChangeSet struct {
	Nodes          map[string]struct{}
	Edges          map[EdgeKey]struct{}
	NodeTombstones map[string]struct{}
	EdgeTombstones map[EdgeKey]struct{}
	Progress       map[string]struct{}
	Meta           bool // seq, project path or unknown metadata
}

func (c *ChangeSet) reset() {
	c.Nodes = map[string]struct{}{}
	c.Edges = map[EdgeKey]struct{}{}
	c.NodeTombstones = map[string]struct{}{}
	c.EdgeTombstones = map[EdgeKey]struct{}{}
	c.Progress = map[string]struct{}{}
	c.Meta = false
}

// Empty reports whether nothing changed.
func (c ChangeSet) Empty() bool {
	return len(c.Nodes) == 0 && len(c.Edges) == 0 && len(c.NodeTombstones) == 0 &&
		len(c.EdgeTombstones) == 0 && len(c.Progress) == 0 && !c.Meta
}

// Size returns the number of items named.
func (c ChangeSet) Size() int {
	n := len(c.Nodes) + len(c.Edges) + len(c.NodeTombstones) + len(c.EdgeTombstones) + len(c.Progress)
	if c.Meta {
		n++
	}
	return n
}

// Pending returns what changed since the last checkpoint. The sets belong to
// the graph and are valid until the next Checkpoint or Rollback.
func (g *Graph) Pending() ChangeSet { return g.pending }

// Checkpoint marks the current state durable: the pending changes are on
// disk and Rollback will return here.
func (g *Graph) Checkpoint() {
	g.journal = g.journal[:0]
	g.pending.reset()
	g.durableSeq = g.seq
}

// Rollback returns the graph to its state at the last checkpoint, except the
// seq counter, which never goes back so that no seq is handed out twice.
// Because the counter moved, the metadata stays pending.
func (g *Graph) Rollback() {
	for i := len(g.journal) - 1; i >= 0; i-- {
		u := g.journal[i]
		switch u.kind {
		case undoNode:
			cur, had := g.nodes[u.id]
			var restore *Node
			if u.had {
				restore = u.node
			}
			g.putNode(u.id, cur, had, restore)
		case undoEdge:
			_, had := g.edges[u.edge]
			var restore *Edge
			if u.had {
				restore = u.edgeVal
			}
			g.putEdge(u.edge, had, restore)
		case undoNodeTomb:
			if u.had {
				g.nodeTombs[u.id] = u.tomb
			} else {
				delete(g.nodeTombs, u.id)
			}
		case undoEdgeTomb:
			if u.had {
				g.edgeTombs[u.edge] = u.tomb
			} else {
				delete(g.edgeTombs, u.edge)
			}
		case undoProgress:
			if u.had {
				g.progress[u.id] = u.progress
			} else {
				delete(g.progress, u.id)
			}
		case undoProjectPath:
			g.projectPath = u.id
		}
	}
	g.journal = g.journal[:0]
	moved := g.seq != g.durableSeq
	g.pending.reset()
	g.pending.Meta = moved
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func sortEdges(es []*Edge) {
	slices.SortFunc(es, func(a, b *Edge) int {
		ka, kb := a.Key(), b.Key()
		switch {
		case ka.Less(kb):
			return -1
		case kb.Less(ka):
			return 1
		}
		return 0
	})
}
