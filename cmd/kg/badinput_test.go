package main

// Bad input through both transports of a real server (runServer, a real root,
// both backends): every limit of docs/design/model.md#identifiers-and-limits
// breached, through MCP and through REST from one table, and what each
// transport refuses on its own (bodies that are not JSON, not UTF-8, too large;
// malformed JSON-RPC). Each refusal must name the field and the limit, and
// nothing may change: the graphs are read back after every case, and again
// after a restart.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
)

// badInput is one breach of docs/design/model.md#identifiers-and-limits, sent
// through both transports. args are the tool's arguments, in MCP's names;
// session_id (and level for the writes) are added. REST sends the same fields
// to the route that does what the tool does.
type badInput struct {
	name   string
	tool   string
	args   map[string]any
	field  string // the field the error names
	detail string // a part of the message: the size and the limit, or the rule
	// restField and restDetail replace field and detail for REST where it
	// says it otherwise (project_path for MCP's cwd; an argument the MCP
	// adapter requires before the domain sees it).
	restField, restDetail string
	mcpDetail             string
}

func badInputs() []badInput {
	many := func(n int, s string) []any {
		l := make([]any, n)
		for i := range l {
			l[i] = s
		}
		return l
	}
	node := func(kv ...any) map[string]any {
		a := map[string]any{"id": "keep", "gist": "changed"}
		for i := 0; i+1 < len(kv); i += 2 {
			a[kv[i].(string)] = kv[i+1]
		}
		return a
	}
	edge := func(kv ...any) map[string]any {
		a := map[string]any{"from": "keep", "to": "src/keep.go", "rel": "touches", "notes": []any{"changed"}}
		for i := 0; i+1 < len(kv); i += 2 {
			a[kv[i].(string)] = kv[i+1]
		}
		return a
	}
	progress := func(kv ...any) map[string]any {
		a := map[string]any{"task_id": "kept-task", "state": map[string]any{"step": 99}}
		for i := 0; i+1 < len(kv); i += 2 {
			a[kv[i].(string)] = kv[i+1]
		}
		return a
	}
	return []badInput{
		// node id
		{name: "id over 128", tool: "kg_put_node", args: node("id", strings.Repeat("i", 129)), field: "id", detail: "129 chars, limit 128"},
		{name: "id of 129 code points", tool: "kg_put_node", args: node("id", "a"+strings.Repeat("é", 128)), field: "id", detail: "129 chars, limit 128"},
		{name: "empty id", tool: "kg_put_node", args: node("id", ""), field: "id", mcpDetail: "is required", restDetail: "must not be empty"},
		{name: "id with a slash", tool: "kg_put_node", args: node("id", "a/b"), field: "id", detail: `"a/b" must start with a letter or digit and contain only letters, digits, '.', '_' and '-'`},
		{name: "id with dot-dot", tool: "kg_put_node", args: node("id", ".."), field: "id", detail: "must start with a letter or digit"},
		{name: "id with a space", tool: "kg_put_node", args: node("id", "a b"), field: "id", detail: "must start with a letter or digit"},
		{name: "id with NUL", tool: "kg_put_node", args: node("id", "ke\x00ep"), field: "id", detail: "must not contain NUL"},
		// gist
		{name: "gist over 1000", tool: "kg_put_node", args: node("gist", strings.Repeat("é", 1001)), field: "gist", detail: "1001 chars, limit 1000"},
		{name: "blank gist", tool: "kg_put_node", args: node("gist", " \t "), field: "gist", detail: "must not be empty"},
		{name: "gist with a newline", tool: "kg_put_node", args: node("gist", "one\ntwo"), field: "gist", detail: "must be one line; put details in notes"},
		{name: "gist with a carriage return", tool: "kg_put_node", args: node("gist", "one\rtwo"), field: "gist", detail: "must be one line"},
		{name: "gist with NUL", tool: "kg_put_node", args: node("gist", "a\x00b"), field: "gist", detail: "must not contain NUL"},
		{name: "gist with a line separator", tool: "kg_put_node", args: node("gist", "one\u2028two"), field: "gist"},
		{name: "gist with a paragraph separator", tool: "kg_put_node", args: node("gist", "one\u2029two"), field: "gist"},
		{name: "gist with a next-line character", tool: "kg_put_node", args: node("gist", "one\u0085two"), field: "gist"},
		{name: "gist with an ANSI escape", tool: "kg_put_node", args: node("gist", "\x1b[31mred\x1b[0m"), field: "gist"},
		{name: "gist with a bell", tool: "kg_put_node", args: node("gist", "ding\a"), field: "gist"},
		// notes
		{name: "51 notes", tool: "kg_put_node", args: node("notes", many(51, "n")), field: "notes", detail: "51 items, limit 50"},
		{name: "note over 4000", tool: "kg_put_node", args: node("notes", []any{"ok", strings.Repeat("n", 4001)}), field: "notes[1]", detail: "4001 chars, limit 4000"},
		{name: "empty note", tool: "kg_put_node", args: node("notes", []any{""}), field: "notes[0]", detail: "must not be empty"},
		{name: "note with NUL", tool: "kg_put_node", args: node("notes", []any{"a\x00"}), field: "notes[0]", detail: "must not contain NUL"},
		{name: "note with a lone carriage return", tool: "kg_put_node", args: node("notes", []any{"a\r\nb", "shown\rhidden"}), field: "notes[1]",
			detail: `must not contain a carriage return (\r) outside a \r\n line break: a lone \r makes a terminal write over the line; break lines with \n`},
		{name: "note with an ANSI escape", tool: "kg_put_node", args: node("notes", []any{"\x1b[2J"}), field: "notes[0]", detail: "must not contain control characters other than newline and tab"},
		{name: "notes not a list", tool: "kg_put_node", args: node("notes", "why"), field: "notes", mcpDetail: "must be a list of strings", restDetail: "must be a list"},
		// touches
		{name: "51 touches", tool: "kg_put_node", args: node("touches", many(51, "t.go")), field: "touches", detail: "51 items, limit 50"},
		{name: "touch over 512", tool: "kg_put_node", args: node("touches", []any{strings.Repeat("t", 513)}), field: "touches[0]", detail: "513 chars, limit 512"},
		{name: "touch with a tab", tool: "kg_put_node", args: node("touches", []any{"a\tb.go"}), field: "touches[0]", detail: "must not contain control characters"},
		{name: "touch with an escape", tool: "kg_put_node", args: node("touches", []any{"\x1b]0;x\a.go"}), field: "touches[0]", detail: "must not contain control characters"},
		{name: "empty touch", tool: "kg_put_node", args: node("touches", []any{""}), field: "touches[0]", detail: "must not be empty"},
		// rel
		{name: "rel over 64", tool: "kg_put_edge", args: edge("rel", strings.Repeat("r", 65)), field: "rel", detail: "65 chars, limit 64"},
		{name: "rel with a space", tool: "kg_put_edge", args: edge("rel", "depends on"), field: "rel", detail: `"depends on" must start with a letter or digit`},
		{name: "rel with a slash", tool: "kg_put_edge", args: edge("rel", "a/b"), field: "rel", detail: "must start with a letter or digit"},
		{name: "empty rel", tool: "kg_put_edge", args: edge("rel", ""), field: "rel", mcpDetail: "is required", restDetail: "must not be empty"},
		// edge ends
		{name: "end over 512", tool: "kg_put_edge", args: edge("to", "src/"+strings.Repeat("e", 509)), field: "to", detail: "513 chars, limit 512"},
		{name: "end with a leading space", tool: "kg_put_edge", args: edge("from", " keep"), field: "from", detail: "must not start or end with white space"},
		{name: "end with a trailing space", tool: "kg_put_edge", args: edge("to", "src/keep.go "), field: "to", detail: "must not start or end with white space"},
		{name: "end with a newline", tool: "kg_put_edge", args: edge("to", "src/\nkeep.go"), field: "to", detail: "must not contain control characters"},
		{name: "end with an escape", tool: "kg_put_edge", args: edge("to", "src/\x1b[31m.go"), field: "to", detail: "must not contain control characters"},
		{name: "end with NUL", tool: "kg_put_edge", args: edge("to", "src/\x00.go"), field: "to", detail: "must not contain NUL"},
		{name: "empty end", tool: "kg_put_edge", args: edge("to", ""), field: "to", mcpDetail: "is required", restDetail: "must not be empty"},
		{name: "edge note over 4000", tool: "kg_put_edge", args: edge("notes", []any{strings.Repeat("n", 4001)}), field: "notes[0]", detail: "4001 chars, limit 4000"},
		{name: "edge note with a lone carriage return", tool: "kg_put_edge", args: edge("notes", []any{"x\r"}), field: "notes[0]", detail: "a lone \\r makes a terminal write over the line"},
		// progress
		{name: "progress over 64 KiB", tool: "kg_progress", args: progress("state", map[string]any{"s": strings.Repeat("s", 65536)}), field: "state", detail: "65544 bytes, limit 65536"},
		{name: "progress a list", tool: "kg_progress", args: progress("state", []any{1}), field: "state", detail: "must be a JSON object"},
		{name: "progress a string", tool: "kg_progress", args: progress("state", "{}"), field: "state", detail: "must be a JSON object"},
		{name: "task id over 128", tool: "kg_progress", args: progress("task_id", strings.Repeat("t", 129)), field: "task_id", detail: "129 chars, limit 128"},
		{name: "task id with a slash", tool: "kg_progress", args: progress("task_id", "../t"), field: "task_id", detail: "must start with a letter or digit"},
		// search
		{name: "query over 1000", tool: "kg_search", args: map[string]any{"query": strings.Repeat("q", 1001)}, field: "query", restField: "q", detail: "1001 chars, limit 1000"},
		{name: "blank query", tool: "kg_search", args: map[string]any{"query": "   "}, field: "query", restField: "q", detail: "must not be empty"},
		{name: "query with NUL", tool: "kg_search", args: map[string]any{"query": "a\x00b"}, field: "query", restField: "q", detail: "must not contain NUL"},
		// cwd / project_path
		{name: "relative cwd", tool: "kg_read", args: map[string]any{"cwd": "src/app"}, field: "cwd", restField: "project_path", detail: "must be an absolute path"},
		{name: "cwd with NUL", tool: "kg_read", args: map[string]any{"cwd": "/home/dev/a\x00b"}, field: "cwd", restField: "project_path"},
		{name: "cwd with an escape", tool: "kg_read", args: map[string]any{"cwd": "/home/dev/\x1b[2J"}, field: "cwd", restField: "project_path"},
	}
}

