package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
)

// BenchmarkDurablePutNewNode measures one durable PutNode that creates a
// node, through app.Service on json, on a user graph of the workload at 1k
// and 20k nodes: the write that pays for every check of a new write (the
// secret scanner, the duplicate check, docs/design/trust.md). The new
// nodes' gists are another draw of the workload's (another seed): words
// the graph holds, in other sentences. p50-ms is the figure
// docs/design/trust.md#duplicates compares with the same benchmark on the
// code before those checks.
func BenchmarkDurablePutNewNode(b *testing.B) {
	for _, n := range []int{1_000, 20_000} {
		b.Run(fmt.Sprintf("store=json/nodes=%d", n), func(b *testing.B) {
			root := b.TempDir()
			w := NewWorkload(n, 0, DefaultSeed)
			fresh := NewWorkload(4096, 0, DefaultSeed+1)
			storeWorkload(b, "json", root, w)
			svc, err := openService(context.Background(), "json", root, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				b.Fatal(err)
			}
			defer func() {
				if err := svc.Close(); err != nil {
					b.Error(err)
				}
			}()
			ctx := context.Background()
			sc := app.Scope{Level: domain.LevelUser}
			if _, err := svc.PutNode(ctx, sc, domain.NodeInput{ID: "warm-up", Gist: "loads the graph"}); err != nil {
				b.Fatal(err)
			}
			lat := make([]time.Duration, 0, 4096)
			for i := 0; b.Loop(); i++ {
				f := fresh.Nodes[i%len(fresh.Nodes)]
				start := time.Now()
				if _, err := svc.PutNode(ctx, sc, domain.NodeInput{ID: fmt.Sprintf("new-%d", i), Gist: f.Gist, Notes: f.Notes}); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			reportLatency(b, lat)
		})
	}
}
