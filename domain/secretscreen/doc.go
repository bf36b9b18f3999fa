// Package secretscreen screens a write for secrets (docs/design/trust.md#secrets):
// the modes a setting chooses (Mode), the walk over a node's, an edge's or an
// import document's fields with the scanner of domain/secrets (Node, Edge,
// Import), the refusal, an invalid domain.Error naming the field, and the scan
// of every item a graph holds (Scan, for kg doctor --secrets). The graph's
// writes never call it: the use cases and domain/merge screen their input
// before they write.
// Like domain it is pure: no I/O, no goroutines, no wall clock
// (docs/decisions/0101-compaction-a-room.md).
package secretscreen
