package http

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/kg-memory/kg/adapters/metrics"
	"github.com/kg-memory/kg/adapters/metrics/metricstest"
	"github.com/kg-memory/kg/app/capture"
)

// /metrics is a route like the others: the Host, Origin, cross-site and
// token checks all apply (docs/design/http.md#security).
func TestMetricsSitBehindTheSecurityChecks(t *testing.T) {
	const token = "s3cret"
	s := newTestServer(t, Config{AuthToken: token, AllowedOrigins: []string{"http://localhost:5173"}}, nil)
	bearer := map[string]string{"Authorization": "Bearer " + token}
	with := func(extra map[string]string) map[string]string {
		h := map[string]string{"Authorization": "Bearer " + token}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}
	tests := []struct {
		name   string
		path   string
		header map[string]string
		want   int
	}{
		{"no token", "/metrics", nil, 401},
		{"wrong token", "/metrics", map[string]string{"Authorization": "Bearer nope"}, 401},
		{"token in the query", "/metrics?token=" + token, nil, 401},
		{"rebound Host", "/metrics", with(map[string]string{"Host": "evil.example:8765"}), 421},
		{"foreign Origin", "/metrics", with(map[string]string{"Origin": "https://evil.example"}), 403},
		{"cross-site", "/metrics", with(map[string]string{"Sec-Fetch-Site": "cross-site"}), 403},
		{"configured Origin", "/metrics", with(map[string]string{"Origin": "http://localhost:5173"}), 200},
		{"POST", "/metrics", bearer, 405},
		{"the token", "/metrics", bearer, 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			method := http.MethodGet
			if tc.name == "POST" {
				method = http.MethodPost
			}
			resp, body := s.do(t, method, tc.path, "", tc.header)
			if resp.StatusCode != tc.want {
				t.Errorf("%d, want %d: %s", resp.StatusCode, tc.want, body)
			}
			if tc.want == 200 && !strings.Contains(body, "# TYPE kg_http_request_duration_seconds histogram") {
				t.Errorf("the scrape lacks the request histogram:\n%s", body)
			}
		})
	}
	sc := metricstest.Get(t, s.url+"/metrics", "Authorization", "Bearer "+token)
	// Refused before routing, or by method: no route to name.
	if got := sc.Value("kg_http_request_duration_seconds", "route", "unmatched", "status_class", "4xx"); got != 7 {
		t.Errorf("%v refusals before routing counted, want 7 (2 tokens, 1 query token, Host, Origin, cross-site, the POST)", got)
	}
	if got := sc.Value("kg_http_request_duration_seconds", "route", "/metrics", "method", "GET", "status_class", "2xx"); got != 2 {
		t.Errorf("%v scrapes counted, want 2", got)
	}
}