// rpcReply is a JSON-RPC response as the tests read it.
type rpcReply struct {
	status int
	raw    string
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Result *struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
}

// restReply is a REST response with its error body, if any.
type restReply struct {
	status int
	raw    string
	Detail string `json:"detail"`
	Kind   string `json:"kind"`
	Field  string `json:"field"`
}

// post sends body to the server and returns the status and body read.
func post(t *testing.T, method, u, contentType string, body io.Reader) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(raw)
}

func (s *kgServer) rpc(t *testing.T, contentType string, body []byte) rpcReply {
	t.Helper()
	var r rpcReply
	r.status, r.raw = post(t, "POST", "http://"+s.Addr+"/", contentType, bytes.NewReader(body))
	_ = json.Unmarshal([]byte(r.raw), &r)
	return r
}

func (s *kgServer) rest(t *testing.T, method, path, contentType string, body io.Reader) restReply {
	t.Helper()
	var r restReply
	r.status, r.raw = post(t, method, "http://"+s.Addr+path, contentType, body)
	_ = json.Unmarshal([]byte(r.raw), &r)
	return r
}

// toolCall is the JSON-RPC message that calls tool with args.
func toolCall(tool string, args any) []byte {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	if err != nil {
		panic(err)
	}
	return b
}

// sendREST sends a bad input to the REST route that does what its tool
// does.
func (s *kgServer) sendREST(t *testing.T, in badInput, sid string) restReply {
	t.Helper()
	body := map[string]any{"session_id": sid}
	for k, v := range in.args {
		body[k] = v
	}
	js := func() io.Reader {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		return bytes.NewReader(b)
	}
	switch in.tool {
	case "kg_put_node":
		body["level"] = "project"
		return s.rest(t, "POST", "/api/nodes", "application/json", js())
	case "kg_put_edge":
		body["level"] = "project"
		return s.rest(t, "POST", "/api/edges", "application/json", js())
	case "kg_progress":
		return s.rest(t, "POST", "/api/progress", "application/json", js())
	case "kg_search":
		return s.rest(t, "GET", "/api/search?session_id="+sid+"&q="+url.QueryEscape(in.args["query"].(string)), "", nil)
	case "kg_read":
		return s.rest(t, "POST", "/api/sessions/register?project_path="+url.QueryEscape(in.args["cwd"].(string)), "", nil)
	}
	t.Fatalf("no REST route for %s", in.tool)
	return restReply{}
}

