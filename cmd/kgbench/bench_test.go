package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
)

// benchNodes is the size of the graph the benchmarks write to and read: the 1k
// graph of docs/design/benchmarks.md#workload.
const benchNodes = 1000

var backends = []string{"json", "bolt"}

// BenchmarkGroupCommit measures PutNode through app.Service on a real
// backend in b.TempDir(), on a user graph of benchNodes nodes with grace 0
// (every write runs compaction), with 1 and with 16 concurrent writers.
// ops/s is over wall time; commits/op shows how many writes share a save.
func BenchmarkGroupCommit(b *testing.B) {
	w := NewWorkload(benchNodes, 0, DefaultSeed)
	sc := app.Scope{Level: domain.LevelUser}
	for _, backend := range backends {
		b.Run("backend="+backend, func(b *testing.B) {
			for _, writers := range []int{1, 16} {
				repo := &countingRepo{}
				svc, err := openService(context.Background(), backend, b.TempDir(), repo.wrap, nil)
				if err != nil {
					b.Fatal(err)
				}
				preload(b, svc.Service, sc, w)
				b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
					ctx := context.Background()
					c0 := repo.commits.Load()
					b.ResetTimer()
					st := timed(ctx, "put_node", writers, b.N, func(_, i int) error {
						n := update(w, i)
						_, err := svc.PutNode(ctx, sc, domain.NodeInput{ID: n.ID, Gist: n.Gist, Notes: n.Notes})
						return err
					})
					b.StopTimer()
					reportStats(b, st, repo.commits.Load()-c0)
				})
				if err := svc.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchCWD is the project the HTTP benchmarks' sessions are bound to.
const benchCWD = "/kgbench/bench-project"

// httpBench is an in-process server whose project graph holds the
// workload, and a driver for it.
type httpBench struct {
	srv    *server
	repo   *countingRepo
	driver *kgDriver
	w      Workload
}

func newHTTPBench(b *testing.B, backend string, clients int) *httpBench {
	b.Helper()
	h := &httpBench{repo: &countingRepo{}, w: NewWorkload(benchNodes, 0, DefaultSeed)}
	srv, err := startServer(context.Background(), backend, b.TempDir(), h.repo.wrap)
	if err != nil {
		b.Fatal(err)
	}
	h.srv = srv
	b.Cleanup(func() {
		if err := srv.Close(); err != nil {
			b.Error(err)
		}
	})
	preload(b, srv.Service, app.Scope{ProjectPath: benchCWD, Level: domain.LevelProject}, h.w)
	h.driver = newKGDriver(srv.URL, benchCWD, clients)
	return h
}

// conns opens k MCP clients, each with its own session.
func (h *httpBench) conns(b *testing.B, k int) []Conn {
	b.Helper()
	cs := make([]Conn, k)
	for i := range cs {
		c, err := h.driver.Connect(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = c.Close() })
		cs[i] = c
	}
	return cs
}

// BenchmarkHTTP measures kg through a real HTTP server and mcp-go's MCP
// client: the full read (kg_read) of a project graph of benchNodes nodes at
// the default budget, and kg_put_node with 1 and 16 concurrent clients, on
// json and on bolt.
func BenchmarkHTTP(b *testing.B) {
	for _, backend := range backends {
		b.Run("op=full_read/backend="+backend, func(b *testing.B) {
			h := newHTTPBench(b, backend, 1)
			cs := h.conns(b, 1)
			ctx := context.Background()
			b.ResetTimer()
			st := phase(ctx, kindFullRead, cs, b.N, func(ctx context.Context, c Conn, _ int) error { return c.FullRead(ctx) })
			b.StopTimer()
			reportStats(b, st, -1)
		})
	}
	for _, backend := range backends {
		for _, clients := range []int{1, 16} {
			b.Run(fmt.Sprintf("op=put_node/backend=%s/clients=%d", backend, clients), func(b *testing.B) {
				h := newHTTPBench(b, backend, clients)
				cs := h.conns(b, clients)
				ctx := context.Background()
				c0 := h.repo.commits.Load()
				b.ResetTimer()
				st := phase(ctx, kindCreate, cs, b.N, func(ctx context.Context, c Conn, i int) error {
					return c.CreateNode(ctx, update(h.w, i))
				})
				b.StopTimer()
				reportStats(b, st, h.repo.commits.Load()-c0)
			})
		}
	}
}
