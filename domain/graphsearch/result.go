package graphsearch

import "github.com/kg-memory/kg/domain"

// Result is what Find found (docs/design/mcp.md#kg_search).
type Result struct {
	Hits []Hit // best first
	// Corrections are the terms that matched nothing, each with the word
	// of the graphs searched used in its place.
	Corrections []Correction
	// Nearest is given when nothing matched: for each term that matched
	// nothing and had no correction, the nearest spelling in the graphs,
	// if any is near enough.
	Nearest []Suggestion
}

// Hit is one result of Find.
type Hit struct {
	Key   domain.GraphKey // the graph the node was found in
	Node  *domain.Node
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
