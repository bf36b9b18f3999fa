package domain

import "unicode/utf8"

// The adjacency index and the primitives: every change of a graph's state
// goes through setNode, setEdge, setNodeTomb, setEdgeTomb and setProgress,
// which keep the index, the search index, the tier counts and the estimate
// exact and journal what they replace.

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
	// movable is 1 + the slot's position in Graph.movable while its node
	// is active or archived; 0 otherwise.
	movable int32
	out, in []SlotEdge // the edges from and to this end
}

// SlotEdge is an edge in an end's out or in list, with the slot of its
// Other end (this end's own slot for a self-loop).
type SlotEdge struct{ edge, Other int32 }

// edgeSlot is one edge of the adjacency index, with the slots of its ends
// and its positions in their out and in lists, so that removing it costs
// O(1). A free slot has a nil edge.
type edgeSlot struct {
	e             *Edge
	from, to      int32
	outPos, inPos int32
}

// EndTier is how an edge end counts for the shown-edge rule
// (docs/design/compaction.md#shown-edges): a reference (not a
// node of the graph), or a node of one of the three tiers. Compaction
// (domain/compaction) simulates tier changes with it.
type EndTier uint8

// The four kinds of edge end.
const (
	EndRef EndTier = iota // not a node of this graph
	EndActive
	EndArchived
	EndOrphaned
)

func tierOf(n *Node, isNode bool) EndTier {
	if !isNode {
		return EndRef
	}
	return TierEnd(n.Tier)
}

// TierEnd is how a node of tier t counts as an edge end.
func TierEnd(t Tier) EndTier {
	switch t {
	case Active:
		return EndActive
	case Archived:
		return EndArchived
	}
	return EndOrphaned
}

// EdgeShown is the shown-edge rule: an edge is shown, and costs EdgeTokens,
// when neither end is orphaned and one end is active or both are
// references.
func EdgeShown(from, to EndTier) bool {
	if from == EndOrphaned || to == EndOrphaned {
		return false
	}
	if from == EndActive || to == EndActive {
		return true
	}
	return from == EndRef && to == EndRef
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
		if a.Other != si { // a self-loop is listed once
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
		g.endTiers = append(g.endTiers, EndRef)
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
	g.changes++
	s := &g.ends[si]
	old := s.node
	if old != nil {
		g.stats.addNode(old.Tier, s.gistCost, s.notesCost, -1)
		g.nodeCount--
	}
	if (old == nil) != (n == nil) {
		g.noteIDForm(s.name, int32(b2i(n != nil)*2-1))
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
	if m := after == EndActive || after == EndArchived; m != (s.movable != 0) {
		g.setMovable(si, m)
	}
	if g.search != nil {
		g.indexNode(si, old, n)
	}
	if before == after {
		return // the shown state of an edge depends on its ends' tiers only
	}
	// Re-judge each edge touching the node; a self-loop has it at both
	// ends and is judged with the out-edges.
	tiers := g.endTiers
	d := 0
	for _, a := range s.out {
		if a.Other == si {
			d += b2i(EdgeShown(after, after)) - b2i(EdgeShown(before, before))
			continue
		}
		o := tiers[a.Other]
		d += b2i(EdgeShown(after, o)) - b2i(EdgeShown(before, o))
	}
	for _, a := range s.in {
		if a.Other == si {
			continue
		}
		o := tiers[a.Other]
		d += b2i(EdgeShown(o, after)) - b2i(EdgeShown(o, before))
	}
	g.stats.ShownEdges += d
}

// setMovable adds slot si to the movable nodes, or takes it out.
func (g *Graph) setMovable(si int32, movable bool) {
	s := &g.ends[si]
	if movable {
		g.movable = append(g.movable, si)
		s.movable = int32(len(g.movable))
		return
	}
	// Swap-remove: the last entry takes the hole.
	pos := s.movable - 1
	last := g.movable[len(g.movable)-1]
	g.movable[pos] = last
	g.ends[last].movable = pos + 1
	g.movable = g.movable[:len(g.movable)-1]
	s.movable = 0
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
	g.putEdge(k, e)
}

// putEdge puts e under k (nil removes it) without journaling the change.
func (g *Graph) putEdge(k EdgeKey, e *Edge) {
	g.changes++
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
	f.out = append(f.out, SlotEdge{edge: ei, Other: to})
	t.in = append(t.in, SlotEdge{edge: ei, Other: from})
	g.edges[k] = ei
	g.stats.Edges++
	if EdgeShown(g.endTiers[from], g.endTiers[to]) {
		g.stats.ShownEdges++
	}
	if g.search != nil {
		g.indexEdge(from, to, true)
	}
}

// removeEdgeSlot takes the edge k in slot ei out of the index.
func (g *Graph) removeEdgeSlot(k EdgeKey, ei int32) {
	x := g.edgeSlots[ei]
	f, t := &g.ends[x.from], &g.ends[x.to]
	if EdgeShown(g.endTiers[x.from], g.endTiers[x.to]) {
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
	if g.search != nil {
		g.indexEdge(x.from, x.to, false)
	}
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
