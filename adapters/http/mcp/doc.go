// Package mcp serves the kg tools (docs/design/mcp.md) over MCP Streamable
// HTTP, on github.com/mark3labs/mcp-go in stateless mode: no Mcp-Session-Id
// is issued or needed, every POST stands alone, and tools/list and
// tools/call work without a prior initialize.
//
// Each tool is a value of type tool (tool.go) in a file named after it
// (kg_read.go, …), which holds all of it: the name, description and
// annotations, the input schema and the argument struct it is decoded into
// (with the argument types of args.go), the function that calls the app,
// and the text written for an LLM, which is all a result carries (no
// outputSchema, no structuredContent: decision 0091). kgTools (server.go)
// lists the tools.
// The declarations are snapshotted under testdata/tools/.
//
// To add a tool: write kg_<name>.go with a tool value, add it to kgTools,
// run go test -update to write its snapshot, and describe it in
// docs/api.md.
//
// Caveats:
//   - Failures a client can act on are tool results with isError set and a
//     one-line message (errors.go, the one table of error kinds); only a bug
//     becomes a JSON-RPC error.
//   - A handler must never send a notification: mcp-go would then switch the
//     reply from one JSON body to an event stream, which stateless clients
//     do not expect.
package mcp
