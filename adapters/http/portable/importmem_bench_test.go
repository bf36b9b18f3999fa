package portable_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/adapters/events"
	"github.com/kg-memory/kg/adapters/http/portable"
	"github.com/kg-memory/kg/adapters/paths"
	"github.com/kg-memory/kg/adapters/storage/bolt"
	"github.com/kg-memory/kg/adapters/storage/jsonfile"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/importing"
	"github.com/kg-memory/kg/ports"
)

// importDocument returns an export document of about size bytes: nodes
// with a gist of about 120 characters, two notes of about 200 and a
// touch, as agents write them, and an edge from each node to the next; or,
// small, the smallest nodes (an id and a short gist) and no edge, the most
// nodes a document of that size can hold.
func importDocument(size int, small bool) []byte {
	var b bytes.Buffer
	b.Grow(size + 4096)
	b.WriteString(`{"format":"kg-graph","version":1,"level":"project","project_path":"/home/dev/app","exported_ts":1716400000,"nodes":[`)
	words := strings.Fields("the refresh token slides on each use and the login flow keeps a session cookie for the dashboard " +
		"while the worker retries failed jobs with backoff until the queue drains and the cache is warmed again")
	phrase := func(i, n int) string {
		var s strings.Builder
		for j := 0; s.Len() < n; j++ {
			if j > 0 {
				s.WriteByte(' ')
			}
			s.WriteString(words[(i*7+j*3)%len(words)])
		}
		return s.String()
	}
	n := 0
	if small {
		for ; b.Len() < size; n++ {
			if n > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":"n%07d","gist":"gist %07d"}`, n, n)
		}
		b.WriteString(`],"edges":[],"progress":{}}`)
		return b.Bytes()
	}
	for ; b.Len() < size*9/10; n++ {
		if n > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"n%07d","gist":"%s %d","notes":["%s","%s"],"touches":["src/mod%d/file%d.go"],"tier":"active","version":1,"created_ts":%d}`,
			n, phrase(n, 120), n, phrase(n+1, 200), phrase(n+2, 200), n%97, n%13, 1716400000+n)
	}
	b.WriteString(`],"edges":[`)
	for i := 0; i+1 < n && b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"from":"n%07d","to":"n%07d","rel":"relates_to","notes":[],"version":1}`, i, i+1)
	}
	b.WriteString(`],"progress":{}}`)
	return b.Bytes()
}

// heapPeak samples the heap in use every few milliseconds until stopped,
// and returns the largest sample.
func heapPeak() (stop func() uint64) {
	var mu sync.Mutex
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			mu.Lock()
			peak = max(peak, ms.HeapInuse)
			mu.Unlock()
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

// BenchmarkImportPeakHeap imports a document of KG_BENCH_IMPORT_MIB MiB
// (64, the accepted maximum, by default) as POST /api/import does — decode
// the body, then app.Import — into a fresh json and bolt root, and reports
// the peak heap in use above what was in use before (the document's bytes
// excluded), and that peak as a multiple of the document
// (docs/performance.md#import-memory). KG_BENCH_IMPORT_SHAPE=small imports
// the smallest nodes instead. Run with -benchtime 1x.
func BenchmarkImportPeakHeap(b *testing.B) {
	mib := 64
	if v, err := strconv.Atoi(os.Getenv("KG_BENCH_IMPORT_MIB")); err == nil && v > 0 {
		mib = v
	}
	small := os.Getenv("KG_BENCH_IMPORT_SHAPE") == "small"
	doc := importDocument(mib<<20, small)
	for _, backend := range []string{"json", "bolt"} {
		b.Run(backend, func(b *testing.B) {
			for range b.N {
				root := b.TempDir()
				var st interface {
					ports.GraphRepository
					ports.SessionRepository
				}
				var closeStore func()
				switch backend {
				case "json":
					s, err := jsonfile.Open(root, jsonfile.Options{})
					if err != nil {
						b.Fatal(err)
					}
					st, closeStore = s, func() {}
				default:
					s, err := bolt.Open(context.Background(), root, bolt.Options{})
					if err != nil {
						b.Fatal(err)
					}
					st, closeStore = s, func() { _ = s.Close() }
				}
				svc, err := app.New(app.DefaultConfig(), app.Deps{Graphs: st, Sessions: st, Clock: clock.System{}, Events: events.New(), Paths: paths.OS{}})
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				var before runtime.MemStats
				runtime.ReadMemStats(&before)
				stop := heapPeak()
				start := time.Now()
				d, err := portable.Decode(bytes.NewReader(doc))
				if err != nil {
					b.Fatal(err)
				}
				res, err := svc.Import(context.Background(), app.Scope{Level: domain.LevelProject, ProjectPath: d.ProjectPath}, importing.Merge, d.Data, app.ImportOptions{ListMoves: app.ImportMovesListed})
				if err != nil {
					b.Fatal(err)
				}
				took := time.Since(start)
				peak := stop()
				var after runtime.MemStats
				runtime.ReadMemStats(&after)
				// What the graph the import left costs by itself: the
				// heap in use once the import's garbage is collected.
				runtime.GC()
				var held runtime.MemStats
				runtime.ReadMemStats(&held)
				b.ReportMetric(float64(held.HeapInuse-min(held.HeapInuse, before.HeapInuse))/(1<<20), "graph-MiB")
				above := float64(peak-min(peak, before.HeapInuse)) / (1 << 20)
				b.ReportMetric(above, "peak-heap-MiB")
				b.ReportMetric(above/float64(mib), "x-document")
				b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), "alloc-MiB")
				b.ReportMetric(took.Seconds(), "s")
				b.Logf("%s: %d nodes written, %d edges; document %d MiB", backend, len(res.Nodes), len(res.Edges), mib)
				_ = svc.Close(context.Background())
				closeStore()
			}
		})
	}
}
