// Package metrics is kg's Prometheus instrumentation: every series the
// server exports at GET /metrics is declared in this package
// (docs/operations.md#metrics lists them), on a registry that the server
// owns rather than the process-wide default one.
//
// *Metrics implements ports.Metrics, which the app calls at the few points
// an operator measures (write batches and saves, compaction, sessions);
// the HTTP side records requests and tool calls through its methods, and
// what the server holds now (sessions, nodes per graph, WebSocket clients)
// is read from a State function at each scrape. Storage backends add
// their own collectors: Fsync (json) and BoltWrites (bolt).
//
// The methods the HTTP side calls are nil-safe: a nil *Metrics records
// nothing, so handlers built without metrics (in tests) need no stand-in.
package metrics