// sendMCP calls the tool of a bad input over MCP.
func (s *kgServer) sendMCP(t *testing.T, in badInput, sid string) rpcReply {
	t.Helper()
	args := map[string]any{}
	for k, v := range in.args {
		args[k] = v
	}
	switch in.tool {
	case "kg_put_node", "kg_put_edge":
		args["session_id"], args["level"] = sid, "project"
	case "kg_progress", "kg_search":
		args["session_id"] = sid
	}
	return s.rpc(t, "application/json", toolCall(in.tool, args))
}

// snapshot is everything a client can read of the two graphs: the REST
// graph read (every tier, versions and seqs) and the export documents
// (progress included), without the export's own time.
func (s *kgServer) snapshot(t *testing.T, proj string) string {
	t.Helper()
	var parts []string
	for _, path := range []string{
		"/api/graph/read?project_path=" + url.QueryEscape(proj),
		"/api/export?level=user",
		"/api/export?level=project&project_path=" + url.QueryEscape(proj),
	} {
		r := s.rest(t, "GET", path, "", nil)
		if r.status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, r.status, r.raw)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(r.raw), &v); err != nil {
			t.Fatal(err)
		}
		delete(v, "exported_ts")
		b, _ := json.MarshalIndent(v, "", " ")
		parts = append(parts, string(b))
	}
	return strings.Join(parts, "\n")
}

