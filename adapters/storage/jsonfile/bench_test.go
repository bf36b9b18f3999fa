package jsonfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kg-memory/kg/adapters/storage/jsonfile/codec"
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

// BenchmarkCommit measures one durable single-node Commit on graphs of each
// size.
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
				if _, err := g.PutNode(domain.NodeInput{ID: "n000001", Gist: fmt.Sprintf("rewritten %d", i)}, domain.Stamp{Now: 1716500000_000000}); err != nil {
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

// loadChildEnv names the root a load child loads; see TestLoadChild.
const loadChildEnv = "KG_JSONFILE_LOAD_CHILD_ROOT"

// benchKey is the graph the load benchmarks store.
var benchKey = domain.ProjectGraph("/bench/project")

// BenchmarkLoad measures what loading a stored 100k-node graph costs a starting
// server: the store's Load and domain.Restore (taking the loaded nodes, as the
// app does). ns/op, cpu-ms/op (CPU time, GC included: steadier than ns/op on a
// shared machine) and B/op are those of this process; peak-RSS-MB is the peak
// resident size of a fresh process (this test binary, re-run as TestLoadChild)
// that does only that once, and child-load-ms and child-cpu-ms its wall and CPU
// time (< 1.5 s and < 200 MB at 100k nodes: docs/design/benchmarks.md#targets).
func BenchmarkLoad(b *testing.B) {
	dir := b.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	g := benchGraph(b, benchKey, 100_000)
	ctx := b.Context()
	if err := s.Commit(ctx, benchKey, g, g.Everything()); err != nil {
		b.Fatal(err)
	}
	g = nil
	b.Run("nodes=100000", func(b *testing.B) {
		c0 := cpuTime(b)
		for b.Loop() {
			d, err := s.Load(ctx, benchKey)
			if err != nil || len(d.Nodes) != 100_000 {
				b.Fatalf("load: %d nodes, %v", len(d.Nodes), err)
			}
			if g, _ := domain.Restore(benchKey, d, domain.RestoreOptions{Take: true}); g.NodeCount() != 100_000 {
				b.Fatalf("restored %d nodes", g.NodeCount())
			}
		}
		b.ReportMetric(float64((cpuTime(b)-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		b.StopTimer()
		rss, ms, cpu := loadInChild(b, dir)
		b.ReportMetric(rss, "peak-RSS-MB")
		b.ReportMetric(ms, "child-load-ms")
		b.ReportMetric(cpu, "child-cpu-ms")
	})
}

// loadInChild runs TestLoadChild on root in a new process and returns its
// peak RSS in MB and the wall and CPU time of its load in ms.
func loadInChild(b *testing.B, root string) (rssMB, loadMS, cpuMS float64) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestLoadChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), loadChildEnv+"="+root)
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("load child: %v\n%s", err, out)
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 4 && f[0] == "loaded" {
			kb, err1 := strconv.ParseFloat(f[1], 64)
			us, err2 := strconv.ParseFloat(f[2], 64)
			cpu, err3 := strconv.ParseFloat(f[3], 64)
			if err1 == nil && err2 == nil && err3 == nil {
				return kb / 1024, us / 1000, cpu / 1000
			}
		}
	}
	b.Fatalf("load child printed no figures:\n%s", out)
	return 0, 0, 0
}

// TestLoadChild is the child of BenchmarkLoad: it loads and restores the
// graph stored under the root the environment names and prints its peak
// RSS (kB) and the wall and CPU time of the load (µs). Without that
// variable it does nothing.
func TestLoadChild(t *testing.T) {
	root := os.Getenv(loadChildEnv)
	if root == "" {
		t.Skip("run by BenchmarkLoad only")
	}
	s, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	start, c0 := time.Now(), rusage(t)
	d, err := s.Load(t.Context(), benchKey)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := domain.Restore(benchKey, d, domain.RestoreOptions{Take: true})
	took := time.Since(start)
	ru := rusage(t)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano() - c0.Utime.Nano() - c0.Stime.Nano())
	fmt.Printf("loaded %d %d %d\n", peakRSS(t), took.Microseconds(), cpu.Microseconds())
	if g.NodeCount() == 0 {
		t.Fatal("nothing loaded")
	}
}

// peakRSS returns the peak resident size of this process in kB: VmHWM of
// /proc/self/status. (getrusage's maxrss would not do: Linux carries the
// parent's peak into a child across exec.)
func peakRSS(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
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

// BenchmarkCheckpoint measures folding a 100k-node graph's journal into
// its file after one node changed. encode/cache=off encodes the whole file
// (to io.Discard), cpu-ms/op its CPU time; encode/cache=on does the same with the encoded bytes of
// the unchanged nodes and edges (values and version entries) kept from the
// previous checkpoint, whose size is cache-MB; file is the whole checkpoint
// of Store.Checkpoint (tmp, fsync, .prev, rename, fsync, journal emptied),
// with the cache.
func BenchmarkCheckpoint(b *testing.B) {
	const n = 100_000
	g := benchGraph(b, benchKey, n)
	i := 0
	change := func() {
		i++
		if _, err := g.PutNode(domain.NodeInput{ID: fmt.Sprintf("n%06d", i%n), Gist: fmt.Sprintf("changed %d", i)}, domain.Stamp{Now: 1716500000_000000}); err != nil {
			b.Fatal(err)
		}
		g.Checkpoint()
	}
	for _, cached := range []bool{false, true} {
		b.Run(fmt.Sprintf("encode/cache=%v/nodes=%d", map[bool]string{false: "off", true: "on"}[cached], n), func(b *testing.B) {
			var cache codec.NodeCache
			if cached {
				warm := codec.SourceOfGraph(g)
				warm.Cache = &cache
				if err := codec.WriteGraph(io.Discard, warm); err != nil {
					b.Fatal(err)
				}
			}
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				change()
				src := codec.SourceOfGraph(g)
				if cached {
					src.Cache = &cache
				}
				b.StartTimer()
				c0 := cpuTime(b)
				if err := codec.WriteGraph(io.Discard, src); err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime(b) - c0
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
			if cached {
				b.ReportMetric(float64(cache.Size())/(1<<20), "cache-MB")
			}
		})
	}
	b.Run(fmt.Sprintf("file/nodes=%d", n), func(b *testing.B) {
		s, err := Open(b.TempDir(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		ctx := b.Context()
		if err := s.Commit(ctx, benchKey, g, g.Everything()); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			b.StopTimer()
			if _, err := g.PutNode(domain.NodeInput{ID: "n000001", Gist: fmt.Sprintf("changed %d", i)}, domain.Stamp{Now: 1716500000_000000}); err != nil {
				b.Fatal(err)
			}
			i++
			if err := s.Commit(ctx, benchKey, g, g.Pending()); err != nil {
				b.Fatal(err)
			}
			g.Checkpoint()
			b.StartTimer()
			if err := s.Checkpoint(ctx, benchKey, g); err != nil {
				b.Fatal(err)
			}
		}
	})
}
