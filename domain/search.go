package domain

import (
	"slices"

	"github.com/kg-memory/kg/domain/search"
)

// The graph's side of kg_search (docs/design/mcp.md#kg_search). The index
// and the ranking are domain/search's, which knows a graph only by its
// slots: the graph feeds the index a node's own text (search.Doc) and the
// names of the ends that are part of it, and the search reads a hit's id
// and the node named like the query through search.Names
// (docs/decisions/0087-search-index-in-its-own-package.md).

// Search finds the nodes of graphs that match query
// (docs/design/mcp.md#kg_search) and returns at most limit hits, best first,
// with the corrections it used and, when nothing matched, the nearest
// spelling of each term that matched nothing (search.Run says how). Hits
// are sorted by score (descending), then level (user first), then id, then
// project. Every tier is searched. Search has no side effects: nothing is
// promoted or stamped.
//
// The query must pass ValidateQuery. A limit of 0 means DefaultSearchLim; a
// limit above MaxSearchLimit is clamped to MaxSearchLimit, because a search
// is a read without side effects and "the most you may have" is the useful
// answer to asking for more; a negative limit is an invalid-argument error
// naming "limit". Nil graphs are skipped.
//
// A graph's first search builds its index (Graph.searchIndex); after that,
// Search only reads the graphs and their indexes, so searches may run side
// by side under a graph's read lock.
func Search(graphs []*Graph, query string, limit int) (SearchResult, error) {
	res, _, err := searchWithWork(graphs, query, limit)
	return res, err
}

// searchWithWork is Search, and also says what it read (search.Work).
func searchWithWork(graphs []*Graph, query string, limit int) (SearchResult, search.Work, error) {
	if err := ValidateQuery("query", query); err != nil {
		return SearchResult{}, search.Work{}, err
	}
	switch {
	case limit < 0:
		return SearchResult{}, search.Work{}, Invalidf("limit", "%d must be between 0 (default %d) and %d", limit, DefaultSearchLim, MaxSearchLimit)
	case limit == 0:
		limit = DefaultSearchLim
	case limit > MaxSearchLimit:
		limit = MaxSearchLimit
	}
	found := search.Run(searchTargets(graphs), query, limit)
	res := SearchResult{Hits: make([]SearchHit, len(found.Hits))}
	for i, h := range found.Hits {
		g := graphs[h.Target]
		res.Hits[i] = SearchHit{Key: g.key, Node: g.ends[h.Slot].node, Score: h.Score, Matched: h.Matched}
	}
	for _, c := range found.Corrections {
		res.Corrections = append(res.Corrections, Correction{Term: c.Term, Used: c.Used})
	}
	for _, s := range found.Nearest {
		res.Nearest = append(res.Nearest, Suggestion{Term: s.Term, Nearest: s.Nearest})
	}
	return res, found.Work, nil
}

// searchTargets returns the graphs as search targets, building the indexes
// not built yet; a nil graph is a target without an index. A graph's rank
// is its place in the order of graph keys, the last tie-break of hits.
func searchTargets(graphs []*Graph) []search.Target {
	byKey := make([]int, 0, len(graphs))
	for i, g := range graphs {
		if g != nil {
			byKey = append(byKey, i)
		}
	}
	slices.SortStableFunc(byKey, func(a, b int) int { return cmpGraphKey(graphs[a].key, graphs[b].key) })
	ts := make([]search.Target, len(graphs))
	for rank, i := range byKey {
		if rank > 0 && cmpGraphKey(graphs[byKey[rank-1]].key, graphs[i].key) == 0 {
			rank = ts[byKey[rank-1]].Rank
		}
		g := graphs[i]
		ts[i] = search.Target{Index: g.searchIndex(), Names: (*searchNames)(g), Slots: len(g.ends), User: g.key.Level == LevelUser, Rank: rank}
	}
	return ts
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
