package domain

import "slices"

// setTiers gives the nodes named in want their tiers at now through
// SetTiers, in one batch as a compaction run does, each change taking a seq
// in slot order. The tests of domain set tiers this way: compaction is a
// room (domain/compaction) they cannot import, the cycle
// (docs/decisions/0101-compaction-a-room.md).
func setTiers(g *Graph, now Micros, want map[string]Tier) {
	slots := g.NodeSlots()
	tiers := make([]Tier, len(slots))
	seqs := make([]uint64, len(slots))
	changed := uint64(0)
	for i, si := range slots {
		n := g.SlotNode(si)
		tiers[i] = n.Tier
		if t, ok := want[n.ID]; ok && t != n.Tier {
			tiers[i] = t
			changed++
			seqs[i] = changed
		}
	}
	g.SetTiers(now, slots, tiers, seqs)
}

// drawnTiers is a tier for each of ids, drawn by tier(id), for setTiers.
func drawnTiers(ids []string, tier func(id string) Tier) map[string]Tier {
	want := make(map[string]Tier, len(ids))
	for _, id := range slices.Sorted(slices.Values(ids)) {
		want[id] = tier(id)
	}
	return want
}
