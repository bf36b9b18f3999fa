package graphsearch

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kg-memory/kg/bench/workload"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
)

// BenchmarkFind measures Find over the compacted workload graph of
// docs/design/benchmarks.md#workload with two-term queries drawn from the
// gists' vocabulary: domain's BenchmarkSearch, through the room.
func BenchmarkFind(b *testing.B) {
	vocab := workload.Vocabulary()
	r := rand.New(rand.NewPCG(611, 2024)) // domain's workloadQueries
	queries := make([]string, 64)
	for i := range queries {
		queries[i] = vocab.Query(r)
	}
	p := compaction.DefaultPolicy()
	p.Grace = 0
	for _, n := range []int{1_000, 10_000, 100_000} {
		g := benchGraph(b, vocab, n)
		now := domain.Micros(1_700_000_000)*domain.Second + 10*domain.Day
		compaction.Run(g, now, p)
		graphs := []*domain.Graph{g}
		if _, err := Find(graphs, queries[0], 0); err != nil { // builds the index, not timed
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := Find(graphs, queries[i%len(queries)], domain.DefaultSearchLim); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// benchGraph is domain's workload graph of n nodes (workload_test.go):
// a 60-char gist and two 40-char notes each, written one second apart,
// and edges n_i → n_{i+1} plus two drawn ones per node.
func benchGraph(b *testing.B, vocab *workload.Words, n int) *domain.Graph {
	r := rand.New(rand.NewPCG(2024, 611))
	start := domain.Micros(1_700_000_000) * domain.Second
	id := func(i int) string { return fmt.Sprintf("n%06d", i) }
	d := domain.GraphData{Schema: domain.SchemaVersion}
	var seq uint64
	for i := 1; i <= n; i++ {
		seq++
		ts := start + domain.Micros(i)*domain.Second
		d.Nodes = append(d.Nodes, domain.Node{ID: id(i), Gist: vocab.Text(r, 60),
			Notes: []string{vocab.Text(r, 40), vocab.Text(r, 40)}, Created: ts, Version: domain.Version{V: 1, TS: ts, Seq: seq}})
	}
	seen := map[domain.EdgeKey]bool{}
	addEdge := func(from, to int) {
		k := domain.EdgeKey{From: id(from), To: id(to), Rel: "relates-to"}
		if from == to || seen[k] {
			return
		}
		seen[k] = true
		seq++
		ts := start + domain.Micros(n+len(d.Edges))*domain.Second
		d.Edges = append(d.Edges, domain.Edge{From: k.From, To: k.To, Rel: k.Rel, Version: domain.Version{V: 1, TS: ts, Seq: seq}})
	}
	for i := 1; i <= n; i++ {
		if i < n {
			addEdge(i, i+1)
		}
		for range 2 {
			addEdge(i, 1+r.IntN(n))
		}
	}
	d.Seq = seq
	g, notes := domain.Restore(domain.UserGraph, d, domain.RestoreOptions{})
	if len(notes) != 0 {
		b.Fatalf("workload restore: %v", notes)
	}
	return g
}
