// Package jsonfile is the default storage adapter: graphs and sessions as
// JSON files under one root, in the layout and format of the replaced
// server (storage.md), so an existing ~/.knowledge-graph loads unchanged.
//
//	user.json                    the user graph   (+ user.prev)
//	sessions.json                sessions         (+ sessions.prev)
//	aliases.json                 optional {"old-folder": "new-folder"}
//	projects/<folder>/graph.json a project graph  (+ graph.prev)
//
// Every save writes <stem>.tmp, fsyncs it, keeps the current file as
// <stem>.prev by a hard link, renames the tmp over the file and fsyncs the
// folder; a folder created for a save is fsynced with each parent up to
// the root. Commit returns only after that. All file operations go through
// the FS interface, so tests inject faults and record the order of
// operations.
//
// Loading recovers from damage: a missing file falls back to its .prev; a
// file that does not parse, or has a known field of the wrong type, falls
// back to its .prev and is kept as <stem>.corrupt-<unix time>; when
// neither loads the graph is unavailable and every other graph keeps
// working.
//
// # Caveats
//
//   - Commit rewrites the whole graph file whatever the change set names:
//     a write costs O(graph). Group commit (one Commit per batch, in the
//     app) is what keeps this cheap under load.
//   - Commits of one graph must not run concurrently (the app serialises
//     them); commits of different graphs may.
//   - Commit streams the file straight from the graph in one pass, in
//     chunks, without copying the graph or holding the file in memory: the
//     graph must not change during Commit (ports.GraphRepository says so).
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
//   - The store does not take <root>/.lock; package rootdir does.
//   - The project folder a project resolves to is cached for the life of
//     the Store: the root's .lock guarantees no other process renames
//     folders underneath it.
package jsonfile
