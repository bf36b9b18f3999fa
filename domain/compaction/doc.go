// Package compaction keeps a graph within its token budget
// (docs/design/compaction.md): one run (Run, RunListing) archives the
// lowest-ranked active nodes down to the target, swaps clearly better archived
// ones back in, and orphans archived ids over the archived budget; Plan is the
// same run as a dry run, and Ranks explains where every node stands.
//
// It reads and writes the graph through the slot-level API package domain
// keeps for it (Graph.NodeSlots, Graph.MovableSlots, Graph.SlotEdges,
// Graph.SetTiers, …) and simulates tier changes with domain's shown-edge rule
// (domain.EdgeShown). Pruning and the expiry of tombstones stay graph methods:
// they delete. Like domain it is pure: no I/O, no goroutines, no wall clock
// (docs/decisions/0101-compaction-a-room.md).
package compaction
