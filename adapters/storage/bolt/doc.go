// Package bolt stores kg's graphs and sessions in one bbolt file,
// <root>/kg.db, item by item, so that a write costs O(items changed) rather
// than O(graph) as a JSON file rewrite does.
//
// # Layout
//
//	kg                      format = "1"
//	user                    the user graph (a graph bucket)
//	projects/<path>         one graph bucket per project, keyed by its canonical path
//	sessions/<id>           one JSON record per session
//	quarantine/<t>/sessions damaged sessions set aside at unix time t, kept as they were
//
// A graph bucket has the sub-buckets nodes (by id), edges (by an encoded
// (from, to, rel) key), node_tombstones, edge_tombstones, progress (by task
// id, the raw state) and meta (seq, schema, project_path, slug, and each
// unknown _meta key under "x:<name>"). Items are JSON records owned by this
// package (encode.go): times are integer Unix microseconds, unknown fields
// are kept byte for byte.
//
// # Writes
//
// Commit writes exactly the items named by the ChangeSet in one Update
// transaction: an item present in the graph is put, an absent one deleted.
// The metadata is written when the ChangeSet says so, and only the values
// that changed (normally just seq). A committed bbolt transaction is
// durable (bbolt fsyncs before Update returns).
//
// bbolt's free list is kept in memory (a hash map) and written only by
// Close, not by every commit: its size grows with the file's free pages, and
// writing it cost a write at 100k nodes more than the rest of the commit. A
// file left without it (kill -9) has it rebuilt from the pages at the next
// Open; while pages are damaged it is written with every commit again
// (docs/decisions/0040-bolt-free-list-in-memory.md).
//
// # Caveats
//
//   - The file is locked by the process that opened it; a second Open waits
//     at most Options.Timeout and then fails with an unavailable error. The
//     root's .lock (adapters/rootdir) is still the primary guard.
//   - Open refuses a file it must not open (empty, truncated, unreadable
//     meta pages or free list, pages in use and free, a symbolic link, a
//     file left without its free list that has damaged pages) and
//     reads every page once before writing anything; damaged pages make
//     only the graphs under them unavailable (Damage lists them). Every
//     call turns bbolt's panic on a damaged page into an unavailable error
//     wrapping ports.ErrDamaged (damage.go, docs/decisions/0007).
//   - An item that does not decode makes its whole graph unavailable, not
//     just the item: serving a graph with a hole would let compaction and
//     sync act on a wrong picture. Other graphs are unaffected.
//   - The slug of a project is fixed at its first commit (slug, or
//     slug-hash when another project holds it) and never changes.
//   - bbolt keys cannot be empty: a node whose id is the empty string (only
//     a hand-made legacy file could hold one) cannot be committed.
//   - Values read in a transaction are copied before it ends; nothing this
//     package returns points into the memory map.
package bolt
