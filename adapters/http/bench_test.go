package http

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/adapters/events"
	"github.com/kg-memory/kg/adapters/paths"
	"github.com/kg-memory/kg/adapters/storage/memory"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/app/hooks"
)

// BenchmarkToolCall is the cost of one MCP tool call through the whole
// HTTP side — the middleware (log line, request metrics, security
// checks), mcp-go and the tool wrapper (tool metrics) — called in process,
// without a network, on the memory store: a search (a read) and a
// kg_put_node (a write through the group commit). It compiles against a
// server without metrics too, so that the two can be compared with
// benchstat.
func BenchmarkToolCall(b *testing.B) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	st := memory.New()
	clk := clock.System{}
	hub := events.New()
	b.Cleanup(hub.Close)
	svc, err := app.New(app.DefaultConfig(), app.Deps{Graphs: st, Sessions: st, Clock: clk, Events: hub, Paths: paths.OS{}, Log: log})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = svc.Close(context.Background()) })
	h := NewServer(Config{Version: "bench", Storage: "memory", Clock: clk, Started: clk.Now()}, svc, hooks.New(svc), hub, log)
	sess, err := svc.RegisterSession(context.Background(), "", "")
	if err != nil {
		b.Fatal(err)
	}
	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + args + `}`
	}
	puts := make([]string, 100)
	for i := range puts {
		puts[i] = call(fmt.Sprintf(`{"name":"kg_put_node","arguments":{"session_id":%q,"level":"user","id":"n%02d","gist":"a fact worth keeping"}}`, sess.ID, i))
	}
	serve := func(b *testing.B, body string) {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Host = "127.0.0.1:8765"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK || strings.Contains(w.Body.String(), `"isError":true`) {
			b.Fatalf("%d %s", w.Code, w.Body.String())
		}
	}
	for _, body := range puts {
		serve(b, body) // the graph the searches read
	}
	b.Run("tool=kg_search", func(b *testing.B) {
		search := call(fmt.Sprintf(`{"name":"kg_search","arguments":{"session_id":%q,"query":"fact","limit":5}}`, sess.ID))
		b.ReportAllocs()
		for b.Loop() {
			serve(b, search)
		}
	})
	b.Run("tool=kg_put_node", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			serve(b, puts[i%len(puts)])
			i++
		}
	})
}
