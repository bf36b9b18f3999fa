package codec

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/kg-memory/kg/domain"
)

// benchGraph builds a graph of n nodes in the shape of the workload of
// docs/design/benchmarks.md#workload (a 60-character gist and two
// 40-character notes per node) with the chain of edges n_i → n_{i+1}.
func benchGraph(b testing.TB, k domain.GraphKey, n int) *domain.Graph {
	b.Helper()
	d := domain.GraphData{Schema: domain.SchemaVersion, ProjectPath: k.Project}
	for i := range n {
		id := fmt.Sprintf("n%06d", i)
		d.Nodes = append(d.Nodes, domain.Node{ID: id, Gist: "a one-line gist of exactly sixty characters for node " + id,
			Notes:   []string{"the first note, forty characters " + id, "the second note, forty character " + id},
			Created: domain.Micros(1716400000_000000 + i), Version: domain.Version{V: 1, TS: domain.Micros(1716400000_000000 + i), Seq: uint64(i + 1)}})
		if i > 0 {
			d.Edges = append(d.Edges, domain.Edge{From: fmt.Sprintf("n%06d", i-1), To: id, Rel: "relates-to",
				Version: domain.Version{V: 1, TS: domain.Micros(1716400000_000000 + i), Seq: uint64(n + i)}})
		}
	}
	d.Seq = uint64(2 * n)
	g, _ := domain.Restore(k, d, domain.RestoreOptions{})
	return g
}

// rusage returns this process's resource usage.
func rusage(tb testing.TB) syscall.Rusage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return ru
}

// cpuTime is the CPU time (user and system) this process has used.
func cpuTime(tb testing.TB) time.Duration {
	ru := rusage(tb)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkDecoders decodes the file of a 100k-node graph with the
// one-pass parser (DecodeGraph) and with the typed encoding/json decoder
// (typedDecodeGraph, typed_test.go) that docs/decisions/0010-json-md
// weighs against it. cpu-ms/op is the process's CPU time per decode, GC
// included: steadier than ns/op on a shared machine.
func BenchmarkDecoders(b *testing.B) {
	g := benchGraph(b, domain.ProjectGraph("/bench/project"), 100_000)
	data := EncodeGraph(g.Data())
	g = nil
	for _, dec := range []struct {
		name   string
		decode func([]byte) (domain.GraphData, []string, error)
	}{{"onepass", DecodeGraph}, {"typed", typedDecodeGraph}} {
		b.Run(dec.name+"/nodes=100000", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			c0 := cpuTime(b)
			for b.Loop() {
				if d, _, err := dec.decode(data); err != nil || len(d.Nodes) != 100_000 {
					b.Fatalf("decode: %d nodes, %v", len(d.Nodes), err)
				}
			}
			b.ReportMetric(float64((cpuTime(b)-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
