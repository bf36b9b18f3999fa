// Package apijson holds what the REST API and the WebSocket say alike: the
// JSON shapes of nodes, edges and compaction moves, and the error body with
// the one table that maps an error's kind to its HTTP status.
//
// Times are Unix seconds with a microsecond fraction, in fields whose names
// end in _ts, as the replaced server's files and API wrote them; a time that
// is not known is left out. A node carries its stored fields under their
// stored names (_created_ts, _last_read_ts, _archived, _orphaned_ts,
// _tier_seq) plus tier, version, seq and updated_ts.
package apijson
