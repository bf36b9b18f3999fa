// Package recall is what kg's hooks bring back without being asked
// (docs/design/hooks.md): the preload of a session start (BuildPreload), the
// recall on a prompt (PromptText, RecallQuery, Relevance), the useful marks
// kg_useful keeps on a node (MarkUseful, UsefulMarks) and the kg session ids
// a transcript names (TranscriptSessionIDs).
//
// It chooses what to show; the graph, its ranking and its search are package
// domain's, and the lines it writes are domain/render's. Like domain it is
// pure: no I/O, no goroutines, no wall clock (docs/decisions/0088-domain-rooms.md).
package recall
