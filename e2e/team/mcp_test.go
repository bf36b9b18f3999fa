package team

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// mcpResult is a tool result as the tests read it.
type mcpResult struct {
	text    string
	isError bool
}

// sessionOf is the session id a kg_read's text ends with ("Session:
// <id>"); "" for none.
func sessionOf(text string) string {
	_, id, ok := strings.Cut(text, "\nSession: ")
	if !ok || strings.Contains(id, "\n") {
		return ""
	}
	return id
}

// tool calls an MCP tool on in over Streamable HTTP with a client of its
// own, carrying in's token, never sending initialize: every call stands
// alone, as Claude Code's do against a stateless server, so that a load
// balancer may send each to any server.
func (in *instance) tool(name string, args map[string]any) mcpResult {
	in.t.Helper()
	tr, err := transport.NewStreamableHTTP(in.url+"/", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + in.token}))
	if err != nil {
		in.t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithSession()) // no initialize: the server is stateless
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		in.t.Fatal(err)
	}
	res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		in.t.Fatalf("%s on %s: JSON-RPC error: %v", name, in.name, err)
	}
	r := mcpResult{isError: res.IsError}
	for _, ct := range res.Content {
		if tc, ok := ct.(mcpgo.TextContent); ok {
			r.text += tc.Text
		}
	}
	if res.StructuredContent != nil {
		in.t.Errorf("%s on %s: the result carries structuredContent, which Claude Code and Codex hand the model in place of the text", name, in.name)
	}
	return r
}

// ok is tool that fails the test on an error result.
func (in *instance) ok(name string, args map[string]any) mcpResult {
	in.t.Helper()
	r := in.tool(name, args)
	if r.isError {
		in.t.Fatalf("%s %v on %s: %s", name, args, in.name, r.text)
	}
	return r
}

