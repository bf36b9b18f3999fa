package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// post sends one JSON-RPC message with no session header and no prior
// initialize, as a stateless client does.
func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	return postAs(t, url, "application/json", body)
}

// postAs is post with the given Content-Type ("" for none).
func postAs(t *testing.T, url, contentType, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

func TestStatelessTransport(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name       string
		body       string
		wantStatus int
		wantInBody string
	}{
		{"tools/list without initialize", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 200, `"kg_read"`},
		{"tools/call without initialize", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"kg_read","arguments":{"cwd":"/p/a"}}}`, 200, `USER GRAPH`},
		{"initialize", `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, 200, `"name":"kg"`},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 202, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, e.url, tc.body)
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.wantStatus, body)
			}
			if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
				t.Errorf("Mcp-Session-Id %q issued in stateless mode", sid)
			}
			if tc.wantStatus != 200 {
				return
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q, want a single JSON body", ct)
			}
			if !strings.Contains(string(body), tc.wantInBody) {
				t.Errorf("body lacks %s: %s", tc.wantInBody, body)
			}
		})
	}
}

func TestInitializeAnnouncesKgAndStaticTools(t *testing.T) {
	e := newEnv(t)
	resp := post(t, e.url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	var msg struct {
		Result struct {
			ServerInfo   struct{ Name, Version string } `json:"serverInfo"`
			Capabilities struct {
				Tools *struct {
					ListChanged *bool `json:"listChanged"`
				} `json:"tools"`
			} `json:"capabilities"`
		} `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	r := msg.Result
	if r.ServerInfo.Name != "kg" || r.ServerInfo.Version != "1.2.3-test" {
		t.Errorf("serverInfo %+v, want kg 1.2.3-test", r.ServerInfo)
	}
	// mcp-go leaves a false listChanged out ("tools":{}), which means the
	// same to a client: the list never changes.
	if r.Capabilities.Tools == nil || (r.Capabilities.Tools.ListChanged != nil && *r.Capabilities.Tools.ListChanged) {
		t.Errorf("tools capability %+v, want tools with listChanged false", r.Capabilities.Tools)
	}
}

func TestToolsListOverClient(t *testing.T) {
	e := newEnv(t)
	res, err := e.client(t).ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		// An outputSchema promises structuredContent, which Claude Code
		// and Codex hand the model in place of the text (decision 0091).
		if tool.OutputSchema.Type != "" || tool.RawOutputSchema != nil {
			t.Errorf("%s: declares an output schema", tool.Name)
		}
	}
	var want []string
	for _, tl := range kgTools() {
		want = append(want, tl.declaration().Name)
	}
	slices.Sort(want) // tools/list orders them by name
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools/list (-declared +listed):\n%s", diff)
	}
}

func TestBadArgumentsAreToolErrorsNotProtocolErrors(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name, arguments, want string
	}{
		{"a number for a string", `{"query":7}`, "Error: query: must be a string"},
		{"a list for the arguments", `["tokens"]`, "Error: arguments: must be a JSON object of named arguments"},
		{"a string for the arguments", `"tokens"`, "Error: arguments: must be a JSON object of named arguments"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, e.url, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"kg_search","arguments":`+tc.arguments+`}}`)
			body, _ := io.ReadAll(resp.Body)
			var msg struct {
				Result *mcpgo.CallToolResult `json:"result"`
				Error  any                   `json:"error"`
			}
			if err := json.Unmarshal(body, &msg); err != nil {
				t.Fatal(err)
			}
			if msg.Error != nil || msg.Result == nil || !msg.Result.IsError {
				t.Fatalf("want an isError result, got %s", body)
			}
			if got := msg.Result.Content[0].(mcpgo.TextContent).Text; got != tc.want {
				t.Errorf("text %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRefusedMessagesAreJSONRPCErrors: what the server cannot take gets a
// status and a JSON-RPC error body that say what is wrong, never a
// plain-text body or a misleading "not valid json".
func TestRefusedMessagesAreJSONRPCErrors(t *testing.T) {
	e := newEnv(t)
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	tests := []struct {
		name, contentType, body string
		wantStatus, wantCode    int
		wantMessage             string
	}{
		{"a batch", "application/json", "[" + list + "," + list + "]", 400, -32600,
			"JSON-RPC batches are not supported; send one message per request"},
		{"a batch after white space", "application/json", " \n[" + list + "]", 400, -32600,
			"JSON-RPC batches are not supported; send one message per request"},
		{"text/plain", "text/plain", list, 415, -32600,
			`Content-Type "text/plain" is not supported; send the JSON-RPC message as application/json`},
		{"form", "application/x-www-form-urlencoded", list, 415, -32600,
			`Content-Type "application/x-www-form-urlencoded" is not supported; send the JSON-RPC message as application/json`},
		{"no Content-Type", "", list, 415, -32600,
			"no Content-Type; send the JSON-RPC message as application/json"},
		{"invalid JSON", "application/json", `[{"jsonrpc":`, 400, -32700, "request body is not valid json"},
		{"no method", "application/json", `{"jsonrpc":"2.0","id":1,"params":{}}`, 400, -32600, `the JSON-RPC message has no "method"; a request needs one`},
		{"not UTF-8", "application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"kg_search","arguments":{"query":"caf` + "\xe9" + `"}}}`,
			400, -32700, "request body is not valid UTF-8; send the JSON-RPC message as UTF-8 text"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := postAs(t, e.url, tc.contentType, tc.body)
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.wantStatus {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.wantStatus)
			}
			wantRPCError(t, resp, body, tc.wantCode, tc.wantMessage)
		})
	}
	// A media type with parameters is still JSON.
	if resp := postAs(t, e.url, "application/json; charset=utf-8", list); resp.StatusCode != 200 {
		t.Errorf("application/json with a charset: %d", resp.StatusCode)
	}
}

// wantRPCError fails t unless resp, whose body is body, is a JSON-RPC error
// with code and message and a null id.
func wantRPCError(t *testing.T, resp *http.Response, body []byte, code int, message string) {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	var msg struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		t.Fatalf("body is not JSON: %v: %s", err, body)
	}
	if msg.JSONRPC != "2.0" || string(msg.ID) != "null" || msg.Error.Code != code || msg.Error.Message != message {
		t.Errorf("body %s, want a JSON-RPC error %d %q with a null id", body, code, message)
	}
}

// TestProtocolVersionHeader: a request whose MCP-Protocol-Version names a
// version mcp-go does not implement gets the 400 the MCP transport asks for,
// with mcp-go's message in a JSON-RPC error rather than as plain text; a
// known version, or none (clients on 2025-03-26 send none), is served.
func TestProtocolVersionHeader(t *testing.T) {
	e := newEnv(t)
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	tests := []struct {
		name, version string
		wantStatus    int
		wantMessage   string // of the JSON-RPC error, when wantStatus is not 200
	}{
		{"unknown", "1999-01-01", 400, "Unsupported protocol version: 1999-01-01"},
		{"between known versions", "2025-01-01", 400, "Unsupported protocol version: 2025-01-01"},
		{"2025-06-18", "2025-06-18", 200, ""},
		{"2025-11-25", "2025-11-25", 200, ""},
		{"none", "", 200, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, e.url, strings.NewReader(list))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.version != "" {
				req.Header.Set("MCP-Protocol-Version", tc.version)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.wantStatus, body)
			}
			if tc.wantStatus != 200 {
				wantRPCError(t, resp, body, mcpgo.INVALID_REQUEST, tc.wantMessage)
				return
			}
			if !strings.Contains(string(body), `"kg_read"`) {
				t.Errorf("tools/list lacks kg_read: %s", body)
			}
		})
	}
}

