// Package codec turns the bytes of the files and journal records the json
// store writes into domain and port values and back: the graph file
// (docs/design/storage.md#graph-file-format), a graph journal record, and
// the sessions file and its records. It does no I/O but write to the
// io.Writer WriteGraph is given; the jsonfile package owns the files, their
// locks and their crash ordering (docs/decisions/0090-jsonfile-codec.md).
package codec
