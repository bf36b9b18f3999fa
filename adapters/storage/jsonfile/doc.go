// Package jsonfile is the default storage adapter: graphs and sessions as JSON
// files under one root, in the layout and format of the replaced server
// (docs/design/storage.md#root-and-layout), so an existing ~/.knowledge-graph
// loads unchanged.
//
// The format is encode.go, decode.go, jsonparse.go and record.go; the store
// is the rest. They share one package because the store saves through the
// encoder's parts (each loaded graph's cache of encoded nodes, the journal
// records), docs/decisions/0054-jsonfile-keeps-its-format.md.
//
//	user.json                    the user graph   (+ user.prev, user.journal)
//	sessions.json                sessions         (+ sessions.prev, sessions.journal)
//	aliases.json                 optional {"old-folder": "new-folder"}
//	projects/<folder>/graph.json a project graph  (+ graph.prev, graph.journal)
//
// A commit appends one record to the graph's journal, <stem>.journal, and
// fsyncs it: one JSON line with the batch's seqs and the whole content of
// every item it changed, checksummed with CRC-32C
// (docs/decisions/0011-json-journal.md). A checkpoint folds the journal
// into the file: it writes <stem>.tmp, fsyncs it, keeps the current file as
// <stem>.prev by a hard link, renames the tmp over the file, fsyncs the
// folder, then empties the journal and fsyncs it. It runs when the journal
// grows past the file (and 1 MiB), when the app calls Checkpoint (each
// maintenance tick, shutdown), and in place of an append when the graph has
// no whole file yet (its first save, which also claims its folder) or the
// batch names the whole graph or half of it (an import, a copy). A folder created for a save is
// fsynced with each parent up to the root. Commit returns only once the
// batch is durable. Sessions work the same way: a save appends the sessions
// that changed or went. All file operations go through the FS interface,
// so tests inject faults, record the order of operations and stop at any
// step as a kill -9 would.
//
// Loading recovers from damage: a missing file falls back to its .prev; a
// file that does not parse, or has a known field of the wrong type, falls
// back to its .prev and is kept as <stem>.corrupt-<unix time>; when
// neither loads the graph is unavailable and every other graph keeps
// working. The journal's records at or above the file's seq are then
// replayed; a torn last record (bytes after the last newline, never
// acknowledged) is dropped, and a whole line that is not a good record,
// the last one included, makes the graph unavailable (a JournalDamage
// names the line), a copy of the journal kept as
// <stem>.journal.corrupt-<unix time>. Damaged sessions are set
// aside the same way and the store starts with none.
//
// No operation follows a symbolic link inside the root: folders on the way
// are checked with Lstat, files and folders opened with O_NOFOLLOW. The
// root itself may be a link; Open resolves it once and the store works in
// its target.
//
// A whole-file write whose folder fsync fails after the rename puts the old
// file back (or removes the new one), so a refused save never shows after a
// restart.
//
// # Caveats
//
//   - Between checkpoints <stem>.json lags the journal: the replaced server
//     and git see a write only after the next tick.
//   - A checkpoint writes O(graph), streaming the file from the graph; the
//     encoded bytes of nodes that did not change since the last one are
//     copied rather than encoded again (the store keeps them: about half
//     the file's size in memory).
//   - Commits of one graph must not run concurrently (the app serialises
//     them); commits of different graphs may.
//   - A checkpoint streams the file straight from the graph in one pass, in
//     chunks, without copying the graph or holding the file in memory: the
//     graph must not change during Commit or Checkpoint (the ports say so).
//   - Graph files are read by a one-pass parser of the format
//     (jsonparse.go) rather than encoding/json, for speed
//     (docs/decisions/0010-json-codec.md). It accepts exactly valid JSON and
//     keeps encoding/json's reading of odd files: the last of repeated keys
//     wins, a null known field is absent, invalid UTF-8 becomes U+FFFD; a
//     differential fuzz test holds it to a typed encoding/json decoder.
//   - The first save of a project holds a root-wide lock while it claims
//     its folder, so that two projects with one folder name cannot both
//     take it; later saves do not.
//   - An edge tombstone whose "<from>-><to>:<rel>" key cannot be parsed
//     back (an end contains "->") also records "from", "to" and "rel":
//     a tombstone has no edge value to read them from. Files of the
//     replaced server never need this.
//   - Unknown fields of nodes, edges and sessions and unknown _meta keys
//     are kept, with insignificant whitespace removed on read and the
//     file's indentation applied on write; their inner key order is kept
//     as stored. Unknown top-level keys of a graph file and unknown fields
//     of version entries are not kept.
//   - Times are read exactly from their decimal text and rounded to the
//     nearest microsecond; they are written with exactly six decimals.
//   - No file is held open between calls: a journal is opened for each
//     append or truncation, so a server that has served thousands of
//     projects holds no descriptor for each. Release (ports.GraphReleaser),
//     which the app calls when it unloads a graph, drops what the store
//     keeps of it: its node cache, journal state and folder.
//   - The store does not take <root>/.lock; package rootdir does.
//   - The project folder a project resolves to is cached for the life of
//     the Store: the root's .lock guarantees no other process renames
//     folders underneath it. A folder deleted underneath is claimed again
//     by the next commit.
package jsonfile
