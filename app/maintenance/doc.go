// Package maintenance is the maintenance tick's duties on app's graphs,
// sessions and files (docs/design/storage.md, docs/design/trust.md#staleness):
// each graph's compaction, pruning and tombstone expiry as one write, the
// staleness round of the files the graphs recorded, the checkpoints of the
// repositories' journals, the unloading of idle graphs, the sessions' expiry
// and save, the pruning of the change logs. app's Service.Run drives it
// (Maintainer.Tick) and Close and the health report call it.
//
// It imports domain, ports and app's lower packages (app/graphstore,
// app/sessiontable, app/filecheck), nothing of app
// (docs/decisions/0102-graph-store-package.md).
package maintenance
