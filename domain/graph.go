package domain

import (
	"iter"
	"slices"
	"strings"
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

	nodeCount int               // the nodes are in the end slots (ends)
	edges     map[EdgeKey]int32 // the edge's slot in edgeSlots
	nodeTombs map[string]Tombstone
	edgeTombs map[EdgeKey]Tombstone
	progress  map[string]RawJSON

	// The adjacency index. Every string that names a node or is an end of
	// an edge has a slot in ends, whether or not it names a node, so a node
	// created later finds the edges that already point at it. A slot holds
	// its node (if any) with its tier and text costs, and the edge slots
	// going out of it and coming in, so a tier change re-judges the edges
	// of a node without looking up a single string. Slots are reused
	// through the free lists; nothing observable depends on slot numbers.
	endIx     map[string]int32
	ends      []endSlot
	endTiers  []endTier // how each end counts for the shown-edge rule, by slot
	freeEnds  []int32
	edgeSlots []edgeSlot
	freeEdges []int32

	stats Stats

	// What the changes since the last checkpoint replaced: journal orders
	// the entries, each kept in the typed list of its kind.
	journal   []undo
	nodeUndos []nodeUndo
	edgeUndos []edgeUndo
	rareUndos []rareUndo
	pending   ChangeSet // what changed since the last checkpoint
}

// endSlot is one end of the adjacency index: a string that names a node, or
// is an end of an edge, or both. A free slot has an empty name, no node and
// no edges. Its tier for the shown-edge rule is kept apart, in
// Graph.endTiers: re-judging a node's edges reads the tiers of all its
// neighbours, and one byte each keeps them in cache.
type endSlot struct {
	name string
	node *Node // the node with this id; nil if none
	// The node's text costs (nodeCosts), kept so that a tier change need
	// not count the code points of its text again.
	gistCost, notesCost int32
	out, in             []adjEntry // the edges from and to this end
}

// adjEntry is an edge in an end's out or in list, with the slot of its
// other end (this end's own slot for a self-loop).
type adjEntry struct{ edge, other int32 }

// edgeSlot is one edge of the adjacency index, with the slots of its ends
// and its positions in their out and in lists, so that removing it costs
// O(1). A free slot has a nil edge.
type edgeSlot struct {
	e             *Edge
	from, to      int32
	outPos, inPos int32
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
		edges:     map[EdgeKey]int32{},
		nodeTombs: map[string]Tombstone{},
		edgeTombs: map[EdgeKey]Tombstone{},
		progress:  map[string]RawJSON{},
		meta:      map[string]RawJSON{},
		endIx:     map[string]int32{},
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
		g.journalRare(rareUndo{kind: undoProjectPath, id: g.projectPath})
		g.projectPath = p
		g.pending.Meta = true
	}
}

// Stats returns the incrementally kept counts.
func (g *Graph) Stats() Stats { return g.stats }

// Node returns the node with id, if any. The node must not be modified.
func (g *Graph) Node(id string) (*Node, bool) { return g.node(id) }

// node returns the node with id, if any.
func (g *Graph) node(id string) (*Node, bool) {
	if si, ok := g.endIx[id]; ok {
		if n := g.ends[si].node; n != nil {
			return n, true
		}
	}
	return nil, false
}

// allNodes yields every node by its id, in no particular order.
func (g *Graph) allNodes() iter.Seq2[string, *Node] {
	return func(yield func(string, *Node) bool) {
		for i := range g.ends {
			if s := &g.ends[i]; s.node != nil && !yield(s.name, s.node) {
				return
			}
		}
	}
}

