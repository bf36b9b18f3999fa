package bolt_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/kg-memory/kg/adapters/storage/bolt"
	"github.com/kg-memory/kg/domain"
)

// BenchmarkCommitOneNode measures a durable commit of one changed node in
// graphs of growing size: per-item storage should keep it nearly flat.
func BenchmarkCommitOneNode(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			s := open(b, b.TempDir())
			g := saveAll(b, s, domain.UserGraph, bigGraph(n))
			i := 0
			for b.Loop() {
				i++
				id := fmt.Sprintf("n-%d", (i*7919)%n) // spread over the key space
				if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: fmt.Sprintf("changed %d", i)}, domain.Stamp{Now: t0 + domain.Micros(i)}); err != nil {
					b.Fatal(err)
				}
				if err := s.Commit(ctx, domain.UserGraph, g, g.Pending()); err != nil {
					b.Fatal(err)
				}
				g.Checkpoint()
			}
		})
	}
}

// BenchmarkLoad measures reading a whole 100k-node graph.
func BenchmarkLoad(b *testing.B) {
	ctx := context.Background()
	const n = 100_000
	s := open(b, b.TempDir())
	saveAll(b, s, domain.UserGraph, bigGraph(n))
	for b.Loop() {
		d, err := s.Load(ctx, domain.UserGraph)
		if err != nil {
			b.Fatal(err)
		}
		if len(d.Nodes) != n {
			b.Fatalf("loaded %d nodes, want %d", len(d.Nodes), n)
		}
	}
}

// BenchmarkOpen measures Open of a file holding a 100k-node graph: it reads
// every page once and runs bbolt's consistency check (damage.go), the cost
// weighed in docs/decisions/0007. after=close opens the file as Close left
// it, its free list written; after=kill opens a copy taken while the store
// was open, as a kill -9 leaves it: Open walks the pages once more before
// bbolt rebuilds the free list from them (docs/decisions/0040).
func BenchmarkOpen(b *testing.B) {
	const n = 100_000
	dir := b.TempDir()
	s := open(b, dir)
	g := saveAll(b, s, domain.UserGraph, bigGraph(n))
	if _, err := g.PutNode(domain.NodeInput{ID: "n-1", Gist: "changed"}, domain.Stamp{Now: t0 + 1}); err != nil {
		b.Fatal(err)
	}
	if err := s.Commit(context.Background(), domain.UserGraph, g, g.Pending()); err != nil {
		b.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, bolt.FileName))
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	killed := b.TempDir()
	for _, c := range []struct{ name, dir string }{{"after=close", dir}, {"after=kill", killed}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if c.dir == killed {
					b.StopTimer()
					if err := os.WriteFile(filepath.Join(killed, bolt.FileName), raw, 0o600); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				s, err := bolt.Open(context.Background(), c.dir, bolt.Options{Logger: slog.New(slog.DiscardHandler)})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}

// BenchmarkCommitEverything measures the first save of a whole graph in one
// transaction, as a migration or the first save of a big graph does: its
// items are written in key order, so it costs O(items), not O(items²).
func BenchmarkCommitEverything(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			g, _ := domain.Restore(domain.UserGraph, bigGraph(n), domain.RestoreOptions{})
			for b.Loop() {
				b.StopTimer()
				s := open(b, b.TempDir())
				b.StartTimer()
				if err := s.Commit(ctx, domain.UserGraph, g, g.Everything()); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}
