// Package app holds the use cases of kg and the machinery they share: the
// multi-project store of loaded graphs, the per-graph committer, the
// sessions and the maintenance loop. It talks to the outside only through
// the ports.
//
// # The write path
//
// A use case resolves its scope (session, project), loads the graph if
// needed, and hands a change to the graph's committer (commit.go). The
// committer takes the queued changes as one batch: under the graph's write
// lock it applies the pending read stamps, then each change in arrival
// order with its own clock read and its own compaction run; it then commits
// the batch once while holding only the read lock, so reads go on during
// the I/O. On success the graph is checkpointed, every caller is
// acknowledged and the events are published; on failure the graph rolls
// back (its seqs are not reused) and every caller of the batch gets an
// unavailable error. Writes that arrive during a save form the next batch.
//
// # Reads
//
// Reads take a graph's read lock and never wait on disk. A read by id of an
// active node leaves its read stamp in a small map that the next batch or
// tick applies; a read that promotes a node is a write and waits for it.
//
// # Caveats
//
//   - Only the committer changes a graph. Anything else that needs a change
//     (maintenance, promotion, Close's flush) goes through it.
//   - When several graphs' read locks are held at once, they are taken user
//     graph first, then projects by path (store.loaded's order), so readers
//     and committers cannot deadlock. No code takes a graph lock while
//     holding the session table's lock.
//   - A graph that fails to load is not cached: the next request retries,
//     and Health lists it until a load succeeds. A panic anywhere in a
//     graph's load or committer is contained: the load fails, or the batch
//     fails and the graph is dropped from the cache to be reloaded from
//     what is durable (docs/decisions/0008).
//   - A project graph with no request for Config.IdleUnload is unloaded by
//     the maintenance tick once all it holds is durable. A write or read
//     stamp that still holds its entry goes through the cache again.
package app
