package jsonfile

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

func openTest(t *testing.T, root string) (*Store, *testFS, *bytes.Buffer) {
	t.Helper()
	tfs := &testFS{root: root}
	var logs bytes.Buffer
	s, err := Open(root, Options{FS: tfs, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Now: func() time.Time { return time.Unix(1716400000, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	return s, tfs, &logs
}

func oneNode(t *testing.T, k domain.GraphKey, id string) *domain.Graph {
	t.Helper()
	g := domain.NewGraph(k)
	if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: "gist of " + id}, domain.Stamp{Now: 1716400000_000000}); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestSaveOrder checks the durable-save sequence of storage.md: the tmp is
// fsynced before it is renamed over the file, the old file is kept as
// .prev by a hard link before that, and the folder is fsynced after the
// rename and before Commit returns; folders created for the first save of a
// project are fsynced up to the root.
func TestSaveOrder(t *testing.T) {
	root := t.TempDir()
	s, tfs, _ := openTest(t, root)
	ctx := t.Context()
	k := domain.ProjectGraph("/home/dev/app")
	g := oneNode(t, k, "a")
	tfs.takeOps()
	if err := s.Commit(ctx, k, g, g.Pending()); err != nil {
		t.Fatal(err)
	}
	first := tfs.takeOps()
	wantFirst := []string{
		"mkdir projects", "mkdir projects/app",
		"fsyncdir projects/app", "fsyncdir projects", "fsyncdir .",
		"create projects/app/graph.tmp", "write projects/app/graph.tmp", "fsync projects/app/graph.tmp",
		"rename projects/app/graph.tmp -> projects/app/graph.json", "fsyncdir projects/app",
	}
	if !slices.Equal(first, wantFirst) {
		t.Errorf("first save ops:\n got %q\nwant %q", first, wantFirst)
	}
	g.Checkpoint()
	if _, err := g.PutNode(domain.NodeInput{ID: "b", Gist: "second"}, domain.Stamp{Now: 1716400001_000000}); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, k, g, g.Pending()); err != nil {
		t.Fatal(err)
	}
	second := tfs.takeOps()
	wantSecond := []string{
		"create projects/app/graph.tmp", "write projects/app/graph.tmp", "fsync projects/app/graph.tmp",
		"remove projects/app/graph.prev", "link projects/app/graph.json -> projects/app/graph.prev",
		"rename projects/app/graph.tmp -> projects/app/graph.json", "fsyncdir projects/app",
	}
	if !slices.Equal(second, wantSecond) {
		t.Errorf("second save ops:\n got %q\nwant %q", second, wantSecond)
	}
	// .prev is the first version, a hard link (same inode as it was).
	prev, err := os.ReadFile(filepath.Join(root, "projects/app/graph.prev"))
	if err != nil || bytes.Contains(prev, []byte(`"b"`)) || !bytes.Contains(prev, []byte(`"a"`)) {
		t.Errorf(".prev = %s, %v; want the first version", prev, err)
	}
}

// TestFaults injects full-disk and read-only errors at each write step:
// the commit fails with kind unavailable, the stored graph is the old one,
// no tmp is left, and a later save succeeds.
func TestFaults(t *testing.T) {
	steps := []string{"create", "write", "fsync", "remove", "link", "rename", "fsyncdir"}
	for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EROFS} {
		for _, step := range steps {
			t.Run(errno.Error()+"/"+step, func(t *testing.T) {
				root := t.TempDir()
				s, tfs, _ := openTest(t, root)
				ctx := t.Context()
				g := oneNode(t, domain.UserGraph, "old")
				if err := s.Commit(ctx, domain.UserGraph, g, g.Pending()); err != nil {
					t.Fatal(err)
				}
				g.Checkpoint()
				if _, err := g.PutNode(domain.NodeInput{ID: "new", Gist: "ghost"}, domain.Stamp{Now: 1716400002_000000}); err != nil {
					t.Fatal(err)
				}
				tfs.mu.Lock()
				tfs.fail = func(op, name string) error {
					// The clean-up removal of the tmp is left to work.
					if op == step && (strings.HasPrefix(name, "user") && (op != "remove" || name != "user.tmp") || name == ".") {
						return errno
					}
					return nil
				}
				tfs.mu.Unlock()
				err := s.Commit(ctx, domain.UserGraph, g, g.Pending())
				tfs.setFault(nil)
				if step == "fsyncdir" {
					// The rename happened: the new version may be on disk,
					// but it was not acknowledged.
					if domain.KindOf(err) != domain.KindUnavailable {
						t.Fatalf("commit = %v, want unavailable", err)
					}
					return
				}
				if domain.KindOf(err) != domain.KindUnavailable || !errors.Is(err, errno) {
					t.Fatalf("commit = %v, want unavailable wrapping %v", err, errno)
				}
				if !strings.Contains(err.Error(), "user.json") {
					t.Errorf("error %q does not name the file", err)
				}
				d, err := s.Load(ctx, domain.UserGraph)
				if err != nil || len(d.Nodes) != 1 || d.Nodes[0].ID != "old" {
					t.Errorf("after failed save: %+v, %v; want the old graph", d.Nodes, err)
				}
				if _, err := os.Stat(filepath.Join(root, "user.tmp")); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("user.tmp left behind: %v", err)
				}
				if err := s.Commit(ctx, domain.UserGraph, g, g.Pending()); err != nil {
					t.Errorf("retry after the fault cleared: %v", err)
				}
			})
		}
	}
}

