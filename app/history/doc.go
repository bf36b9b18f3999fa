// Package history reads the graphs' change logs and undoes from them
// (docs/design/trust.md#history-and-undo): a page of one graph's log, and
// the undo of a session's changes or a seq range, graph by graph, each in a
// write of its own through the store's committer. app's Service.History and
// Service.Undo resolve the request's scope and the graphs it covers, then
// call Log; the maintenance tick prunes the logs up to Log.NotBefore.
//
// It imports domain, ports and app/graphstore, nothing of app
// (docs/decisions/0107-history-room.md).
package history
