package domain

import "slices"

// The slot-level API of a graph, for compaction (domain/compaction,
// docs/decisions/0101-compaction-a-room.md). A run reads every active and
// archived node with its costs and edges, several times over; reading them
// by slot, straight from the adjacency index, keeps it O((N + E) log N)
// without a single string lookup. A slot is an int32 below SlotCount; slot
// numbers mean nothing beyond one unchanged graph: any write may move them.

// SlotCount is the number of end slots, free ones included: every slot
// number is below it.
func (g *Graph) SlotCount() int { return len(g.ends) }

// NodeSlots returns the slots holding a node, in slot order.
func (g *Graph) NodeSlots() []int32 {
	out := make([]int32, 0, g.nodeCount)
	for si := range g.ends {
		if g.ends[si].node != nil {
			out = append(out, int32(si))
		}
	}
	return out
}

// MovableSlots returns the slots of the active and archived nodes, in slot
// order: the run then walks the index (and the nodes, allocated in about
// that order) front to back. When they are a good part of the graph, one
// pass over the slots is cheaper than sorting them.
func (g *Graph) MovableSlots() []int32 {
	if len(g.movable)*8 < len(g.ends) {
		return slices.Sorted(slices.Values(g.movable))
	}
	out := make([]int32, 0, len(g.movable))
	for si := range g.ends {
		if g.ends[si].movable != 0 {
			out = append(out, int32(si))
		}
	}
	return out
}

// NodeSlot returns the slot holding the node with id, for the moves
// compaction makes by id (compaction.ArchiveNodes, compaction.RestoreTier);
// false when the graph holds no such node.
func (g *Graph) NodeSlot(id string) (int32, bool) {
	si, ok := g.endIx[id]
	if !ok || g.ends[si].node == nil {
		return 0, false
	}
	return si, true
}

// SlotNode returns the node in slot si; nil when the slot's name is only
// an edge end (a reference) or the slot is free.
func (g *Graph) SlotNode(si int32) *Node { return g.ends[si].node }

// SlotCosts returns the two text costs of the node in slot si, as the
// estimate counts them: its gist's, and its gist's and notes'.
func (g *Graph) SlotCosts(si int32) (gist, notes int32) {
	e := &g.ends[si]
	return e.gistCost, e.notesCost
}

// SlotEdges returns the edges going out of slot si and coming in to it,
// each with the slot of its other end; a self-loop is in both. The slices
// are the index's own: read them, and do not hold them across a write.
func (g *Graph) SlotEdges(si int32) (out, in []SlotEdge) {
	e := &g.ends[si]
	return e.out, e.in
}

// SetTiers gives the node in slots[i] the tier tiers[i] where seqs[i] is not
// 0, at now, as one compaction run does
// (docs/design/compaction.md#one-compaction-run): seqs numbers the changes
// from 1 in the order they take their seqs, so the node takes the seq
// Seq()+seqs[i] as its TierSeq and keeps its version, and Seq advances by
// the highest. The changes are made in the order of slots; every change is
// journaled and pending like any write.
func (g *Graph) SetTiers(now Micros, slots []int32, tiers []Tier, seqs []uint64) {
	base, changed := g.seq, uint64(0)
	for _, n := range seqs {
		changed = max(changed, n)
	}
	g.growJournal(int(changed))
	for i, n := range seqs {
		if n != 0 {
			g.setTierSeq(slots[i], tiers[i], now, base+n)
		}
	}
	if changed > 0 {
		g.seq = base + changed
		g.pending.Meta = true
	}
}
