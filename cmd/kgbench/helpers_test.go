package main

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// countingRepo counts the commits that reach the backend: with group
// commit, many concurrent writes share one.
type countingRepo struct {
	ports.GraphRepository
	commits atomic.Int64
}

func (c *countingRepo) Commit(ctx context.Context, key domain.GraphKey, g *domain.Graph, cs domain.ChangeSet) error {
	c.commits.Add(1)
	return c.GraphRepository.Commit(ctx, key, g, cs)
}

// Checkpoint forwards the maintenance tick's checkpoint to a repository
// that journals its commits (ports.GraphCheckpointer), so that wrapping
// it does not change what the server does.
func (c *countingRepo) Checkpoint(ctx context.Context, key domain.GraphKey, g *domain.Graph) error {
	if cp, ok := c.GraphRepository.(ports.GraphCheckpointer); ok {
		return cp.Checkpoint(ctx, key, g)
	}
	return nil
}

// counting returns a wrap for openService that installs c.
func (c *countingRepo) wrap(r ports.GraphRepository) ports.GraphRepository {
	c.GraphRepository = r
	return c
}

// preload writes w's nodes and edges into the graph of sc through the app,
// from many goroutines so that group commit keeps it quick.
func preload(tb testing.TB, svc *app.Service, sc app.Scope, w Workload) {
	tb.Helper()
	ctx := context.Background()
	const workers = 32
	st := timed(ctx, "preload nodes", workers, len(w.Nodes), func(_, i int) error {
		n := w.Nodes[i]
		_, err := svc.PutNode(ctx, sc, domain.NodeInput{ID: n.ID, Gist: n.Gist, Notes: n.Notes})
		return err
	})
	if st.FirstErr != nil {
		tb.Fatal(st.FirstErr)
	}
	st = timed(ctx, "preload edges", workers, len(w.Edges), func(_, i int) error {
		e := w.Edges[i]
		_, err := svc.PutEdge(ctx, sc, domain.EdgeInput{From: e.From, To: e.To, Rel: e.Rel})
		return err
	})
	if st.FirstErr != nil {
		tb.Fatal(st.FirstErr)
	}
}

// update is the i-th write of a write benchmark: node i (cycling over the
// preloaded ones, so the graph keeps its size) with the content of the
// next node, so that every write changes something.
func update(w Workload, i int) Node {
	n := w.Nodes[i%len(w.Nodes)]
	next := w.Nodes[(i+1)%len(w.Nodes)]
	return Node{ID: n.ID, Gist: next.Gist, Notes: next.Notes}
}

// reportStats reports a write benchmark's figures: writes per second over
// the wall time, latency percentiles and, when commits is not nil, the
// commits per write.
func reportStats(b *testing.B, st Stats, commits int64) {
	b.Helper()
	if st.FirstErr != nil {
		b.Fatalf("%d of %d ops failed; first: %v", st.Errors, st.Ops, st.FirstErr)
	}
	b.ReportMetric(st.OpsPerSec(), "ops/s")
	b.ReportMetric(float64(st.P50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(st.P99.Microseconds())/1000, "p99-ms")
	if commits >= 0 && st.Ops > 0 {
		b.ReportMetric(float64(commits)/float64(st.Ops), "commits/op")
	}
}
