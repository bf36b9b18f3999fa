package domain

import "iter"

// The iterators below let a storage backend write a whole graph in its own
// order without copying it through Data (a 100k-node graph is rewritten on
// every commit of the JSON backend). They yield in no particular order and
// what they yield must not be modified.

// AllNodes yields every node, in every tier.
func (g *Graph) AllNodes() iter.Seq[*Node] {
	return func(yield func(*Node) bool) {
		for _, n := range g.allNodes() {
			if !yield(n) {
				return
			}
		}
	}
}

// ShownEdges yields every shown edge (Shown), in no particular order, for
// the full read (domain/fullread): one pass over the adjacency index, the
// rule read from the ends' tiers by slot, without a lookup of their ids.
func (g *Graph) ShownEdges() iter.Seq[*Edge] {
	return func(yield func(*Edge) bool) {
		for _, x := range g.edgeSlots {
			if x.e != nil && EdgeShown(g.endTiers[x.from], g.endTiers[x.to]) && !yield(x.e) {
				return
			}
		}
	}
}

// AllEdges yields every edge.
func (g *Graph) AllEdges() iter.Seq[*Edge] {
	return func(yield func(*Edge) bool) {
		for i := range g.edgeSlots {
			if e := g.edgeSlots[i].e; e != nil && !yield(e) {
				return
			}
		}
	}
}

// AllNodeTombstones yields the tombstone of every deleted node by its id.
func (g *Graph) AllNodeTombstones() iter.Seq2[string, Tombstone] {
	return func(yield func(string, Tombstone) bool) {
		for id, t := range g.nodeTombs {
			if !yield(id, t) {
				return
			}
		}
	}
}

// AllEdgeTombstones yields the tombstone of every deleted edge by its key.
func (g *Graph) AllEdgeTombstones() iter.Seq2[EdgeKey, Tombstone] {
	return func(yield func(EdgeKey, Tombstone) bool) {
		for k, t := range g.edgeTombs {
			if !yield(k, t) {
				return
			}
		}
	}
}

// AllProgress yields the stored state of every task.
func (g *Graph) AllProgress() iter.Seq2[string, RawJSON] {
	return func(yield func(string, RawJSON) bool) {
		for task, p := range g.progress {
			if !yield(task, p) {
				return
			}
		}
	}
}
