// Package mcp serves the eight kg tools (mcp.md) over MCP Streamable HTTP,
// on github.com/mark3labs/mcp-go in stateless mode: no Mcp-Session-Id is
// issued or needed, every POST stands alone, and tools/list and tools/call
// work without a prior initialize.
//
// Each tool is declared as a value (tools.go) with its input schema, its
// output schema (generated from the structured-output types of output.go)
// and its annotations; the schemas are snapshotted under testdata/. A
// handler decodes and checks the shape of its arguments (args.go), calls the
// app, and answers with a text written for an LLM (render.go) plus the same
// facts as structuredContent.
//
// Caveats:
//   - Failures a client can act on are tool results with isError set and a
//     one-line message (errors.go, the one table of error kinds); only a bug
//     becomes a JSON-RPC error.
//   - A handler must never send a notification: mcp-go would then switch the
//     reply from one JSON body to an event stream, which stateless clients
//     do not expect.
package mcp
