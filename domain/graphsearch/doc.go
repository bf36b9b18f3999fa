// Package graphsearch is a room of domain (docs/decisions/0088-domain-rooms.md,
// docs/decisions/0112-full-read-and-search-rooms.md): kg_search across graphs
// (docs/design/mcp.md#kg_search). Find checks the query and the limit, ranks
// the graphs by key, runs domain/search's ranking over them (search.Run) and
// reads each hit back as a graph's node. Each graph keeps its own search
// index up to date as it is written and hands it over through one exported
// method, Graph.SearchTarget; how the answer looks is domain/render's.
//
// Like domain, it is pure: no I/O, no wall clock, no goroutines.
package graphsearch
