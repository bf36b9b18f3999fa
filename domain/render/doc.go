// Package render writes the lines of the texts the model reads: the tools'
// answers, the preload of a session start, the recall above a prompt and
// the hooks' nudges (docs/decisions/0086-one-renderer.md). Choosing what a
// text shows is its caller's (domain, app, the MCP adapter); how each line
// looks is written here once, so that the full read and the preload list an
// edge alike, and a budget that measures a line measures the line written.
//
// It is a leaf: the standard library only, nothing of kg, so that domain
// (the preload), app (the recall and the nudges) and adapters/http/mcp (the
// tools) can all call it without breaking the layering
// (docs/architecture.md). Its functions take plain values, never graph
// types, and do no I/O.
package render
