package team

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/adapters/events"
	khttp "github.com/kg-memory/kg/adapters/http"
	"github.com/kg-memory/kg/adapters/paths"
	"github.com/kg-memory/kg/adapters/storage/bolt"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/app/hooks"
)

// The team-mode figures of docs/design/benchmarks.md#team-mode: two servers
// on one local PostgreSQL, 8 writers each, against one bolt server through
// the same REST client; an event written on A reaching a /ws subscriber on
// B; a session's kg_sync on B seeing A's acknowledged write.

// boltServer is a server of one person on bolt, served like the team's.
func boltServer(b *testing.B) *instance {
	ctx := context.Background()
	store, err := bolt.Open(ctx, b.TempDir(), bolt.Options{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	hub := events.New()
	svc, err := app.Open(ctx, app.DefaultConfig(), app.Deps{Graphs: store, Sessions: store, Clock: clock.System{}, Events: hub, Paths: paths.OS{}, Log: quiet})
	if err != nil {
		b.Fatal(err)
	}
	c := clock.System{}
	srv := httptest.NewServer(khttp.NewServer(khttp.Config{Version: "bench", Storage: "bolt", Clock: c, Started: c.Now()}, svc, hooks.New(svc), hub, quiet))
	b.Cleanup(func() {
		srv.Close()
		_ = svc.Close(context.Background())
		_ = store.Close()
	})
	return &instance{t: b, name: "bolt", url: srv.URL}
}

// writeLatencies runs writers goroutines per server, each putting nodes
// one after another until n writes are done, and returns every write's
// latency, sorted.
func writeLatencies(b *testing.B, servers []*instance, writers, n int) []time.Duration {
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	per := n / (len(servers) * writers)
	for si, in := range servers {
		for w := range writers {
			wg.Go(func() {
				for k := range per {
					start := time.Now()
					code, _ := in.putNodeQuiet(map[string]any{"level": "project", "project_path": "example.com/bench/team",
						"id": fmt.Sprintf("b%d-%d-%d-%d", si, w, k, b.N), "gist": "a benchmark write of a typical length for a gist"})
					d := time.Since(start)
					if code != 200 {
						b.Errorf("write on %s: %d", in.name, code)
						return
					}
					mu.Lock()
					lat = append(lat, d)
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	slices.Sort(lat)
	return lat
}

func pct(lat []time.Duration, p float64) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	return lat[min(len(lat)-1, int(float64(len(lat))*p))]
}

// BenchmarkTeamWrite: write p50 and p99 of two team servers, 8 writers
// each, and of one bolt server with 16 writers, through the same client;
// x-bolt is the team's p50 over bolt's (the target: within 3).
func BenchmarkTeamWrite(b *testing.B) {
	_, ins := team(b, 2, options{})
	bs := boltServer(b)
	const n = 800
	for b.Loop() {
		tl := writeLatencies(b, ins, 8, n)
		bl := writeLatencies(b, []*instance{bs}, 16, n)
		b.ReportMetric(float64(pct(tl, .5).Microseconds())/1000, "team-p50-ms")
		b.ReportMetric(float64(pct(tl, .99).Microseconds())/1000, "team-p99-ms")
		b.ReportMetric(float64(pct(bl, .5).Microseconds())/1000, "bolt-p50-ms")
		b.ReportMetric(float64(pct(bl, .99).Microseconds())/1000, "bolt-p99-ms")
		b.ReportMetric(float64(pct(tl, .5))/float64(pct(bl, .5)), "x-bolt")
	}
}

// BenchmarkTeamEvents: the time from a write acknowledged on A to its
// event on a /ws subscriber of B, p50 and p99, with 8 writers on A; and
// read-your-writes: a session's kg_sync on B right after a write on A
// reports it (rw-missed counts the syncs that did not).
func BenchmarkTeamEvents(b *testing.B) {
	_, ins := team(b, 2, options{})
	a, bb := ins[0], ins[1]
	const project = "example.com/bench/events"
	bb.graph(project)
	s := bb.dial("project_path=" + url.QueryEscape(project))
	for b.Loop() {
		const writers, each = 8, 40
		acked := make(map[string]time.Time, writers*each)
		var mu sync.Mutex
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				for k := range each {
					id := fmt.Sprintf("e%d-%d-%d", w, k, time.Now().UnixNano())
					code, _ := a.putNodeQuiet(map[string]any{"level": "project", "project_path": project, "id": id, "gist": "e"})
					now := time.Now()
					if code == 200 {
						mu.Lock()
						acked[id] = now
						mu.Unlock()
					}
				}
			})
		}
		wg.Wait()
		if !s.waitFor(30*time.Second, func(fs []map[string]any) bool { return len(eventFrames(fs)) >= len(acked) }) {
			b.Fatalf("%d of %d events", len(s.events()), len(acked))
		}
		var lat []time.Duration
		s.mu.Lock()
		for i, f := range s.frames {
			n, _ := f["node"].(map[string]any)
			id, _ := n["id"].(string)
			if at, ok := acked[id]; ok {
				lat = append(lat, s.at[i].Sub(at))
			}
		}
		s.frames, s.at = nil, nil
		s.mu.Unlock()
		slices.Sort(lat)
		b.ReportMetric(float64(pct(lat, .5).Microseconds())/1000, "event-p50-ms")
		b.ReportMetric(float64(pct(lat, .99).Microseconds())/1000, "event-p99-ms")

		sess := bb.register(project)
		missed := 0
		for k := range 50 {
			id := fmt.Sprintf("ryw-%d-%d", k, time.Now().UnixNano())
			if code, _ := a.putNodeQuiet(map[string]any{"level": "project", "project_path": project, "id": id, "gist": "r"}); code != 200 {
				b.Fatal("write")
			}
			found := false
			for _, got := range syncIDs(bb.sync(sess)) {
				found = found || got == id
			}
			if !found {
				missed++
			}
		}
		b.ReportMetric(float64(missed), "rw-missed")
	}
}
