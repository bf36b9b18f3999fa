// Package search is kg_search (docs/design/mcp.md#kg_search): how a text is
// cut into the words search matches and how a query is cut into terms
// (text.go), a word's stem and the stop words (stem.go), the edit distance
// of the typo fallback, the lexicon's trigram index, WordGrams
// (wordgrams.go), built of a word's trigrams (grams.go), the table from
// trigram to set (gramtable.go) and the sets (postings.go); the word index a
// graph keeps, Index (index.go, checked by check.go); the ranking's formula
// (rank.go), the plan of a query against the indexes (plan.go) and the
// top-k search, Run (topk.go).
//
// The package imports nothing of kg: it knows a graph only by its slot
// numbers. The graph owns its Index and keeps it exact by feeding it each
// change of a node's text (Builder, Index.AddNode, RemoveNode, Rewrite,
// EndChanged), and Run reads the graph only through Names, to order ties
// and to find the node named like the query
// (docs/decisions/0083-search-text-a-leaf-package.md,
// docs/decisions/0087-search-index-in-its-own-package.md).
package search
