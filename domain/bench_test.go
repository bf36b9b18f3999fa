package domain

import (
	"fmt"
	"runtime"
	"testing"
)

// benchSizes are the graph sizes of docs/design/benchmarks.md#workload.
var benchSizes = []int{1_000, 10_000, 100_000}

// BenchmarkCompact measures one compaction run on the workload: every node
// active, far over the default budget, grace 0, so the run scores the whole
// graph, archives all but a few dozen nodes, tries pass 1b and orphans all
// but the archived budget's 240 ids — the most work a run can do.
//
//   - full: the run alone, on a freshly restored graph each iteration (the
//     restore, and a garbage collection after it, are outside the timer);
//   - restore+full: the same with the restore timed too, for comparison with
//     the cost of loading a graph;
//   - plan: the dry run (PlanCompaction) on an unchanged graph;
//   - within-budget: the run after a write to a graph within both budgets,
//     the common case, which must be O(1);
//   - after-write: a write of a node the first run orphaned, which makes it
//     active again, then the write's run, on the compacted graph: what
//     every kg_put_node does in a mature memory. Every few writes take the
//     graph over its budget and the run archives and orphans a few nodes;
//     it reads only the active and archived nodes, so it costs about the
//     budget, not the graph.
func BenchmarkCompact(b *testing.B) {
	p := workloadPolicy()
	for _, n := range benchSizes {
		data := workloadData(n)
		restore := func() *Graph {
			g, _ := Restore(GraphKey{Level: LevelUser}, data, RestoreOptions{})
			return g
		}
		b.Run(fmt.Sprintf("nodes=%d/run=full", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				g := restore()
				runtime.GC() // the previous graph's garbage is not this run's cost
				b.StartTimer()
				if m := g.Compact(workloadNow, p); len(m.Archived) == 0 {
					b.Fatal("the run archived nothing")
				}
			}
		})
		b.Run(fmt.Sprintf("nodes=%d/run=restore+full", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				restore().Compact(workloadNow, p)
			}
		})
		b.Run(fmt.Sprintf("nodes=%d/run=plan", n), func(b *testing.B) {
			g := restore()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				PlanCompaction(g, workloadNow, p)
			}
		})
		b.Run(fmt.Sprintf("nodes=%d/run=within-budget", n), func(b *testing.B) {
			g := restore()
			g.Compact(workloadNow, p)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if m := g.Compact(workloadNow, p); !m.Empty() {
					b.Fatal("a run within budget moved nodes")
				}
			}
		})
		b.Run(fmt.Sprintf("nodes=%d/run=after-write", n), func(b *testing.B) {
			g := restore()
			g.Compact(workloadNow, p)
			g.Checkpoint()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				d := &data.Nodes[i%len(data.Nodes)]
				at := Stamp{Now: workloadNow + Micros(i)}
				if _, err := g.PutNode(NodeInput{ID: d.ID, Gist: d.Gist, Notes: d.Notes}, at); err != nil {
					b.Fatal(err)
				}
				g.Compact(at.Now, p)
				g.Checkpoint()
			}
		})
	}
}

// BenchmarkSearch measures Search over the compacted workload graph with
// two-term queries drawn from the gists' vocabulary.
func BenchmarkSearch(b *testing.B) {
	p := workloadPolicy()
	queries := workloadQueries(64)
	for _, n := range benchSizes {
		g := workloadGraph(b, n)
		g.Compact(workloadNow, p)
		g.searchIndex() // built by the first search, not timed here (BenchmarkSearchIndex)
		graphs := []*Graph{g}
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := Search(graphs, queries[i%len(queries)], DefaultSearchLim); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkSearchIndex measures what the search index costs on the
// workload graph: the time of building it (what a graph's first search adds to it) and
// the heap it holds, reported as index-MB next to graph-MB, the heap of the
// graph without it. The heap figures are live bytes after a collection,
// taken once per size.
func BenchmarkSearchIndex(b *testing.B) {
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("nodes=%d/build", n), func(b *testing.B) {
			base := heap()
			g, _ := Restore(GraphKey{Level: LevelUser}, workloadData(n), RestoreOptions{})
			without := heap() // Restore builds no index
			g.searchIndex()
			withIndex := heap()
			b.ReportAllocs()
			for b.Loop() {
				g.search = buildSearchIndex(g, defaultBlockShift, defaultBlockMin)
			}
			b.ReportMetric(float64(withIndex-without)/(1<<20), "index-MB")
			b.ReportMetric(float64(without-base)/(1<<20), "graph-MB")
		})
	}
}
