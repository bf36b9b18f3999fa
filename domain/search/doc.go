// Package search holds the parts of kg_search that know nothing of a graph
// (docs/design/mcp.md#kg_search): how a text is cut into the words search
// matches and how a query is cut into terms (text.go), a word's stem and the
// stop words (stem.go), the edit distance of the typo fallback, and the
// lexicon's trigram index, WordGrams (wordgrams.go), built of a word's
// trigrams (grams.go), the table from trigram to set (gramtable.go) and the
// sets (postings.go); and the ranking's formula: BM25's pieces, the weights of
// a word's kinds of match, which terms are weak and how far a typo may be
// (rank.go).
//
// The package imports nothing of kg: domain's search index, which the graph
// keeps exact through its own primitives, is built of these pieces, and the
// ranking reads them (docs/decisions/0083-search-text-a-leaf-package.md).
package search