// Requests are labelled with the route pattern they matched, never with
// their path; tool calls with their tool and outcome; the sockets gauge
// follows the sockets.
func TestRequestAndToolMetrics(t *testing.T) {
	s := newTestServer(t, Config{}, nil)
	for _, p := range []string{"/api/nodes/user/secret-id-1", "/api/nodes/user/secret-id-2", "/no/such/path", "/health", "/health"} {
		s.do(t, http.MethodGet, p, "", nil)
	}
	s.do(t, http.MethodDelete, "/health", "", nil)

	c := s.mcpClient(t)
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	if _, err := c.Initialize(context.Background(), init); err != nil {
		t.Fatal(err)
	}
	call := func(name string, args map[string]any) *mcpgo.CallToolResult {
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = name, args
		res, err := c.CallTool(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	read := call("kg_read", map[string]any{"cwd": t.TempDir()})
	_, sid, ok := strings.Cut(read.Content[0].(mcpgo.TextContent).Text, "\nSession: ")
	if !ok {
		t.Fatalf("kg_read gave no session: %v", read.Content)
	}
	call("kg_read", map[string]any{"cwd": t.TempDir()})
	call("kg_put_node", map[string]any{"session_id": sid, "level": "nowhere", "id": "a", "gist": "b"})
	if res := call("kg_read", map[string]any{"session_id": sid, "id": "missing", "level": "user"}); !res.IsError {
		t.Fatalf("reading a missing node: %+v", res)
	}

	ws, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(s.url, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	sc := metricstest.Get(t, s.url+"/metrics")
	_ = ws.Close(websocket.StatusNormalClosure, "")

	got := map[string]float64{}
	for _, l := range sc.Labels("kg_http_request_duration_seconds") {
		for _, v := range l {
			if strings.Contains(v, "secret-id") || strings.Contains(v, "/no/such") {
				t.Errorf("a label holds a raw path: %v", l)
			}
		}
		got[l["method"]+" "+l["route"]+" "+l["status_class"]] = sc.Value("kg_http_request_duration_seconds",
			"method", l["method"], "route", l["route"], "status_class", l["status_class"])
	}
	for series, want := range map[string]float64{
		"GET /api/nodes/{level}/{id} 4xx": 2,
		"GET unmatched 4xx":               1,
		"GET /health 2xx":                 2,
		"DELETE unmatched 4xx":            1, // chi names no route for a 405
	} {
		if got[series] != want {
			t.Errorf("%s: %v requests, want %v (all: %v)", series, got[series], want, got)
		}
	}
	if got["POST / 2xx"] < 5 {
		t.Errorf("%v MCP requests counted, want at least initialize and 4 calls", got["POST / 2xx"])
	}
	for _, tc := range []struct {
		tool, outcome string
		want          float64
	}{
		{"kg_read", "ok", 2},
		{"kg_read", "not_found", 1},
		{"kg_put_node", "invalid", 1},
		{"kg_put_node", "ok", 0},
		{"kg_sync", "ok", 0},
	} {
		if got := sc.Value("kg_mcp_tool_call_duration_seconds", "tool", tc.tool, "outcome", tc.outcome); got != tc.want {
			t.Errorf("%s %s: %v calls, want %v", tc.tool, tc.outcome, got, tc.want)
		}
	}
	listed, err := c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if n, tools := len(sc.Labels("kg_mcp_tool_call_duration_seconds")), len(listed.Tools); tools == 0 || n != tools*6 {
		t.Errorf("%d tool series, want %d tools × 6 outcomes from the start", n, tools)
	}
	if got := sc.Value("kg_websocket_clients"); got != 1 {
		t.Errorf("kg_websocket_clients = %v with one socket open", got)
	}
	if got := sc.Value("kg_sessions_active"); got != 2 {
		t.Errorf("kg_sessions_active = %v after two kg_read with cwd", got)
	}
	// The gauge is read at the scrape: once the socket is gone, it says so.
	deadline := time.Now().Add(10 * time.Second)
	for metricstest.Get(t, s.url+"/metrics").Value("kg_websocket_clients") != 0 {
		if time.Now().After(deadline) {
			t.Fatal("kg_websocket_clients stayed above 0 after the socket closed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Each hook route has its calls by outcome, with their latency, and the
// bytes it put in front of the model (docs/design/hooks.md#metrics).
func TestHookRouteMetrics(t *testing.T) {
	s := newTestServer(t, Config{}, nil)
	proj := t.TempDir()
	sc := metricstest.Get(t, s.url+"/metrics")
	// Every series exists from the start, at 0, so a rate never starts
	// from an absent series.
	if got := len(sc.Labels("kg_hook_duration_seconds")); got != 5*3 {
		t.Errorf("%d hook series before any call, want 15 (5 routes × 3 outcomes)", got)
	}
	if got := sc.Value("kg_hook_duration_seconds"); got != 0 {
		t.Errorf("%v hook calls before any call", got)
	}

	resp, body := s.do(t, http.MethodGet, "/api/session_bootstrap?project_path="+url.QueryEscape(proj)+"&claude_session_id=conv-1&source=startup", "", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("bootstrap: %d %s", resp.StatusCode, body)
	}
	var boot struct{ Context string }
	if err := json.Unmarshal([]byte(body), &boot); err != nil || boot.Context == "" {
		t.Fatalf("bootstrap: %v, context %q", err, boot.Context)
	}
	s.do(t, http.MethodGet, "/api/session_bootstrap?project_path=relative/path", "", nil)
	s.do(t, http.MethodGet, "/api/session_state?project_path="+url.QueryEscape(proj), "", nil)
	s.do(t, http.MethodPost, "/api/prompt_context", fmt.Sprintf(`{"session_id":"conv-1","cwd":%q,"prompt":"ok"}`, proj), nil)
	s.do(t, http.MethodPost, "/api/prompt_context", `{"session_id":`, nil)
	s.do(t, http.MethodPost, "/api/tool_event", fmt.Sprintf(`{"session_id":"conv-1","cwd":%q,"tool_name":"Read","tool_input":{"file_path":%q}}`, proj, proj+"/a.go"), nil)
	s.do(t, http.MethodPost, "/api/hooks/stop?agent=codex", fmt.Sprintf(`{"session_id":"conv-1","cwd":%q,"stop_hook_active":false}`, proj), nil)

	sc = metricstest.Get(t, s.url+"/metrics")
	for _, c := range []struct {
		route, outcome string
		want           float64
	}{
		{"session_bootstrap", "injected", 1}, {"session_bootstrap", "error", 1}, {"session_bootstrap", "empty", 0},
		{"session_state", "empty", 1},
		{"prompt_context", "empty", 1}, {"prompt_context", "error", 1}, {"prompt_context", "injected", 0},
		{"tool_event", "empty", 1},
		{"stop", "empty", 1},
	} {
		if got := sc.Value("kg_hook_duration_seconds", "route", c.route, "outcome", c.outcome); got != c.want {
			t.Errorf("%s %s: %v calls, want %v", c.route, c.outcome, got, c.want)
		}
	}
	if got, want := sc.Sum("kg_hook_injected_bytes", "route", "session_bootstrap"), float64(len(boot.Context)); got != want {
		t.Errorf("bootstrap injected %v bytes, want the context's %v", got, want)
	}
	if got := sc.Value("kg_hook_injected_bytes", "route", "prompt_context"); got != 0 {
		t.Errorf("%v prompt injections counted, want 0 (the prompt had nothing to recall)", got)
	}
}

// Each stop is counted by agent and by what it came to; every series
// exists from the start (docs/design/hooks.md#capture-before-forgetting).
func TestCaptureMetrics(t *testing.T) {
	s := newTestServer(t, Config{}, nil)
	proj := t.TempDir()
	sc := metricstest.Get(t, s.url+"/metrics")
	if got, want := len(sc.Labels("kg_capture_requests_total")), len(metrics.CaptureAgents)*len(capture.Outcomes); got != want {
		t.Errorf("%d capture series before any stop, want %d", got, want)
	}
	stop := func(agent, claude string, active bool) {
		resp, body := s.do(t, http.MethodPost, "/api/hooks/stop?agent="+agent,
			fmt.Sprintf(`{"session_id":%q,"cwd":%q,"stop_hook_active":%v}`, claude, proj, active), nil)
		if resp.StatusCode != 200 {
			t.Fatalf("stop: %d %s", resp.StatusCode, body)
		}
	}
	s.do(t, http.MethodPost, "/api/tool_event", fmt.Sprintf(`{"session_id":"conv-1","cwd":%q,"tool_name":"Write","tool_input":{"file_path":%q}}`, proj, proj+"/a.go"), nil)
	stop("codex", "conv-1", false)
	stop("codex", "conv-1", true)
	stop("claude-code", "conv-2", false)
	stop("", "conv-1", false)
	sc = metricstest.Get(t, s.url+"/metrics")
	for _, c := range []struct {
		agent, outcome string
		want           float64
	}{
		{"codex", "asked", 1}, {"codex", "active", 1}, {"claude-code", "no_work", 1}, {"other", "repeat", 1}, {"codex", "wrote", 0},
	} {
		if got := sc.Value("kg_capture_requests_total", "agent", c.agent, "outcome", c.outcome); got != c.want {
			t.Errorf("%s %s: %v, want %v", c.agent, c.outcome, got, c.want)
		}
	}
}

// The metrics' outcome labels are app/capture's outcomes.
func TestCaptureOutcomeLabels(t *testing.T) {
	var want []string
	for _, o := range capture.Outcomes {
		want = append(want, string(o))
	}
	if !slices.Equal(metrics.CaptureOutcomes, want) {
		t.Errorf("metrics.CaptureOutcomes %v, want capture.Outcomes %v", metrics.CaptureOutcomes, want)
	}
}
