// Package migrations holds the ordered, idempotent steps that move kg data
// between layouts and backends (docs/design/storage.md#migrations). Every step
// works through the storage ports, reads its source without changing or
// deleting it, and writes nothing when run a second time.
//
// # Steps, in order
//
//  1. ImportLegacy: the oldest layout (~/.claude/knowledge/user.json and
//     sessions.json, <project>/.claude/knowledge/graph.json) into a root.
//     Run only by `kg migrate legacy`, never automatically: the server
//     never reads outside its root. Items are merged, never overwritten
//     blindly: the higher version wins, ties keep what the root has, and a
//     deletion made in kg stands unless the legacy item is newer.
//  2. UpgradeSchema: schema 1 → 2. Backends read schema 1 (the replaced
//     server's files) and upgrade it in memory; this step writes the
//     upgrade back for every stored graph at once instead of at each
//     graph's next write.
//  3. Copy: JSON ⇄ bolt (`kg migrate --to …`), lossless: a graph loaded
//     back restores to the same data. The source is never deleted.
//
// Golden folders under testdata/ hold the input and the expected output of
// each step.
//
// # Caveats
//
//   - The steps assume nothing else writes either root meanwhile; the
//     command holds the roots' locks.
//   - ImportLegacy reads only nodes, edges and _meta.versions of a legacy
//     graph; other _meta keys of those files are not carried over.
//   - Legacy project graphs are found from the project folders given and
//     from the project paths of legacy sessions; a project named by neither
//     is not imported.
//   - Copy replaces a graph of the destination whole (items only the
//     destination has are deleted); graphs only the destination has are left
//     alone.
package migrations
