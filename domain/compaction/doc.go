// Package compaction keeps a graph within its token budget
// (docs/design/compaction.md): one run (Run, RunListing) archives the
// lowest-ranked active nodes down to the target, swaps clearly better archived
// ones back in, and orphans archived ids over the archived budget; Plan is the
// same run as a dry run, and Ranks explains where every node stands. The other
// tier moves are here too: Prune deletes the nodes orphaned past their grace,
// ExpireTombstones drops old tombstones, ArchiveNodes is a person's archive and
// RestoreTier an undo's way back. Every move comes out as a Move, with its
// Rank, in a Moves, and runs under a Policy: the budget, the graces and the
// scoring (docs/decisions/0113-compaction-policy-in-the-room.md).
//
// It reads and writes the graph through the slot-level API package domain
// keeps for it (Graph.NodeSlots, Graph.MovableSlots, Graph.SlotEdges,
// Graph.SetTiers, …), deletes through Graph.PruneNode and Graph.DropTombstones,
// and simulates tier changes with domain's shown-edge rule
// (domain.EdgeShown). Like domain it is pure: no I/O, no goroutines, no wall
// clock (docs/decisions/0101-compaction-a-room.md,
// docs/decisions/0111-tier-moves-in-compaction.md).
package compaction