// TestInstructions initializes a real client, as a conversation would start,
// and reads the server's instructions: they tell the model to start with
// kg_read and its cwd, then to carry the session_id, and every tool they
// name is one the server has.
func TestInstructions(t *testing.T) {
	e := newEnv(t)
	var got string
	for _, version := range []string{"2025-03-26", "2025-06-18", mcpgo.LATEST_PROTOCOL_VERSION} {
		req := mcpgo.InitializeRequest{}
		req.Params.ProtocolVersion = version
		req.Params.ClientInfo = mcpgo.Implementation{Name: "t", Version: "1"}
		res, err := e.client(t).Initialize(context.Background(), req)
		if err != nil {
			t.Fatalf("protocol %s: %v", version, err)
		}
		if got = res.Instructions; got != instructions {
			t.Errorf("protocol %s: instructions %q, want the server's", version, got)
		}
	}
	mustContain(t, got, "Start every conversation by calling kg_read with cwd", "session_id to every later call")
	tools := map[string]bool{}
	for _, tl := range kgTools() {
		tools[tl.declaration().Name] = true
	}
	named := regexp.MustCompile(`\bkg_[a-z_]+`).FindAllString(got, -1)
	for _, name := range named {
		if !tools[name] {
			t.Errorf("the instructions name %s, which is not a tool", name)
		}
	}
	if len(named) == 0 {
		t.Error("the instructions name no tool")
	}
}