// TestMCPAcrossServers: real MCP clients over Streamable HTTP, each call
// on whichever server, as behind a load balancer. A session started on A
// writes on B and reads its write on C at once (read-your-writes); another
// person's writes on C reach it through kg_sync once, wherever it syncs, and
// their user graph never does; kg_search on any server finds the shared
// project's nodes; and another person cannot use the session
// (docs/design/team.md#reads, #sessions-across-servers, #people-and-tokens).
func TestMCPAcrossServers(t *testing.T) {
	_, ins := team(t, 3, options{poll: time.Minute})
	aliceToken, bobToken := ins[0].newToken("alice", "write"), ins[0].newToken("bob", "write")
	var alice, bob []*instance
	for _, in := range ins {
		alice, bob = append(alice, in.as(aliceToken)), append(bob, in.as(bobToken))
	}
	const key = "github.com/acme/mcp"
	// kg mcp on alice's machine sends the key beside her cwd.
	r := alice[0].ok("kg_read", map[string]any{"cwd": "/home/alice/src/mcp", "project_key": key})
	sess := sessionOf(r.text)
	if sess == "" {
		t.Fatalf("kg_read on a started no session:\n%s", r.text)
	}
	// Bob, from his own checkout of the same repository, on c: c holds
	// the project graph from now on.
	r = bob[2].ok("kg_read", map[string]any{"cwd": "/Users/bob/code/mcp", "project_key": key})
	bobSess := sessionOf(r.text)
	alice[1].ok("kg_put_node", map[string]any{"session_id": sess, "level": "project", "id": "written-on-b",
		"gist": "alice's session wrote this on b", "touches": []any{"/home/alice/src/mcp/pay/pay.go"}})
	got := alice[2].ok("kg_read", map[string]any{"session_id": sess, "ids": []any{"written-on-b"}})
	if strings.Count(got.text, "=== NODE ") != 1 {
		t.Fatalf("kg_read by id on c right after the write on b: %s", got.text)
	}
	if !strings.Contains(got.text, "\ngist: alice's session wrote this on b\ntouches:\n  - pay/pay.go\nversion: ") {
		t.Errorf("the node read on c:\n%s\nwant its gist and the touch relative to the checkout", got.text)
	}

	if r := bob[2].ok("kg_read", map[string]any{"session_id": bobSess}); !strings.Contains(r.text, "written-on-b") {
		t.Errorf("bob's full read on c does not show alice's node:\n%s", r.text)
	}
	bob[2].ok("kg_put_node", map[string]any{"session_id": bobSess, "level": "project", "id": "bob-shared", "gist": "zeppelin facts for the team"})
	bob[0].ok("kg_put_node", map[string]any{"session_id": bobSess, "level": "user", "id": "bob-habit", "gist": "zeppelin habits of bob"})

	first := alice[0].ok("kg_sync", map[string]any{"session_id": sess})
	if !strings.Contains(first.text, "bob-shared") || strings.Contains(first.text, "written-on-b") || strings.Contains(first.text, "bob-habit") {
		t.Errorf("alice's sync on a:\n%s\nwant bob's project write only: not her own, not bob's user graph", first.text)
	}
	if again := alice[1].ok("kg_sync", map[string]any{"session_id": sess}); again.text != "No updates from other sessions" {
		t.Errorf("alice's sync on b right after the one on a:\n%s", again.text)
	}
	bob[1].ok("kg_delete_node", map[string]any{"session_id": bobSess, "id": "bob-shared"})
	if later := alice[2].ok("kg_sync", map[string]any{"session_id": sess}); !strings.Contains(later.text, "deleted node bob-shared") {
		t.Errorf("alice's sync on c after bob's deletion on b:\n%s", later.text)
	}

	hits := alice[1].ok("kg_search", map[string]any{"session_id": sess, "query": "zeppelin"})
	if strings.Contains(hits.text, "bob-habit") {
		t.Errorf("alice's search on b finds bob's user graph:\n%s", hits.text)
	}
	alice[2].ok("kg_put_node", map[string]any{"session_id": sess, "level": "project", "id": "zeppelin-route", "gist": "zeppelin route by alice"})
	if hits := bob[0].ok("kg_search", map[string]any{"session_id": bobSess, "query": "zeppelin"}); !strings.Contains(hits.text, "zeppelin-route") {
		t.Errorf("bob's search on a does not find alice's write on c:\n%s", hits.text)
	}
	if r := bob[1].tool("kg_sync", map[string]any{"session_id": sess}); !r.isError {
		t.Errorf("bob syncing alice's session on b: %s; want an error", r.text)
	}

	// kg_useful on a server the session never used, of a user node written
	// on another and a project node written on a third; marked once, asked
	// again elsewhere.
	alice[2].ok("kg_put_node", map[string]any{"session_id": sess, "level": "user", "id": "alice-habit", "gist": "alice's own habit"})
	if r := alice[1].ok("kg_useful", map[string]any{"session_id": sess, "ids": []any{"alice-habit", "zeppelin-route"}}); !strings.Contains(r.text, "Marked useful: alice-habit, zeppelin-route") {
		t.Errorf("kg_useful on b: %s", r.text)
	}
	alice[0].ok("kg_read", map[string]any{"session_id": sess, "ids": []any{"zeppelin-route"}}) // a's copy of the session is older
	if r := alice[0].ok("kg_useful", map[string]any{"session_id": sess, "ids": []any{"zeppelin-route"}}); !strings.Contains(r.text, "already marked: zeppelin-route") {
		t.Errorf("kg_useful on a of what was marked on b: %s; want it already marked", r.text)
	}
	if r := bob[2].tool("kg_useful", map[string]any{"session_id": sess, "ids": []any{"zeppelin-route"}}); !r.isError {
		t.Errorf("bob marking with alice's session on c: %s; want an error", r.text)
	}

	// kg_progress saved on a, read on c, which holds the graph already.
	alice[0].ok("kg_progress", map[string]any{"session_id": sess, "level": "project", "task_id": "migrate-db", "state": map[string]any{"step": 3}})
	if r := bob[2].ok("kg_progress", map[string]any{"session_id": bobSess, "level": "project", "task_id": "migrate-db"}); !strings.Contains(r.text, `"step":3`) && !strings.Contains(r.text, `"step": 3`) {
		t.Errorf("kg_progress read on c of the state saved on a: %s", r.text)
	}
}
