package domain

import "github.com/kg-memory/kg/domain/search"

// The graph's side of kg_search (docs/design/mcp.md#kg_search). The index
// and the ranking are domain/search's, which knows a graph only by its
// slots: the graph feeds the index a node's own text (search.Doc) and the
// names of the ends that are part of it, and the search reads a hit's id
// and the node named like the query through search.Names
// (docs/decisions/0087-search-index-in-its-own-package.md).

// SearchTarget returns g as a target of kg_search's ranking (search.Run),
// for domain/graphsearch (docs/decisions/0112-full-read-and-search-rooms.md):
// its index, built now if it was not yet (the first search of a graph builds
// it), the names of its slots, its slot count, whether it is the user graph,
// and rank, its place in the order of the graphs searched, the last
// tie-break of hits. A hit's node is read back with SlotNode. After the
// index is built, a target only reads the graph, so searches may run side by
// side under a graph's read lock.
func (g *Graph) SearchTarget(rank int) search.Target {
	return search.Target{Index: g.searchIndex(), Names: (*searchNames)(g), Slots: len(g.ends), User: g.key.Level == LevelUser, Rank: rank}
}

// searchNames is a graph as the search reads its names (search.Names).
type searchNames Graph

// Name returns the name of slot si.
func (n *searchNames) Name(si int32) string { return n.ends[si].name }

// NodeSlot returns the slot of the node of id.
func (n *searchNames) NodeSlot(id string) (int32, bool) {
	si, ok := n.endIx[id]
	return si, ok && n.ends[si].node != nil
}

// buildSearchIndex indexes every node of g at once, in slot order.
func buildSearchIndex(g *Graph, blockShift uint8, blockMin int32) *search.Index {
	b := search.NewBuilder(g.nodeCount, blockShift, blockMin)
	var ends []string // reused: the build allocates nothing per node
	for si := range g.ends {
		if n := g.ends[si].node; n != nil {
			d := docOf(n)
			ends = g.appendEndNames(ends[:0], int32(si))
			b.Add(int32(si), &d, ends)
		}
	}
	return b.Index()
}

// docOf returns the text of node n that is its own.
func docOf(n *Node) search.Doc {
	return search.Doc{ID: n.ID, Gist: n.Gist, Notes: n.Notes, Touches: n.Touches}
}

// A node's text (docs/design/mcp.md#kg_search) is its own fields and the
// ends of its edges that are not nodes of its graph: file paths,
// artifacts, ids not created yet, and, from a project graph, ids of the
// user graph. An end counts once per edge. So the text of a node changes
// when it is written, when an edge between it and a reference is put or
// deleted, and when a node named like one of its ends is created or
// deleted: indexNode and indexEdge tell the index, from the primitives
// that keep the adjacency index, whenever the index exists.

// appendEndNames appends to names those of the far ends of the edges of
// node slot si that are not nodes: the ends that are part of the node's
// text, once per edge. Whether an end is a node is read from the graph's
// endTiers, one byte per slot, rather than from the slots themselves.
func (g *Graph) appendEndNames(names []string, si int32) []string {
	s := &g.ends[si]
	for _, list := range [2][]SlotEdge{s.out, s.in} {
		for _, a := range list {
			if a.Other != si && g.endTiers[a.Other] == EndRef {
				names = append(names, g.ends[a.Other].name)
			}
		}
	}
	return names
}

// indexNode tells the index that slot si, whose node was old, now holds n
// (either may be nil); the graph has already put n in the slot.
func (g *Graph) indexNode(si int32, old, n *Node) {
	ix := g.search
	switch {
	case old != nil && n != nil:
		od, nd := docOf(old), docOf(n)
		ix.Rewrite(si, &od, &nd)
	case n != nil:
		// A new node: its text is its fields and its ends, and it is no
		// longer an end in the text of its neighbours.
		d := docOf(n)
		ix.AddNode(si, &d, g.appendEndNames(nil, si))
		g.neighbourEnds(si, false)
	case old != nil:
		// A node gone: its text goes, and its name becomes an end in the
		// text of its neighbours.
		d := docOf(old)
		ix.RemoveNode(si, &d, g.appendEndNames(nil, si))
		g.neighbourEnds(si, true)
	}
}

// neighbourEnds adds (added) or takes away the name of slot si in the text
// of every node at the far end of one of its edges, once per edge.
func (g *Graph) neighbourEnds(si int32, added bool) {
	s := &g.ends[si]
	for _, list := range [2][]SlotEdge{s.out, s.in} {
		for _, a := range list {
			if a.Other != si && g.endTiers[a.Other] != EndRef {
				g.search.EndChanged(a.Other, s.name, added)
			}
		}
	}
}

// indexEdge tells the index that an edge between slots from and to was put
// (added true) or deleted; the graph's adjacency lists already say so.
func (g *Graph) indexEdge(from, to int32, added bool) {
	if from == to {
		return
	}
	fromNode, toNode := g.ends[from].node != nil, g.ends[to].node != nil
	if fromNode == toNode {
		return // two nodes, or two references: no node's text changes
	}
	si, e := from, to
	if toNode {
		si, e = to, from
	}
	g.search.EndChanged(si, g.ends[e].name, added)
}
