package domain

import (
	"iter"
	"slices"
	"strings"
	"sync"

	"github.com/kg-memory/kg/domain/search"
)

// Graph is one level's knowledge graph in memory, with the indexes that keep
// compaction and search cheap: an adjacency index by end, the token-estimate
// components, the tier counts and the trigram index of kg_search (domain/graphsearch). Every change goes through a handful of primitives
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
	endTiers  []EndTier // how each end counts for the shown-edge rule, by slot
	freeEnds  []int32
	edgeSlots []edgeSlot
	freeEdges []int32
	// movable lists the slots of the active and archived nodes, in no
	// order: the nodes a compaction run can move. In a mature graph most
	// nodes are orphaned, so a run that reads only these costs about the
	// budget, not the graph.
	movable []int32

	stats Stats

	// changes counts every change of a node or an edge (undone ones
	// too): two equal counts of one graph mean the same nodes and edges,
	// which is what lets a caller keep something derived from them
	// (Changes).
	changes uint64

	// idForms counts the nodes by the normalised form of their id
	// (NormalizedID), for the duplicate warning; kept by putNodeAt.
	idForms map[string]int32

	// search is the word index of kg_search (domain/graphsearch), nil until the first search
	// builds it (searchIndex); from then on the same primitives as the
	// adjacency index keep it. searchMu orders the searches that may race
	// to build it under the graph's read lock; the primitives run under
	// the write lock, so they read search without it.
	search   *search.Index
	searchMu sync.Mutex

	// What the changes since the last checkpoint replaced: journal orders
	// the entries, each kept in the typed list of its kind.
	journal   []undo
	nodeUndos []nodeUndo
	edgeUndos []edgeUndo
	rareUndos []rareUndo
	pending   ChangeSet // what changed since the last checkpoint
	// restored is not nil while pending names items that no journal
	// entry holds: what Restore left pending (journal.go).
	restored *restoredPending

	// tap records what one write replaced, for the change log
	// (StartChangeLog); nil when no write is being recorded.
	tap *changeTap
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

// Token costs (docs/design/compaction.md#token-estimate-of-a-graph).
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

// searchIndex returns the graph's search index, building it on the first
// call (docs/decisions/0053-search-index-on-first-search-and-block-max.md).
// Searches run side by side under the graph's read lock, so the first
// ones may race to build it: searchMu lets one build it and the others
// wait for it.
func (g *Graph) searchIndex() *search.Index {
	g.searchMu.Lock()
	defer g.searchMu.Unlock()
	if g.search == nil {
		g.search = buildSearchIndex(g, search.DefaultBlockShift, search.DefaultBlockMin)
	}
	return g.search
}

// Key returns the key of the graph.
func (g *Graph) Key() GraphKey { return g.key }

// Seq returns the last change sequence number handed out.
func (g *Graph) Seq() uint64 { return g.seq }

// Changes counts the changes of nodes and edges this graph has seen,
// journaled, undone by Rollback or not: while it stands still, so do the
// graph's nodes and edges (the seq does not say so: a rollback and a
// kg_useful mark change the graph without a new seq).
func (g *Graph) Changes() uint64 { return g.changes }

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

// HoldsNothing reports whether the graph holds no node, edge, tombstone,
// progress state or unknown metadata: nothing a store would have to keep.
// A graph that was never stored is not written while it holds nothing
// (docs/design/storage.md#folder-lookup).
func (g *Graph) HoldsNothing() bool {
	return g.nodeCount == 0 && len(g.edges) == 0 && len(g.nodeTombs) == 0 && len(g.edgeTombs) == 0 &&
		len(g.progress) == 0 && len(g.meta) == 0
}

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
	SortEdges(es)
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
		if a.Other == si { // self-loop, already listed
			continue
		}
		es = append(es, g.edgeSlots[a.edge].e)
	}
	SortEdges(es)
	return es
}

// IsNode reports whether end names a node of this graph.
func (g *Graph) IsNode(end string) bool {
	_, ok := g.node(end)
	return ok
}

// Shown reports whether the edge with key k is listed by the full read and
// charged to the budget (docs/design/compaction.md#shown-edges).
func (g *Graph) Shown(k EdgeKey) bool {
	from, fromIsNode := g.node(k.From)
	to, toIsNode := g.node(k.To)
	return EdgeShown(tierOf(from, fromIsNode), tierOf(to, toIsNode))
}

// nextSeq hands out the next change sequence number.
func (g *Graph) nextSeq() uint64 {
	g.seq++
	g.pending.Meta = true
	return g.seq
}

// SortEdges sorts es by key: (from, rel, to), the order of every listing.
func SortEdges(es []*Edge) {
	slices.SortFunc(es, func(a, b *Edge) int { return cmpEdgeKey(a.Key(), b.Key()) })
}
