// Package fullread is a room of domain (docs/decisions/0088-domain-rooms.md,
// docs/decisions/0112-full-read-and-search-rooms.md): what the full read of
// one graph shows (docs/design/mcp.md#full-read), in the order it shows it,
// and the health line that sums it up. It reads the graph through its
// exported reads (Graph.AllNodes, Graph.ShownEdges, Graph.Stats); how the
// read looks is domain/render's, which graphs it reads app's.
//
// Like domain, it is pure: no I/O, no wall clock, no goroutines.
package fullread