func TestDamage(t *testing.T) {
	good := func(t *testing.T, s *Store, k domain.GraphKey) {
		t.Helper()
		g := oneNode(t, k, "v1")
		if err := s.Commit(t.Context(), k, g, g.Pending()); err != nil {
			t.Fatal(err)
		}
		g.Checkpoint()
		if _, err := g.PutNode(domain.NodeInput{ID: "v2", Gist: "second"}, domain.Stamp{Now: 1716400003_000000}); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(t.Context(), k, g, g.Pending()); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name      string
		damage    func(t *testing.T, dir string) // dir holds user.json and user.prev
		wantNodes int                            // -1: unavailable
		wantKept  bool                           // the damaged file is kept as .corrupt-<time>
	}{
		{"missing file loads .prev", func(t *testing.T, dir string) { must(t, os.Remove(filepath.Join(dir, "user.json"))) }, 1, false},
		{"truncated file loads .prev", func(t *testing.T, dir string) { truncate(t, filepath.Join(dir, "user.json")) }, 1, true},
		{"wrong type loads .prev", func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, "user.json"), []byte(`{"nodes": {"x": {"gist": 1}}}`), 0o600))
		}, 1, true},
		{"both damaged is unavailable", func(t *testing.T, dir string) {
			truncate(t, filepath.Join(dir, "user.json"))
			truncate(t, filepath.Join(dir, "user.prev"))
		}, -1, false},
		{"missing and .prev damaged is unavailable", func(t *testing.T, dir string) {
			must(t, os.Remove(filepath.Join(dir, "user.json")))
			truncate(t, filepath.Join(dir, "user.prev"))
		}, -1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			s, _, logs := openTest(t, root)
			good(t, s, domain.UserGraph)
			other := domain.ProjectGraph("/home/dev/other")
			og := oneNode(t, other, "fine")
			if err := s.Commit(t.Context(), other, og, og.Pending()); err != nil {
				t.Fatal(err)
			}
			damaged, _ := os.ReadFile(filepath.Join(root, "user.json"))
			tc.damage(t, root)
			if b, err := os.ReadFile(filepath.Join(root, "user.json")); err == nil {
				damaged = b
			}
			d, err := s.Load(t.Context(), domain.UserGraph)
			if tc.wantNodes < 0 {
				if domain.KindOf(err) != domain.KindUnavailable || !strings.Contains(err.Error(), "user") {
					t.Errorf("load = %v, want unavailable naming the file", err)
				}
			} else if err != nil || len(d.Nodes) != tc.wantNodes {
				t.Errorf("load = %d nodes, %v; want %d (the .prev)", len(d.Nodes), err, tc.wantNodes)
			}
			if logs.Len() == 0 {
				t.Errorf("damage not logged")
			}
			kept, _ := filepath.Glob(filepath.Join(root, "user.corrupt-*"))
			if tc.wantKept {
				if len(kept) != 1 || filepath.Base(kept[0]) != "user.corrupt-1716400000" {
					t.Fatalf("kept = %q, want user.corrupt-1716400000", kept)
				}
				if b, _ := os.ReadFile(kept[0]); !bytes.Equal(b, damaged) {
					t.Errorf("the kept copy is not the damaged file")
				}
			} else if len(kept) != 0 {
				t.Errorf("kept = %q, want none", kept)
			}
			// Every other graph keeps working.
			if od, err := s.Load(t.Context(), other); err != nil || len(od.Nodes) != 1 {
				t.Errorf("other graph: %+v, %v", od, err)
			}
			if tc.wantNodes >= 0 {
				// A save after recovery keeps the good version as .prev.
				g, _ := domain.Restore(domain.UserGraph, d, domain.RestoreOptions{})
				if err := s.Commit(t.Context(), domain.UserGraph, g, g.Pending()); err != nil {
					t.Fatal(err)
				}
				if d2, err := s.Load(t.Context(), domain.UserGraph); err != nil || len(d2.Nodes) != 1 {
					t.Errorf("after saving the recovered graph: %v", err)
				}
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func truncate(t *testing.T, p string) {
	t.Helper()
	b, err := os.ReadFile(p)
	must(t, err)
	// Overwrite in place (not a new inode): a hard-linked .prev must not
	// share the damage, so replace the file first.
	must(t, os.Remove(p))
	must(t, os.WriteFile(p, b[:len(b)/2], 0o600))
}

func TestSessionsDamageFallsBack(t *testing.T) {
	root := t.TempDir()
	s, _, _ := openTest(t, root)
	ctx := t.Context()
	must(t, s.SaveSessions(ctx, nil))
	must(t, s.SaveSessions(ctx, map[string]ports.Session{"abcd": {ID: "abcd", Start: 1}}))
	truncate(t, filepath.Join(root, "sessions.json"))
	got, err := s.LoadSessions(ctx)
	if err != nil || len(got) != 0 {
		t.Errorf("LoadSessions = %v, %v; want the previous (empty) set", got, err)
	}
}
