// Package domain is the pure core of kg: the knowledge graph, its tiers, the
// token budget, scoring, compaction, search and the change bookkeeping that
// sync is built on. What builds on the graph through its API lives in
// rooms, subpackages that import this one: domain/recall (what the hooks
// show unasked), domain/merge (merging two nodes), domain/duplicates (the
// warning that a new node may repeat one), domain/stale (the files a node
// names and their judgement) and domain/undo (undoing a session's
// changes); this package imports none of them
// (docs/decisions/0088-domain-rooms.md).
//
// The package does no I/O, starts no goroutines and never reads the wall
// clock: every function that needs a time takes it as an argument (integer
// Unix microseconds, see Micros). That makes every rule here a deterministic
// function of its inputs, so the same graph and the same time give the same
// result on every machine and every storage backend.
//
// # Vocabulary
//
//   - A Graph holds the nodes and edges of one level: the user graph, or the
//     graph of one project (GraphKey).
//   - A Node is active, archived or orphaned (Tier). Only active nodes cost
//     tokens in the full read; compaction moves nodes down the tiers to keep
//     that cost under a budget, and reading a node by id brings it back.
//   - An Edge is identified by (from, to, rel). An end names a node when a node
//     with that id exists in the same graph; otherwise it is a reference (a
//     file path, a URL, a node of the user graph, an id not created yet).
//   - Every committed change takes the next value of the graph's sequence
//     counter (seq). Seqs are never reused, not even after a rollback.
//
// # Caveats
//
// A Graph is not safe for concurrent use; callers serialise access. A *Node
// or *Edge returned by a Graph is shared with it and must not be modified:
// the graph replaces items instead of changing them in place, which is what
// lets Rollback restore the last durable state cheaply.
package domain
