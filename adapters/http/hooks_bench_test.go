package http

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/adapters/events"
	"github.com/kg-memory/kg/adapters/paths"
	"github.com/kg-memory/kg/adapters/storage/memory"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/app/hooks"
	"github.com/kg-memory/kg/domain"
)

// BenchmarkHookRoutesHTTP is each hook route through HTTP — a real
// loopback connection, the router and its middleware — at 10,000 active
// nodes in the user graph and in the project graph
// (docs/design/benchmarks.md), with each call's latency: p50-ms, p99-ms.
func BenchmarkHookRoutesHTTP(b *testing.B) {
	ctx := context.Background()
	proj, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	words := make([]string, 400)
	for i := range words {
		words[i] = fmt.Sprintf("w%c%c%c%d", 'a'+r.IntN(26), 'a'+r.IntN(26), 'a'+r.IntN(26), i)
	}
	st := memory.New()
	now := domain.Micros(time.Now().UnixMicro())
	for _, k := range []domain.GraphKey{domain.UserGraph, domain.ProjectGraph(proj)} {
		g := domain.NewGraph(k)
		for i := range 10_000 {
			var gist []string
			for range 8 {
				gist = append(gist, words[r.IntN(len(words))])
			}
			at := domain.Stamp{Now: now - domain.Days(30) + domain.Micros(i)}
			id := fmt.Sprintf("n%05d", i)
			if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: strings.Join(gist, " ")}, at); err != nil {
				b.Fatal(err)
			}
			if i > 0 {
				if _, err := g.PutEdge(domain.EdgeInput{From: id, To: fmt.Sprintf("n%05d", r.IntN(i)), Rel: "relates-to"}, at); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := st.Commit(ctx, k, g, g.Pending()); err != nil {
			b.Fatal(err)
		}
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	hub := events.New()
	b.Cleanup(hub.Close)
	cfg := app.DefaultConfig()
	cfg.Policy.MaxTokens = 100_000_000 // every node stays active
	svc, err := app.New(cfg, app.Deps{Graphs: st, Sessions: st, Clock: clock.System{}, Events: hub, Paths: paths.OS{}, Log: log})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = svc.Close(ctx) })
	srv := httptest.NewServer(NewServer(Config{Version: "bench", Storage: "memory", Clock: clock.System{}, Started: now}, svc, hooks.New(svc), hub, log))
	b.Cleanup(srv.Close)
	do := func(b *testing.B, method, path, body string) {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, _ := http.NewRequest(method, srv.URL+path, rd)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var out bytes.Buffer
		_, _ = out.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, out.String())
		}
	}
	measure := func(b *testing.B, call func(i int)) {
		var lat []time.Duration
		i := 0
		for b.Loop() {
			t := time.Now()
			call(i)
			lat = append(lat, time.Since(t))
			i++
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99-ms")
	}
	b.Run("route=session_bootstrap", func(b *testing.B) {
		measure(b, func(i int) {
			q := url.Values{"project_path": {proj}, "claude_session_id": {fmt.Sprintf("conv-%d", i)}, "source": {"startup"}}
			do(b, "GET", "/api/session_bootstrap?"+q.Encode(), "")
		})
	})
	b.Run("route=prompt_context", func(b *testing.B) {
		measure(b, func(i int) {
			prompt := fmt.Sprintf("why does %s %s break the %s when %s?", words[r.IntN(len(words))], words[r.IntN(len(words))],
				words[r.IntN(len(words))], words[r.IntN(len(words))])
			do(b, "POST", "/api/prompt_context", fmt.Sprintf(`{"session_id":"conv-%d","cwd":%q,"prompt":%q}`, i%50, proj, prompt))
		})
	})
	b.Run("route=tool_event", func(b *testing.B) {
		measure(b, func(i int) {
			do(b, "POST", "/api/tool_event", fmt.Sprintf(`{"session_id":"conv-%d","cwd":%q,"tool_name":"Read","tool_input":{"file_path":%q}}`,
				i%50, proj, fmt.Sprintf("%s/pkg/file%03d.go", proj, i%300)))
		})
	})
}
