package mcp

import (
	"context"
	"io"
	"iter"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/adapters/paths"
	"github.com/kg-memory/kg/adapters/storage/memory"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var _ Service = (*app.Service)(nil)

// t0 is when every test starts.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// nopEvents drops every event: these tests watch results, not events.
type nopEvents struct{}

func (nopEvents) Publish(evs iter.Seq[ports.Event]) {
	for range evs { //nolint:revive // read to the end, as a publisher must
	}
}

// env is a real app on the memory adapter behind a real MCP server on :0.
type env struct {
	clock *clock.Manual
	store *memory.Store
	svc   *app.Service
	url   string
}

type envOption func(*app.Config, *memory.Store)

func newEnv(t *testing.T, opts ...envOption) *env {
	t.Helper()
	e := &env{clock: clock.NewManual(t0), store: memory.New()}
	cfg := app.DefaultConfig()
	for _, o := range opts {
		o(&cfg, e.store)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc, err := app.New(cfg, app.Deps{Graphs: e.store, Sessions: e.store, Clock: e.clock,
		Events: nopEvents{}, Paths: paths.OS{}, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	e.svc = svc
	srv := httptest.NewServer(New("1.2.3-test", svc, log, nil))
	t.Cleanup(func() {
		srv.Close()
		if err := svc.Close(context.Background()); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	e.url = srv.URL
	return e
}

// client returns an MCP client that never sends initialize: every call
// stands alone, as Claude Code's do.
func (e *env) client(t *testing.T) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(e.url)
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

// result is a tool result as a test reads it.
type result struct {
	text    string
	isError bool
}

// call calls a tool over a fresh client and returns its result; a JSON-RPC
// error fails the test.
func (e *env) call(t *testing.T, name string, args map[string]any) result {
	t.Helper()
	c := e.client(t)
	req := mcpgo.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("%s: JSON-RPC error: %v", name, err)
	}
	var r result
	r.isError = res.IsError
	for _, ct := range res.Content {
		if tc, ok := ct.(mcpgo.TextContent); ok {
			r.text += tc.Text
		}
	}
	// The text is what reaches the model; a structuredContent would
	// replace it in Claude Code and Codex (decision 0091).
	if res.StructuredContent != nil {
		t.Errorf("%s: the result carries structuredContent, which Claude Code and Codex hand the model in place of the text", name)
	}
	return r
}

// ok calls a tool and fails the test on an isError result.
func (e *env) ok(t *testing.T, name string, args map[string]any) result {
	t.Helper()
	r := e.call(t, name, args)
	if r.isError {
		t.Fatalf("%s %v: unexpected error: %s", name, args, r.text)
	}
	return r
}

// session starts a session for project and returns its id.
func (e *env) session(t *testing.T, project string) string {
	t.Helper()
	r := e.ok(t, "kg_read", map[string]any{"cwd": project})
	id := sessionOf(r.text)
	if id == "" {
		t.Fatalf("kg_read gave no session id: %s", r.text)
	}
	return id
}

// sessionOf is the session id of a kg_read's text: its last line,
// "Session: <id>"; "" when there is none.
func sessionOf(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	id, ok := strings.CutPrefix(lines[len(lines)-1], "Session: ")
	if !ok {
		return ""
	}
	return id
}

func mustContain(t *testing.T, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
}

func mustNotContain(t *testing.T, text string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(text, w) {
			t.Errorf("text has %q:\n%s", w, text)
		}
	}
}

// seed stores data as the graph at key before the app loads it.
func seed(key domain.GraphKey, data domain.GraphData) envOption {
	return func(_ *app.Config, st *memory.Store) {
		g, _ := domain.Restore(key, data, domain.RestoreOptions{})
		if err := st.Commit(context.Background(), key, g, g.Pending()); err != nil {
			panic(err)
		}
	}
}