// Edge returns the edge with key k, if any. The edge must not be modified.
func (g *Graph) Edge(k EdgeKey) (*Edge, bool) {
	ei, ok := g.edges[k]
	if !ok {
		return nil, false
	}
	return g.edgeSlots[ei].e, true
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
func (g *Graph) NodeCount() int { return g.nodeCount }

// EdgeCount returns the number of edges.
func (g *Graph) EdgeCount() int { return len(g.edges) }

// Nodes returns every node, sorted by id.
func (g *Graph) Nodes() []*Node {
	ns := make([]*Node, 0, g.nodeCount)
	for _, n := range g.allNodes() {
		ns = append(ns, n)
	}
	slices.SortFunc(ns, func(a, b *Node) int { return strings.Compare(a.ID, b.ID) })
	return ns
}

// Edges returns every edge, sorted by (from, rel, to).
func (g *Graph) Edges() []*Edge {
	es := make([]*Edge, 0, len(g.edges))
	for i := range g.edgeSlots {
		if e := g.edgeSlots[i].e; e != nil {
			es = append(es, e)
		}
	}
	sortEdges(es)
	return es
}

// EdgesOf returns the edges of the graph that touch the end named id (as
// from or to), sorted by (from, rel, to). A self-loop is listed once.
func (g *Graph) EdgesOf(id string) []*Edge {
	si, ok := g.endIx[id]
	if !ok {
		return []*Edge{}
	}
	s := &g.ends[si]
	es := make([]*Edge, 0, len(s.out)+len(s.in))
	for _, a := range s.out {
		es = append(es, g.edgeSlots[a.edge].e)
	}
	for _, a := range s.in {
		if a.other == si { // self-loop, already listed
			continue
		}
		es = append(es, g.edgeSlots[a.edge].e)
	}
	sortEdges(es)
	return es
}

// IsNode reports whether end names a node of this graph.
func (g *Graph) IsNode(end string) bool {
	_, ok := g.node(end)
	return ok
}

// Shown reports whether the edge with key k is listed by the full read and
// charged to the budget (compaction.md, Shown edges).
func (g *Graph) Shown(k EdgeKey) bool {
	from, fromIsNode := g.node(k.From)
	to, toIsNode := g.node(k.To)
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
	si, ok := g.endIx[id]
	if !ok {
		return nil
	}
	s := &g.ends[si]
	keys := make([]EdgeKey, 0, len(s.out)+len(s.in))
	for _, a := range s.out {
		keys = append(keys, g.edgeSlots[a.edge].e.Key())
	}
	for _, a := range s.in {
		if a.other != si { // a self-loop is listed once
			keys = append(keys, g.edgeSlots[a.edge].e.Key())
		}
	}
	return keys
}

// nodeCosts returns the two text costs of a node: floor(len(gist)/4) and
// floor((len(gist)+Σ len(note))/4), lengths in code points.
func nodeCosts(n *Node) (gist, notes int32) {
	gl := utf8.RuneCountInString(n.Gist)
	nl := gl
	for _, s := range n.Notes {
		nl += utf8.RuneCountInString(s)
	}
	return int32(gl / charsPerTokenRatio), int32(nl / charsPerTokenRatio)
}

// addNode counts a node of tier t with text costs gc and nc, once for sign
// +1, or takes it out for -1.
func (s *Stats) addNode(t Tier, gc, nc int32, sign int) {
	switch t {
	case Active:
		s.Active += sign
		s.GistCost += sign * int(gc)
		s.NotesCost += sign * int(nc)
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

// undo orders what the primitives replaced: entry i of the list of its
// kind (nodeUndos, edgeUndos or rareUndos).
type undo struct {
	kind undoKind
	i    int32
}

// nodeUndo is the node that was under id; nil for none.
type nodeUndo struct {
	id  string
	old *Node
}

// edgeUndo is the edge that was under k; nil for none.
type edgeUndo struct {
	k   EdgeKey
	old *Edge
}

// rareUndo is what a change of a tombstone, a progress state or the project
// path replaced.
type rareUndo struct {
	kind     undoKind
	id       string
	edge     EdgeKey
	tomb     Tombstone
	had      bool
	progress RawJSON
}

func (g *Graph) journalNode(id string, old *Node) {
	g.journal = append(g.journal, undo{kind: undoNode, i: int32(len(g.nodeUndos))})
	g.nodeUndos = append(g.nodeUndos, nodeUndo{id: id, old: old})
}

func (g *Graph) journalEdge(k EdgeKey, old *Edge) {
	g.journal = append(g.journal, undo{kind: undoEdge, i: int32(len(g.edgeUndos))})
	g.edgeUndos = append(g.edgeUndos, edgeUndo{k: k, old: old})
}

// growJournal makes room in the journal for n more node changes. (The
// pending set is not swapped for a bigger one: a ChangeSet returned by
// Pending must keep seeing the graph's changes until the next checkpoint.)
func (g *Graph) growJournal(n int) {
	g.journal = slices.Grow(g.journal, n)
	g.nodeUndos = slices.Grow(g.nodeUndos, n)
}

func (g *Graph) journalRare(u rareUndo) {
	g.journal = append(g.journal, undo{kind: u.kind, i: int32(len(g.rareUndos))})
	g.rareUndos = append(g.rareUndos, u)
}

// endSlot returns the slot of the end named name, making one if there is
// none. It may move g.ends: take no pointer into it across a call.
func (g *Graph) endSlot(name string) int32 {
	if si, ok := g.endIx[name]; ok {
		return si
	}
	var si int32
	if n := len(g.freeEnds); n > 0 {
		si = g.freeEnds[n-1]
		g.freeEnds = g.freeEnds[:n-1]
	} else {
		si = int32(len(g.ends))
		g.ends = append(g.ends, endSlot{})
		g.endTiers = append(g.endTiers, endRef)
	}
	g.ends[si].name = name
	g.endIx[name] = si
	return si
}

// releaseEnd frees slot si if it no longer names a node or holds an edge.
func (g *Graph) releaseEnd(si int32) {
	s := &g.ends[si]
	if s.node != nil || len(s.out) > 0 || len(s.in) > 0 {
		return
	}
	delete(g.endIx, s.name)
	*s = endSlot{}
	g.freeEnds = append(g.freeEnds, si)
}

// setNode puts n under id (nil removes it), keeping the indexes exact.
func (g *Graph) setNode(id string, n *Node) {
	old, _ := g.node(id)
	g.journalNode(id, old)
	g.pending.Nodes[id] = struct{}{}
	g.putNode(id, n)
}

// putNode puts n under id (nil removes it) without journaling the change.
func (g *Graph) putNode(id string, n *Node) {
	if n == nil {
		si, ok := g.endIx[id]
		if !ok {
			return
		}
		g.putNodeAt(si, nil, 0, 0)
		g.releaseEnd(si)
		return
	}
	gc, nc := nodeCosts(n)
	g.putNodeAt(g.endSlot(id), n, gc, nc)
}

// putNodeAt puts n, whose text costs are gc and nc, in slot si (nil removes
// the node), keeping the stats exact. It leaves a slot it empties in place.
func (g *Graph) putNodeAt(si int32, n *Node, gc, nc int32) {
	s := &g.ends[si]
	if old := s.node; old != nil {
		g.stats.addNode(old.Tier, s.gistCost, s.notesCost, -1)
		g.nodeCount--
	}
	before := g.endTiers[si]
	if n == nil {
		s.node, s.gistCost, s.notesCost = nil, 0, 0
	} else {
		g.nodeCount++
		s.node, s.gistCost, s.notesCost = n, gc, nc
		g.stats.addNode(n.Tier, gc, nc, +1)
	}
	after := tierOf(n, n != nil)
	g.endTiers[si] = after
	if before == after {
		return // the shown state of an edge depends on its ends' tiers only
	}
	// Re-judge each edge touching the node; a self-loop has it at both
	// ends and is judged with the out-edges.
	tiers := g.endTiers
	d := 0
	for _, a := range s.out {
		if a.other == si {
			d += b2i(edgeShown(after, after)) - b2i(edgeShown(before, before))
			continue
		}
		o := tiers[a.other]
		d += b2i(edgeShown(after, o)) - b2i(edgeShown(before, o))
	}
	for _, a := range s.in {
		if a.other == si {
			continue
		}
		o := tiers[a.other]
		d += b2i(edgeShown(o, after)) - b2i(edgeShown(o, before))
	}
	g.stats.ShownEdges += d
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// setEdge puts e under k (nil removes it), keeping the indexes exact.
func (g *Graph) setEdge(k EdgeKey, e *Edge) {
	var old *Edge
	if ei, ok := g.edges[k]; ok {
		old = g.edgeSlots[ei].e
	}
	g.journalEdge(k, old)
	g.pending.Edges[k] = struct{}{}
	g.putEdge(k, e)
}

// putEdge puts e under k (nil removes it) without journaling the change.
func (g *Graph) putEdge(k EdgeKey, e *Edge) {
	if ei, had := g.edges[k]; had {
		if e != nil {
			// Same key, same ends: the index and the counts stand.
			g.edgeSlots[ei].e = e
			return
		}
		g.removeEdgeSlot(k, ei)
		return
	}
	if e == nil {
		return
	}
	from := g.endSlot(k.From)
	to := g.endSlot(k.To)
	var ei int32
	if n := len(g.freeEdges); n > 0 {
		ei = g.freeEdges[n-1]
		g.freeEdges = g.freeEdges[:n-1]
	} else {
		ei = int32(len(g.edgeSlots))
		g.edgeSlots = append(g.edgeSlots, edgeSlot{})
	}
	f, t := &g.ends[from], &g.ends[to]
	g.edgeSlots[ei] = edgeSlot{e: e, from: from, to: to, outPos: int32(len(f.out)), inPos: int32(len(t.in))}
	f.out = append(f.out, adjEntry{edge: ei, other: to})
	t.in = append(t.in, adjEntry{edge: ei, other: from})
	g.edges[k] = ei
	g.stats.Edges++
	if edgeShown(g.endTiers[from], g.endTiers[to]) {
		g.stats.ShownEdges++
	}
}

// removeEdgeSlot takes the edge k in slot ei out of the index.
func (g *Graph) removeEdgeSlot(k EdgeKey, ei int32) {
	x := g.edgeSlots[ei]
	f, t := &g.ends[x.from], &g.ends[x.to]
	if edgeShown(g.endTiers[x.from], g.endTiers[x.to]) {
		g.stats.ShownEdges--
	}
	g.stats.Edges--
	// Swap-remove from both lists, moving the last entry into the hole.
	last := f.out[len(f.out)-1]
	f.out[x.outPos] = last
	g.edgeSlots[last.edge].outPos = x.outPos
	f.out = f.out[:len(f.out)-1]
	last = t.in[len(t.in)-1]
	t.in[x.inPos] = last
	g.edgeSlots[last.edge].inPos = x.inPos
	t.in = t.in[:len(t.in)-1]
	delete(g.edges, k)
	g.edgeSlots[ei] = edgeSlot{}
	g.freeEdges = append(g.freeEdges, ei)
	g.releaseEnd(x.from)
	if x.to != x.from {
		g.releaseEnd(x.to)
	}
}

func (g *Graph) setNodeTomb(id string, t *Tombstone) {
	old, had := g.nodeTombs[id]
	g.journalRare(rareUndo{kind: undoNodeTomb, id: id, tomb: old, had: had})
	g.pending.NodeTombstones[id] = struct{}{}
	if t == nil {
		delete(g.nodeTombs, id)
	} else {
		g.nodeTombs[id] = *t
	}
}

func (g *Graph) setEdgeTomb(k EdgeKey, t *Tombstone) {
	old, had := g.edgeTombs[k]
	g.journalRare(rareUndo{kind: undoEdgeTomb, edge: k, tomb: old, had: had})
	g.pending.EdgeTombstones[k] = struct{}{}
	if t == nil {
		delete(g.edgeTombs, k)
	} else {
		g.edgeTombs[k] = *t
	}
}

func (g *Graph) setProgress(task string, state RawJSON) {
	old, had := g.progress[task]
	g.journalRare(rareUndo{kind: undoProgress, id: task, progress: old, had: had})
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

// NewChangeSet returns a change set that names nothing yet.
func NewChangeSet() ChangeSet {
	var c ChangeSet
	c.reset()
	return c
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
// Everything names every item of the graph and its metadata. Committing it
// writes the whole graph on any backend, as a migration or a copy between
// backends must; a per-item backend otherwise writes only what Pending names.
func (g *Graph) Everything() ChangeSet {
	var c ChangeSet
	c.reset()
	c.Meta = true
	for id := range g.allNodes() {
		c.Nodes[id] = struct{}{}
	}
	for k := range g.edges {
		c.Edges[k] = struct{}{}
	}
	for id := range g.nodeTombs {
		c.NodeTombstones[id] = struct{}{}
	}
	for k := range g.edgeTombs {
		c.EdgeTombstones[k] = struct{}{}
	}
	for task := range g.progress {
		c.Progress[task] = struct{}{}
	}
	return c
}

// Items names every item of d, as Everything does for a graph: a copy that
// replaces d names them so that a per-item backend deletes those it lacks.
func (d GraphData) Items() ChangeSet {
	var c ChangeSet
	c.reset()
	c.Meta = true
	for i := range d.Nodes {
		c.Nodes[d.Nodes[i].ID] = struct{}{}
	}
	for i := range d.Edges {
		c.Edges[d.Edges[i].Key()] = struct{}{}
	}
	for id := range d.NodeTombstones {
		c.NodeTombstones[id] = struct{}{}
	}
	for k := range d.EdgeTombstones {
		c.EdgeTombstones[k] = struct{}{}
	}
	for task := range d.Progress {
		c.Progress[task] = struct{}{}
	}
	return c
}

// Merge adds every item named by o to c.
func (c ChangeSet) Merge(o ChangeSet) {
	for id := range o.Nodes {
		c.Nodes[id] = struct{}{}
	}
	for k := range o.Edges {
		c.Edges[k] = struct{}{}
	}
	for id := range o.NodeTombstones {
		c.NodeTombstones[id] = struct{}{}
	}
	for k := range o.EdgeTombstones {
		c.EdgeTombstones[k] = struct{}{}
	}
	for task := range o.Progress {
		c.Progress[task] = struct{}{}
	}
}

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
	g.clearJournal()
	g.pending.reset()
	g.durableSeq = g.seq
}

// clearJournal empties the journal, keeping its room but none of the values
// it held.
func (g *Graph) clearJournal() {
	clear(g.nodeUndos)
	clear(g.edgeUndos)
	clear(g.rareUndos)
	g.journal = g.journal[:0]
	g.nodeUndos = g.nodeUndos[:0]
	g.edgeUndos = g.edgeUndos[:0]
	g.rareUndos = g.rareUndos[:0]
}

// Rollback returns the graph to its state at the last checkpoint, except the
// seq counter, which never goes back so that no seq is handed out twice.
// Because the counter moved, the metadata stays pending.
func (g *Graph) Rollback() {
	for _, j := range slices.Backward(g.journal) {
		switch j.kind {
		case undoNode:
			u := g.nodeUndos[j.i]
			g.putNode(u.id, u.old)
		case undoEdge:
			u := g.edgeUndos[j.i]
			g.putEdge(u.k, u.old)
		default:
			g.undoRare(g.rareUndos[j.i])
		}
	}
	g.clearJournal()
	moved := g.seq != g.durableSeq
	g.pending.reset()
	g.pending.Meta = moved
}

func (g *Graph) undoRare(u rareUndo) {
	switch u.kind {
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