// seedGraphs writes what the bad inputs try to change: a node, an edge and
// a progress state in the project graph, a node in the user graph.
func seedGraphs(s *kgServer, sid string) {
	s.putNode(sid, "project", "keep", "the stored gist", map[string]any{"notes": []any{"a note"}, "touches": []any{"src/keep.go"}})
	s.putNode(sid, "user", "prefers-tabs", "the user's gist", nil)
	s.putEdge(sid, "project", "keep", "touches", "src/keep.go")
	s.ok("kg_progress", map[string]any{"session_id": sid, "task_id": "kept-task", "state": map[string]any{"step": 1}})
}

func TestBadInputThroughMCPAndREST(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, storage string) {
		s := startKG(t, storage, t.TempDir())
		proj := projectDir(t, "app")
		sid := s.session(proj)
		seedGraphs(s, sid)
		want := s.snapshot(t, proj)
		tried := map[string]int{}

		for _, in := range badInputs() {
			t.Run(in.name, func(t *testing.T) {
				mcpField, restField := in.field, in.field
				if in.restField != "" {
					restField = in.restField
				}
				mcpDetail, restDetail := in.detail, in.detail
				if in.mcpDetail != "" {
					mcpDetail = in.mcpDetail
				}
				if in.restDetail != "" {
					restDetail = in.restDetail
				}
				var problems []string
				m := s.sendMCP(t, in, sid)
				tried["mcp"]++
				if m.status != http.StatusOK || m.Error != nil || m.Result == nil || !m.Result.IsError || len(m.Result.Content) != 1 ||
					!strings.HasPrefix(m.Result.Content[0].Text, "Error: "+mcpField+": ") || !strings.Contains(m.Result.Content[0].Text, mcpDetail) {
					problems = append(problems, fmt.Sprintf("MCP: %d %.300s, want an isError result \"Error: %s: …%s…\"", m.status, m.raw, mcpField, mcpDetail))
				}
				r := s.sendREST(t, in, sid)
				tried["rest"]++
				if r.status != http.StatusBadRequest || r.Kind != "invalid" || r.Field != restField || !strings.HasPrefix(r.Detail, restField+": ") ||
					!strings.Contains(r.Detail, restDetail) {
					problems = append(problems, fmt.Sprintf("REST: %d %.300s, want 400 invalid naming %q with %q", r.status, r.raw, restField, restDetail))
				}
				got := s.snapshot(t, proj)
				if got != want {
					problems = append(problems, "the graphs changed:\n"+cmp.Diff(want, got))
				}
				for _, p := range problems {
					t.Error(p)
				}
			})
		}
		t.Logf("%s: %d bad inputs through MCP, %d through REST", storage, tried["mcp"], tried["rest"])

		// What was refused was never saved: a restart reads back the same.
		s = s.restart()
		if got := s.snapshot(t, proj); got != want {
			t.Errorf("after a restart the graphs differ:\n%s", cmp.Diff(want, got))
		}
	})
}

