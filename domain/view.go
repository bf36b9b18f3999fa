package domain

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

// SyncItem is one change reported by ChangesSince.
type SyncItem struct {
	Seq     uint64
	TS      Micros   // when the change was made
	Session string   // the session that made it; "" for none
	Node    *Node    // an upserted node (current content)
	Edge    *Edge    // an upserted edge (current content)
	Deleted bool     // a deletion: NodeID or EdgeKey names the item
	NodeID  string   // for a deleted node
	EdgeKey *EdgeKey // for a deleted edge
}

// SyncReport is what changed in one graph within a seq range.
type SyncReport struct {
	Items []SyncItem // by seq
	// Compaction counts the tier changes (TierSeq in range) by the node's
	// current tier, and pruned node tombstones in range.
	Archived, Restored, Orphaned, Pruned int
}
