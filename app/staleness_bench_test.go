package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/adapters/filehash"
	"github.com/kg-memory/kg/domain"
)

// BenchmarkStaleTick is one maintenance tick's staleness check at its bound:
// 2,000 recorded files of 4 KiB in a project folder, one a node, a tenth of
// them changed since (docs/performance.md#staleness). The target is under 1 s.
func BenchmarkStaleTick(b *testing.B) {
	ctx := context.Background()
	root := b.TempDir()
	const files = DefaultStaleFilesPerTick
	body := strings.Repeat("def f(x):\n    return x + 1\n", 4096/27)
	path := func(i int) string { return fmt.Sprintf("src/pkg%02d/mod%04d.py", i%50, i) }
	write := func(p, content string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for i := range files {
		write(filepath.Join(root, path(i)), body)
	}
	st := newCountingStore()
	svc, err := New(DefaultConfig(), Deps{Graphs: st, Sessions: st, Clock: clock.NewManual(t0), Events: &recorder{},
		Paths: fakePaths{}, Files: filehash.OS{}})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close(ctx)
	sess, err := svc.RegisterSession(ctx, root, "")
	if err != nil {
		b.Fatal(err)
	}
	for i := range files {
		in := domain.NodeInput{ID: fmt.Sprintf("n%04d", i), Gist: fmt.Sprintf("module %d does its thing", i), Touches: []string{path(i)}}
		if _, err := svc.PutNode(ctx, project(sess.ID), in); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < files; i += 10 {
		write(filepath.Join(root, path(i)), body+"# changed\n")
	}
	b.ResetTimer()
	for b.Loop() {
		if n := svc.maint.CheckStaleFiles(ctx); n != files {
			b.Fatalf("a tick read %d files, want %d", n, files)
		}
	}
	b.StopTimer()
	res, err := svc.ReadGraphs(ctx, Scope{ProjectPath: root})
	if err != nil {
		b.Fatal(err)
	}
	marked := 0
	for _, n := range res.Project.Nodes {
		if len(n.Stale) > 0 {
			marked++
		}
	}
	if marked != files/10 {
		b.Fatalf("%d nodes marked, want %d", marked, files/10)
	}
}

// BenchmarkPutNodeRecordsFiles is a project node's write with five touches
// that are 4 KiB files of the project, with the files read and hashed
// (hasher=os) and without (hasher=none): what recording costs a write, on
// the in-memory store (no fsync, so the ratio is the most it can be).
func BenchmarkPutNodeRecordsFiles(b *testing.B) {
	root := b.TempDir()
	body := strings.Repeat("def f(x):\n    return x + 1\n", 4096/27)
	var touches []string
	for i := range 5 {
		p := fmt.Sprintf("src/mod%d.py", i)
		if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
		touches = append(touches, p)
	}
	for _, hasher := range []string{"none", "os"} {
		b.Run("hasher="+hasher, func(b *testing.B) {
			ctx := context.Background()
			st := newCountingStore()
			deps := Deps{Graphs: st, Sessions: st, Clock: clock.NewManual(t0), Events: &recorder{}, Paths: fakePaths{}}
			if hasher == "os" {
				deps.Files = filehash.OS{}
			}
			svc, err := New(DefaultConfig(), deps)
			if err != nil {
				b.Fatal(err)
			}
			defer svc.Close(ctx)
			sess, err := svc.RegisterSession(ctx, root, "")
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; b.Loop(); i++ {
				in := domain.NodeInput{ID: fmt.Sprintf("n%d", i%100), Gist: "a node about five modules", Touches: touches}
				if _, err := svc.PutNode(ctx, project(sess.ID), in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