// Bodies each transport refuses before any tool or route sees them, and
// malformed JSON-RPC: the status, and the JSON-RPC error code and message
// (MCP) or the error body's field and detail (REST); nothing changes.
func TestBadBodiesAndMalformedJSONRPC(t *testing.T) {
	t.Parallel()
	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"kg_put_node","arguments":` + args + `}}`
	}
	overMiB := call(`{"session_id":"s","level":"user","id":"keep","gist":"` + strings.Repeat("x", domain.MaxBodyBytes) + `"}`)
	mcpCases := []struct {
		name, contentType, body string
		status, code            int // code 0: an isError tool result
		message                 string
	}{
		{"not JSON", "application/json", `{"jsonrpc":"2.0",`, 400, -32700, "request body is not valid json"},
		{"not UTF-8", "application/json", call(`{"session_id":"s","level":"user","id":"keep","gist":"caf` + "\xe9" + `"}`), 400, -32700,
			"request body is not valid UTF-8; send the JSON-RPC message as UTF-8 text"},
		{"a raw NUL in a string", "application/json", call(`{"session_id":"s","level":"user","id":"keep","gist":"a` + "\x00" + `"}`), 400, -32700,
			"request body is not valid json"},
		{"wrong jsonrpc version", "application/json", `{"jsonrpc":"1.0","id":1,"method":"tools/list"}`, 200, -32600, "Invalid JSON-RPC version"},
		{"no jsonrpc member", "application/json", `{"id":1,"method":"tools/list"}`, 200, -32600, "Invalid JSON-RPC version"},
		{"no method", "application/json", `{"jsonrpc":"2.0","id":1,"params":{}}`, 400, -32600, `the JSON-RPC message has no "method"`},
		{"unknown method", "application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/delete"}`, 200, -32601, "Method tools/delete not found"},
		{"unknown tool", "application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"kg_drop_all","arguments":{}}}`, 200, -32602,
			"tool 'kg_drop_all' not found"},
		{"params a string", "application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"kg_read"}`, 200, -32600,
			"unparsable tools/call request"},
		{"tool name a number", "application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}}`, 200, -32600,
			"unparsable tools/call request"},
		{"arguments a list", "application/json", call(`["keep"]`), 200, 0, "Error: arguments: must be a JSON object of named arguments"},
		{"an argument of the wrong type", "application/json", call(`{"session_id":"s","level":"user","id":"keep","gist":7}`), 200, 0,
			"Error: gist: must be a string"},
		{"a batch", "application/json", `[` + call(`{}`) + `]`, 400, -32600, "JSON-RPC batches are not supported; send one message per request"},
		{"text/plain", "text/plain", call(`{}`), 415, -32600, `Content-Type "text/plain" is not supported; send the JSON-RPC message as application/json`},
		{"a form", "application/x-www-form-urlencoded", call(`{}`), 415, -32600, `Content-Type "application/x-www-form-urlencoded" is not supported`},
		{"no Content-Type", "", call(`{}`), 415, -32600, "no Content-Type; send the JSON-RPC message as application/json"},
	}
	restCases := []struct {
		name, method, path, contentType, body string
		status                                int
		field, detail                         string
	}{
		{"not JSON", "POST", "/api/nodes", "application/json", `{"level":`, 400, "body", "is not valid JSON"},
		{"not UTF-8", "POST", "/api/nodes", "application/json", `{"level":"user","id":"keep","gist":"caf` + "\xe9" + `"}`, 400,
			"body", "must be valid UTF-8"},
		{"a raw NUL in a string", "POST", "/api/nodes", "application/json", `{"level":"user","id":"keep","gist":"a` + "\x00" + `"}`, 400,
			"body", "is not valid JSON"},
		{"a list, not an object", "POST", "/api/edges", "application/json", `[{"level":"user"}]`, 400, "body", "must be a JSON object"},
		{"text after the object", "POST", "/api/nodes", "application/json", `{"level":"user","id":"keep","gist":"g"} }`, 400,
			"body", "text after its object"},
		{"a field of the wrong type", "POST", "/api/nodes", "application/json", `{"level":"user","id":"keep","gist":7}`, 400,
			"gist", "must be a string, not a JSON number"},
		{"text/plain", "POST", "/api/nodes", "text/plain", `{"level":"user","id":"keep","gist":"g"}`, 415,
			"Content-Type", `not "text/plain"`},
		{"a form", "POST", "/api/progress", "application/x-www-form-urlencoded", `task_id=t`, 415, "Content-Type", "must be JSON"},
		{"query not UTF-8", "GET", "/api/search?q=%FF", "", "", 400, "q", "must be valid UTF-8"},
		{"project_path not UTF-8", "POST", "/api/sessions/register?project_path=%2Fhome%2F%FF", "", "", 400, "project_path", "must be valid UTF-8"},
		{"import not UTF-8", "POST", "/api/import?level=user", "application/json",
			`{"format":"kg-graph","version":1,"nodes":[{"id":"keep","gist":"caf` + "\xe9" + `"}]}`, 400, "body", "must be valid UTF-8"},
		{"import of another format", "POST", "/api/import?level=user", "application/json", `{"format":"neo4j","version":1}`, 400,
			"format", `"neo4j" is not "kg-graph"`},
		{"import breaking a limit", "POST", "/api/import?level=user&mode=replace", "application/json",
			`{"format":"kg-graph","version":1,"nodes":[{"id":"keep","gist":"one\ntwo"}]}`, 400, "nodes[0].gist", "must be one line"},
		// A lookup accepts any stored id
		// (docs/design/model.md#identifiers-and-limits): one no write would
		// take is not found, not a crash and not a path.
		{"a lookup by an id no write takes", "GET", "/api/nodes/project/" + url.PathEscape("a\x00/..") + "?session_id=s", "", "", 404, "id", "not found"},
	}
	forEachBackend(t, func(t *testing.T, storage string) {
		s := startKG(t, storage, t.TempDir())
		proj := projectDir(t, "app")
		sid := s.session(proj)
		seedGraphs(s, sid)
		want := s.snapshot(t, proj)
		unchanged := func(t *testing.T) {
			t.Helper()
			if got := s.snapshot(t, proj); got != want {
				t.Errorf("the graphs changed:\n%s", cmp.Diff(want, got))
			}
		}
		for _, tc := range mcpCases {
			t.Run("mcp/"+tc.name, func(t *testing.T) {
				body := strings.ReplaceAll(tc.body, `"session_id":"s"`, `"session_id":"`+sid+`"`)
				r := s.rpc(t, tc.contentType, []byte(body))
				switch {
				case r.status != tc.status:
					t.Errorf("status %d, want %d: %.300s", r.status, tc.status, r.raw)
				case tc.code == 0 && (r.Result == nil || !r.Result.IsError || len(r.Result.Content) != 1 || r.Result.Content[0].Text != tc.message):
					t.Errorf("%.300s, want an isError result %q", r.raw, tc.message)
				case tc.code != 0 && (r.Error == nil || r.Error.Code != tc.code || !strings.Contains(r.Error.Message, tc.message)):
					t.Errorf("%.300s, want the JSON-RPC error %d %q", r.raw, tc.code, tc.message)
				}
				unchanged(t)
			})
		}
		for _, tc := range restCases {
			t.Run("rest/"+tc.name, func(t *testing.T) {
				var body io.Reader
				if tc.body != "" {
					body = strings.NewReader(tc.body)
				}
				kind := "invalid"
				if tc.status == http.StatusNotFound {
					kind = "not_found"
				}
				r := s.rest(t, tc.method, strings.ReplaceAll(tc.path, "session_id=s", "session_id="+sid), tc.contentType, body)
				if r.status != tc.status || r.Kind != kind || r.Field != tc.field || !strings.Contains(r.Detail, tc.detail) {
					t.Errorf("%d %.300s, want %d %s naming %q with %q", r.status, r.raw, tc.status, kind, tc.field, tc.detail)
				}
				unchanged(t)
			})
		}

		// Bodies over their limit
		// (docs/design/model.md#identifiers-and-limits): 413, whether the
		// length is declared or the body is streamed; the import's own limit is
		// 64 MiB. The limit is the router's, before any storage, so the
		// 64 MiB body (seconds of a -race server's time) is sent once, to
		// the json backend's server.
		over := func(n int) io.Reader {
			return io.MultiReader(strings.NewReader(`{"pad":"`), &repeatReader{b: 'x', n: n})
		}
		overs := 0
		for _, tc := range []struct {
			name, path string
			body       func() io.Reader
			limit      int
			jsonOnly   bool
		}{
			{"mcp, declared length", "/", func() io.Reader { return strings.NewReader(overMiB) }, domain.MaxBodyBytes, false},
			{"mcp, streamed", "/", func() io.Reader { return struct{ io.Reader }{strings.NewReader(overMiB)} }, domain.MaxBodyBytes, false},
			{"rest node, declared length", "/api/nodes", func() io.Reader { return bytes.NewReader(make([]byte, domain.MaxBodyBytes+1)) }, domain.MaxBodyBytes, false},
			{"rest node, streamed", "/api/nodes", func() io.Reader { return over(domain.MaxBodyBytes) }, domain.MaxBodyBytes, false},
			{"rest import, streamed", "/api/import?level=user", func() io.Reader { return over(domain.MaxImportBodySize) }, domain.MaxImportBodySize, true},
		} {
			if tc.jsonOnly && storage != "json" {
				continue
			}
			overs++
			t.Run("over the limit/"+tc.name, func(t *testing.T) {
				r := s.rest(t, "POST", tc.path, "application/json", tc.body())
				if r.status != http.StatusRequestEntityTooLarge || r.Field != "body" || !strings.Contains(r.Detail, fmt.Sprintf("over the limit of %d bytes", tc.limit)) {
					t.Errorf("%d %.300s, want 413 naming the body and the limit %d", r.status, r.raw, tc.limit)
				}
				unchanged(t)
			})
		}
		t.Logf("%s: %d malformed MCP messages, %d bad REST bodies and queries, %d bodies over their limit", storage, len(mcpCases), len(restCases), overs)
	})
}

// repeatReader reads n copies of b, then EOF, without holding them. It
// copies from one filled chunk: a loop over 64 MiB, byte by byte, costs
// seconds under the race detector.
type repeatReader struct {
	b     byte
	n     int
	chunk []byte
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	if r.chunk == nil {
		r.chunk = bytes.Repeat([]byte{r.b}, 64<<10)
	}
	k := copy(p[:min(len(p), r.n)], r.chunk)
	r.n -= k
	return k, nil
}
