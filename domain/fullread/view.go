package fullread

import "github.com/kg-memory/kg/domain"

// View is what the full read shows of one graph, in the order it shows it.
type View struct {
	Active   []*domain.Node // active nodes by creation time, then id
	Archived []string       // archived (not orphaned) ids, by id
	Edges    []*domain.Edge // shown edges by (from, rel, to)
	Health   Health
}

// Health is the one-line summary of a graph in the full read:
// "12 nodes, 9 edges, 2 unconnected (17%), avg 0.8 edges/node, ~2310/4000 tokens".
type Health struct {
	Active, Archived, Orphaned int
	Nodes                      int     // active nodes: what the read shows in full
	Edges                      int     // shown edges
	Unconnected                int     // active nodes with no shown edge
	AvgEdgesPerNode            float64 // shown-edge ends that are active nodes / active nodes (0 when none)
	Estimate, MaxTokens        int
	OverBudget                 bool
}
