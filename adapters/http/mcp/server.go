package mcp

import (
	"log/slog"
	"net/http"

	"github.com/mark3labs/mcp-go/server"

	"github.com/kg-memory/kg/adapters/metrics"
)

// kgTools are the tools the server offers. A new tool is one file, named
// after it, and one line here.
func kgTools() []registered {
	return []registered{
		kgRead, kgSearch, kgPutNode, kgPutEdge,
		kgDeleteNode, kgDeleteEdge, kgSync, kgProgress, kgUseful,
	}
}

// instructions is what initialize tells a client about the server; clients
// that put it in the system prompt teach the model to start with kg_read
// and its cwd. TestInstructions checks that every tool it names exists.
const instructions = `kg is your persistent memory across conversations: a knowledge graph of distilled insights (nodes) joined by relationships (edges), in a user graph (what holds across projects) and one graph per project.
Start every conversation by calling kg_read with cwd set to the absolute path of the project root. It returns a session_id and the active memory of both graphs; pass that session_id to every later call.
The full read shows each active node's gist. kg_read with id shows a node in full and brings an archived one back; kg_search finds what the full read no longer shows.
Save what a later session should know with kg_put_node: the why, not the what, as a one-line gist with details in notes and the files it touches. Connect related nodes with kg_put_edge.
Call kg_sync to hear what other sessions changed, and keep the state of a long task in kg_progress so it survives a context reset. When a node changed what you did, say so with kg_useful.`

// New returns the MCP endpoint: the kg tools on mcp-go's Streamable HTTP
// transport in stateless mode. version is the binary's version, reported as
// the server version. Each tool call is recorded in m (nil: not recorded).
// Mount it at "/" behind the security middleware of the http adapter.
func New(version string, svc Service, log *slog.Logger, m *metrics.Metrics) http.Handler {
	s := server.NewMCPServer("kg", version,
		// The tool list never changes while the server runs.
		server.WithToolCapabilities(false),
		server.WithInstructions(instructions),
		// A panic in a tool is a bug: answer it as a JSON-RPC error rather
		// than dropping the connection.
		server.WithRecovery(),
	)
	for _, t := range kgTools() {
		d := t.declaration()
		s.AddTool(d, t.handler(svc, log, m.Tool(d.Name)))
	}
	return guard(server.NewStreamableHTTPServer(s,
		server.WithStateLess(true),
		// No server-sent stream in stateless mode: GET is 405
		// (docs/design/mcp.md#transport).
		server.WithDisableStreaming(true),
		// The http adapter checks Host against its own allow-list (with the
		// configured extra hosts) before this handler runs; mcp-go's own
		// loopback check would refuse those extra hosts.
		server.WithDisableLocalhostProtection(true),
		server.WithStreamableHTTPLogger(log),
	))
}
