package domain

// View is what the full read shows of one graph, in the order it shows it.
type View struct {
	Active   []*Node  // active nodes by creation time, then id
	Archived []string // archived (not orphaned) ids, by id
	Edges    []*Edge  // shown edges by (from, rel, to)
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

// SearchResult is what Search found (docs/design/mcp.md#kg_search).
type SearchResult struct {
	Hits []SearchHit // best first
	// Corrections are the terms that matched nothing, each with the word
	// of the graphs searched used in its place.
	Corrections []Correction
	// Nearest is given when nothing matched: for each term that matched
	// nothing and had no correction, the nearest spelling in the graphs,
	// if any is near enough.
	Nearest []Suggestion
}

// SearchHit is one result of Search.
type SearchHit struct {
	Key   GraphKey // the graph the node was found in
	Node  *Node
	Score float64 // BM25 score (docs/design/mcp.md#kg_search)
	// Matched are the terms through which the node scored, in query order:
	// a query term, or the word a correction used in its place.
	Matched []string
}

// Correction is a query term that matched nothing and the word searched
// for in its place.
type Correction struct {
	Term, Used string
}

// Suggestion is a query term that matched nothing and the nearest word of
// the graphs searched.
type Suggestion struct {
	Term, Nearest string
}
