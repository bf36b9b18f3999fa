package jsonfile

import (
	"fmt"
	"testing"

	"github.com/kg-memory/kg/domain"
)

// benchGraph builds a graph of n nodes with notes and touches, about one
// edge per node, as the benchmarks.md workload shapes them.
func benchGraph(b *testing.B, k domain.GraphKey, n int) *domain.Graph {
	b.Helper()
	d := domain.GraphData{Schema: domain.SchemaVersion, ProjectPath: k.Project}
	for i := range n {
		id := fmt.Sprintf("node-%06d", i)
		d.Nodes = append(d.Nodes, domain.Node{ID: id, Gist: "a one-line gist of about sixty characters for node " + id,
			Notes: []string{"why this matters, in a sentence or two of rationale"}, Touches: []string{"src/pkg/file.go"},
			Created: domain.Micros(1716400000_000000 + i), Version: domain.Version{V: 1, TS: domain.Micros(1716400000_000000 + i), Seq: uint64(i + 1)}})
		if i > 0 {
			d.Edges = append(d.Edges, domain.Edge{From: fmt.Sprintf("node-%06d", i-1), To: id, Rel: "relates-to",
				Version: domain.Version{V: 1, TS: domain.Micros(1716400000_000000 + i), Seq: uint64(n + i)}})
		}
	}
	d.Seq = uint64(2 * n)
	g, _ := domain.Restore(k, d, domain.RestoreOptions{})
	return g
}

// BenchmarkCommit measures one durable single-node Commit (the whole file
// rewritten, fsynced, renamed, folder fsynced) on graphs of each size.
func BenchmarkCommit(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			s, err := Open(b.TempDir(), Options{})
			if err != nil {
				b.Fatal(err)
			}
			k := domain.ProjectGraph("/bench/project")
			g := benchGraph(b, k, n)
			ctx := b.Context()
			if err := s.Commit(ctx, k, g, g.Pending()); err != nil {
				b.Fatal(err)
			}
			g.Checkpoint()
			i := 0
			for b.Loop() {
				i++
				if _, err := g.PutNode(domain.NodeInput{ID: "node-000001", Gist: fmt.Sprintf("rewritten %d", i)}, domain.Stamp{Now: 1716500000_000000}); err != nil {
					b.Fatal(err)
				}
				if err := s.Commit(ctx, k, g, g.Pending()); err != nil {
					b.Fatal(err)
				}
				g.Checkpoint()
			}
		})
	}
}

// BenchmarkLoad measures loading a 100k-node graph file.
func BenchmarkLoad(b *testing.B) {
	s, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	k := domain.ProjectGraph("/bench/project")
	g := benchGraph(b, k, 100_000)
	ctx := b.Context()
	if err := s.Commit(ctx, k, g, g.Pending()); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		d, err := s.Load(ctx, k)
		if err != nil || len(d.Nodes) != 100_000 {
			b.Fatalf("load: %d nodes, %v", len(d.Nodes), err)
		}
	}
}
