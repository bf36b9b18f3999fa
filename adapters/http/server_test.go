package http

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/adapters/events"
	"github.com/kg-memory/kg/adapters/paths"
	"github.com/kg-memory/kg/adapters/storage/memory"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/app/hooks"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var _ Service = (*app.Service)(nil)

var _ Hooks = (*hooks.Hooks)(nil)

// brokenUser is a store whose user graph cannot be loaded.
type brokenUser struct{ *memory.Store }

func (b brokenUser) Load(ctx context.Context, key domain.GraphKey) (domain.GraphData, error) {
	if key == domain.UserGraph {
		return domain.GraphData{}, domain.Unavailable(errors.New("bad json"), "user graph file is damaged")
	}
	return b.Store.Load(ctx, key)
}

type testServer struct {
	url     string
	handler http.Handler // what NewServer returned: the router
	clock   *clock.Manual
	hub     *events.Hub
	store   *memory.Store // the sessions, and the graphs unless the test gave its own
}

// newTestServer runs the whole HTTP side on :0 over a real app on the
// memory adapter.
func newTestServer(t *testing.T, cfg Config, graphs ports.GraphRepository) *testServer {
	t.Helper()
	clk := clock.NewManual(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC))
	st := memory.New()
	if graphs == nil {
		graphs = st
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	hub := events.New()
	svc, err := app.New(app.DefaultConfig(), app.Deps{Graphs: graphs, Sessions: st, Clock: clk,
		Events: hub, Paths: paths.OS{}, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Clock, cfg.Started = clk, clk.Now()
	h := NewServer(cfg, svc, hooks.New(svc), hub, log)
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		hub.Close() // ends the sockets, which the server's Close does not wait for
		srv.Close()
		_ = svc.Close(context.Background())
	})
	return &testServer{url: srv.URL, handler: h, clock: clk, hub: hub, store: st}
}

func (s *testServer) do(t *testing.T, method, path, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// mcpClient is mcp-go's Streamable HTTP client, with no initialize.
func (s *testServer) mcpClient(t *testing.T, opts ...transport.StreamableHTTPCOption) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(s.url+"/", opts...)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithSession())
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

const toolsList = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

func TestHealth(t *testing.T) {
	s := newTestServer(t, Config{Version: "1.2.3", Storage: "json"}, nil)
	c := s.mcpClient(t)
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "kg_read", map[string]any{"cwd": "/work/kg-test/p"}
	if res, err := c.CallTool(context.Background(), req); err != nil || res.IsError {
		t.Fatalf("kg_read through the router: %v %+v", err, res)
	}
	s.clock.Advance(90 * time.Second)

	for _, path := range []string{"/health", "/api/health"} {
		resp, body := s.do(t, http.MethodGet, path, "", nil)
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"status": "ok", "version": "1.2.3", "transport": "streamable-http", "storage": "json",
			"active_sessions": float64(1), "loaded_graphs": float64(2), "uptime_s": float64(90)}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %s = %v, want %v", path, k, got[k], v)
			}
		}
		if _, ok := got["problems"]; ok {
			t.Errorf("%s: problems on a healthy server: %s", path, body)
		}
	}
}

func TestHealthDegraded(t *testing.T) {
	s := newTestServer(t, Config{Version: "1", Storage: "bolt"}, brokenUser{memory.New()})
	resp, body := s.do(t, http.MethodGet, "/health", "", nil)
	var got struct {
		Status   string
		Storage  string
		Problems []string
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || got.Status != "degraded" || len(got.Problems) == 0 || got.Storage != "bolt" {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
}

func TestRoutes(t *testing.T) {
	s := newTestServer(t, Config{}, nil)
	tests := []struct {
		method, path, body string
		want               int
	}{
		{"POST", "/", toolsList, 200},
		{"POST", "/", "[" + toolsList + "]", 400}, // a batch: not supported, said as a JSON-RPC error
		{"GET", "/", "", 405},
		{"DELETE", "/", "", 405},
		{"PUT", "/", toolsList, 405},
		{"GET", "/nope", "", 404},
		{"POST", "/mcp", toolsList, 404},
		{"POST", "/health", "{}", 405},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			resp, body := s.do(t, tc.method, tc.path, tc.body, nil)
			if resp.StatusCode != tc.want {
				t.Errorf("%d, want %d: %s", resp.StatusCode, tc.want, body)
			}
		})
	}
}

