// Package graphstore is the multi-project store of loaded graphs that
// app's use cases, hooks and maintenance tick share: the cache of graphs,
// each behind its own lock (Entry), loaded on first use and unloaded when
// idle or over the bound of loaded nodes; each graph's committer, which
// groups the writes that arrive during a save into one batch
// (docs/design/storage.md#group-commit); team mode's catch-up, write order
// and listener (docs/design/team.md); and the record of what fails to save
// (Failing), which the health report reads.
//
// It imports domain and ports, nothing of app: a write's principal and the
// sessions' lowest seq reach it as functions in Deps
// (docs/decisions/0102-graph-store-package.md).
package graphstore
