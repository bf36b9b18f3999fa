package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
)

// searchBenchSizes are the graph sizes of the search targets
// (docs/design/benchmarks.md#targets): ≥ 8× the peer at 5,000 nodes, within
// 2× of a call that writes nothing at 20,000.
var searchBenchSizes = []int{5_000, 20_000}

// searchBenchQueries is how many of the workload's two-word queries the
// benchmark cycles through, as bench/peers asks (--searches 200).
const searchBenchQueries = 200

// BenchmarkHTTPSearch measures kg_search beside a call that writes nothing
// (kg_progress of a task never saved, the floor of bench/peers) through a
// real HTTP server and mcp-go's client, one call at a time, on a project
// graph of the workload (docs/design/benchmarks.md#workload) at 5,000 and
// 20,000 nodes, on json and on bolt. The two operations alternate call by
// call (ns/op is one of each), so that both see the same
// machine; search/floor is the ratio of their p50s: the
// in-process view of the target "search within 2× of a call that writes
// nothing". The index is built by a first search before the timer.
func BenchmarkHTTPSearch(b *testing.B) {
	for _, n := range searchBenchSizes {
		for _, backend := range backends {
			b.Run(fmt.Sprintf("nodes=%d/backend=%s", n, backend), func(b *testing.B) {
				h := &httpBench{repo: &countingRepo{}, w: NewWorkload(n, searchBenchQueries, DefaultSeed)}
				srv, err := startServer(context.Background(), backend, b.TempDir(), h.repo.wrap)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() {
					if err := srv.Close(); err != nil {
						b.Error(err)
					}
				})
				preload(b, srv.Service, app.Scope{ProjectPath: benchCWD, Level: domain.LevelProject}, h.w)
				h.driver = newKGDriver(srv.URL, benchCWD, 1)
				c := h.conns(b, 1)[0]
				ctx := context.Background()
				for _, q := range h.w.Queries {
					if err := c.Search(ctx, q); err != nil { // builds the index, warms the path
						b.Fatal(err)
					}
				}
				b.Run("via=client", func(b *testing.B) {
					var search, floor []time.Duration
					b.ReportAllocs()
					for i := 0; b.Loop(); i++ {
						t := time.Now()
						if err := c.Search(ctx, h.w.Queries[i%len(h.w.Queries)]); err != nil {
							b.Fatal(err)
						}
						search = append(search, time.Since(t))
						t = time.Now()
						if err := c.Floor(ctx); err != nil {
							b.Fatal(err)
						}
						floor = append(floor, time.Since(t))
					}
					reportSearchFloor(b, search, floor)
				})
				// The server's side alone: the same calls handed to its
				// handler in process, no client and no network.
				b.Run("via=handler", func(b *testing.B) {
					session := c.(*kgConn).session
					call := func(tool, args string) {
						body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
						req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
						req.Host = "127.0.0.1"
						req.Header.Set("Content-Type", "application/json")
						req.Header.Set("Accept", "application/json, text/event-stream")
						w := httptest.NewRecorder()
						srv.http.Handler.ServeHTTP(w, req)
						if w.Code != http.StatusOK || strings.Contains(w.Body.String(), `"isError":true`) {
							b.Fatalf("%s: %d %s", tool, w.Code, w.Body.String())
						}
					}
					searches := make([]string, len(h.w.Queries))
					for i, q := range h.w.Queries {
						searches[i] = fmt.Sprintf(`{"session_id":%q,"query":%q}`, session, q)
					}
					floorArgs := fmt.Sprintf(`{"session_id":%q,"level":"project","task_id":"kgbench-floor"}`, session)
					var search, floor []time.Duration
					b.ReportAllocs()
					for i := 0; b.Loop(); i++ {
						t := time.Now()
						call("kg_search", searches[i%len(searches)])
						search = append(search, time.Since(t))
						t = time.Now()
						call("kg_progress", floorArgs)
						floor = append(floor, time.Since(t))
					}
					reportSearchFloor(b, search, floor)
				})
			})
		}
	}
}

// reportSearchFloor reports the p50 (and search's p99) of the two kinds
// of call, and the ratio of their p50s.
func reportSearchFloor(b *testing.B, search, floor []time.Duration) {
	slices.Sort(search)
	slices.Sort(floor)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	s50, f50 := percentile(search, 50), percentile(floor, 50)
	b.ReportMetric(ms(s50), "search-p50-ms")
	b.ReportMetric(ms(percentile(search, 99)), "search-p99-ms")
	b.ReportMetric(ms(f50), "floor-p50-ms")
	if f50 > 0 {
		b.ReportMetric(float64(s50)/float64(f50), "search/floor")
	}
}