func TestMCPThroughTheRouter(t *testing.T) {
	s := newTestServer(t, Config{}, nil)
	res, err := s.mcpClient(t).ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if !slices.ContainsFunc(res.Tools, func(tool mcpgo.Tool) bool { return tool.Name == "kg_read" }) {
		t.Errorf("tools/list through the router lacks kg_read: %v", res.Tools)
	}
	resp, _ := s.do(t, "POST", "/", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
	if resp.StatusCode != 202 {
		t.Errorf("notification: %d, want 202", resp.StatusCode)
	}
	resp, _ = s.do(t, "POST", "/", toolsList, nil)
	if resp.Header.Get("Mcp-Session-Id") != "" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Errorf("headers %v", resp.Header)
	}
}

func TestSecurityRejections(t *testing.T) {
	s := newTestServer(t, Config{AllowedHosts: []string{"kg.lan"}, AllowedOrigins: []string{"http://localhost:5173"}}, nil)
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", domain.MaxBodyBytes) + `"}}`
	tests := []struct {
		name         string
		method, path string
		body         string
		header       map[string]string
		want         int
	}{
		{"rebound host", "POST", "/", toolsList, map[string]string{"Host": "evil.example:8765"}, 421},
		{"rebound host on health", "GET", "/health", "", map[string]string{"Host": "evil.example"}, 421},
		{"rebound host on a 404", "GET", "/nope", "", map[string]string{"Host": "evil.example"}, 421},
		{"configured host", "POST", "/", toolsList, map[string]string{"Host": "kg.lan:8765"}, 200},
		{"foreign origin", "POST", "/", toolsList, map[string]string{"Origin": "https://evil.example"}, 403},
		{"configured origin", "POST", "/", toolsList, map[string]string{"Origin": "http://localhost:5173"}, 200},
		{"cross-site POST", "POST", "/", toolsList, map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"cross-site GET", "GET", "/health", "", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"same-origin GET", "GET", "/health", "", map[string]string{"Sec-Fetch-Site": "same-origin"}, 200},
		{"body over 1 MiB", "POST", "/", big, nil, 413},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := s.do(t, tc.method, tc.path, tc.body, tc.header)
			if resp.StatusCode != tc.want {
				t.Errorf("%d, want %d: %.200s", resp.StatusCode, tc.want, body)
			}
		})
	}
}

func TestOwnOriginPasses(t *testing.T) {
	s := newTestServer(t, Config{}, nil)
	resp, body := s.do(t, "POST", "/", toolsList, map[string]string{"Origin": s.url})
	if resp.StatusCode != 200 {
		t.Errorf("own origin %s: %d %s", s.url, resp.StatusCode, body)
	}
}

func TestBearerToken(t *testing.T) {
	s := newTestServer(t, Config{AuthToken: "s3cret"}, nil)
	for _, tc := range []struct {
		name, auth string
		want       int
	}{
		{"none", "", 401}, {"wrong", "Bearer nope", 401}, {"right", "Bearer s3cret", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]string{}
			if tc.auth != "" {
				h["Authorization"] = tc.auth
			}
			for _, path := range []string{"/health", "/"} {
				method, body := "GET", ""
				if path == "/" {
					method, body = "POST", toolsList
				}
				if resp, b := s.do(t, method, path, body, h); resp.StatusCode != tc.want {
					t.Errorf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, tc.want, b)
				}
			}
		})
	}
	c := s.mcpClient(t, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer s3cret"}))
	if _, err := c.ListTools(context.Background(), mcpgo.ListToolsRequest{}); err != nil {
		t.Errorf("MCP client with the token: %v", err)
	}
}
