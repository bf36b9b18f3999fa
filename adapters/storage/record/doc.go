// Package record is the JSON encoding of what the storage adapters store,
// shared by every adapter that stores JSON bytes: the change log's batches
// (all of them) and the node, edge, tombstone and version records of bolt
// and postgres. It holds the stored format out of ports, which speaks in
// domain values, and writes it once (docs/decisions/0085-one-record-encoding.md).
// It also names a project in storage (ProjectSlug, ProjectHash), one rule for
// every backend (docs/design/storage.md#project-slugs,
// docs/decisions/0113-compaction-policy-in-the-room.md).
// A change here changes files and rows already stored: every record must
// encode exactly as before (the golden tests in this package hold it).
package record
