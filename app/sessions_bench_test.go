package app

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/adapters/storage/bolt"
	"github.com/kg-memory/kg/adapters/storage/jsonfile"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// BenchmarkRegisterSession registers one session (POST
// /api/sessions/register, kg_read with cwd) on a root that already holds
// 1,000 or 10,000 live sessions, on each backend with its real fsync. A
// register saves the new session at once, so it costs one durable append;
// it must not grow with the sessions already there (issue 15: 185/s at 2k
// sessions, 28/s at 12k, when every save compared and copied every session).
// At 10,000, the cap, each register also expires the least recently active.
func BenchmarkRegisterSession(b *testing.B) {
	type repo interface {
		ports.GraphRepository
		ports.SessionRepository
	}
	backends := []struct {
		name string
		open func(b *testing.B, dir string) repo
	}{
		{"json", func(b *testing.B, dir string) repo {
			s, err := jsonfile.Open(dir, jsonfile.Options{})
			if err != nil {
				b.Fatal(err)
			}
			return s
		}},
		{"bolt", func(b *testing.B, dir string) repo {
			s, err := bolt.Open(context.Background(), dir, bolt.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = s.Close() })
			return s
		}},
	}
	for _, be := range backends {
		for _, n := range []int{1000, 10000} {
			b.Run(fmt.Sprintf("%s/sessions=%d", be.name, n), func(b *testing.B) {
				ctx := context.Background()
				st := be.open(b, b.TempDir())
				now := domain.Micros(t0.UnixMicro())
				seeded := make(map[string]ports.Session, n)
				for i := range n {
					id := fmt.Sprintf("%016x", i)
					seeded[id] = ports.Session{ID: id, ProjectPath: "/work/bench", Start: now, LastActivity: now + domain.Micros(i),
						Synced: map[domain.GraphKey]uint64{domain.UserGraph: 1}}
				}
				if err := st.UpdateSessions(ctx, ports.PutSessions(seeded)); err != nil {
					b.Fatal(err)
				}
				clk := clock.NewManual(t0)
				svc, err := New(DefaultConfig(), Deps{Graphs: st, Sessions: st, Clock: clk, Events: &recorder{}, Paths: fakePaths{}})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { _ = svc.Close(ctx) })
				if _, err := svc.RegisterSession(ctx, "/work/bench", ""); err != nil { // loads the project graph
					b.Fatal(err)
				}
				cpu := processCPU(b)
				for b.Loop() {
					if _, err := svc.RegisterSession(ctx, "/work/bench", ""); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "registers/s")
				// The CPU a register costs, apart from waiting for the disk,
				// which is what grew with the sessions.
				b.ReportMetric(float64((processCPU(b)-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
			})
		}
	}
}

// processCPU is the CPU time this process has used, user and system.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
