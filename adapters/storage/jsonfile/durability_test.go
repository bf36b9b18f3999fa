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

// oldThenNew commits a user graph of node "old" to s and returns it with
// node "new" (gist) put but not committed: the batch a fault test fails.
func oldThenNew(t *testing.T, s *Store, gist string) *domain.Graph {
	t.Helper()
	g := oneNode(t, domain.UserGraph, "old")
	if err := s.Commit(t.Context(), domain.UserGraph, g, g.Pending()); err != nil {
		t.Fatal(err)
	}
	g.Checkpoint()
	if _, err := g.PutNode(domain.NodeInput{ID: "new", Gist: gist}, domain.Stamp{Now: 1716400002_000000}); err != nil {
		t.Fatal(err)
	}
	return g
}

func oneNode(t *testing.T, k domain.GraphKey, id string) *domain.Graph {
	t.Helper()
	g := domain.NewGraph(k)
	if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: "gist of " + id}, domain.Stamp{Now: 1716400000_000000}); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestSaveOrder checks the durable-save sequences of
// docs/design/storage.md#durability. A new graph is written whole: the tmp is
// fsynced before it is renamed over the file, and the folder is fsynced after
// the rename and before Commit returns; folders created for the first save of a
// project are fsynced up to the root. A later commit appends one record to the
// journal and fsyncs it (the journal's folder too when the journal is new). A
// checkpoint writes the file whole again, keeping the old one as .prev by a
// hard link before the rename, then empties the journal and fsyncs it.
func TestSaveOrder(t *testing.T) {
	root := t.TempDir()
	s, tfs, _ := openTest(t, root)
	ctx := t.Context()
	k := domain.ProjectGraph("/home/dev/app")
	g := oneNode(t, k, "a")
	tfs.takeOps()
	commit := func() {
		t.Helper()
		if err := s.Commit(ctx, k, g, g.Pending()); err != nil {
			t.Fatal(err)
		}
		g.Checkpoint()
	}
	put := func(id string) {
		t.Helper()
		if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: "gist of " + id}, domain.Stamp{Now: 1716400001_000000}); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name string
		do   func()
		want []string
	}{
		{"first save", commit, []string{
			"mkdir projects", "mkdir projects/app",
			"fsyncdir projects/app", "fsyncdir projects", "fsyncdir .",
			"create projects/app/graph.tmp", "write projects/app/graph.tmp", "fsync projects/app/graph.tmp",
			"rename projects/app/graph.tmp -> projects/app/graph.json", "fsyncdir projects/app",
		}},
		{"first append", func() { put("b"); commit() }, []string{
			"append projects/app/graph.journal", "fsyncdir projects/app",
			"write projects/app/graph.journal", "fsync projects/app/graph.journal",
		}},
		// The journal is opened for each append, never held open.
		{"next append", func() { put("c"); commit() }, []string{
			"append projects/app/graph.journal", "write projects/app/graph.journal", "fsync projects/app/graph.journal",
		}},
		{"checkpoint", func() {
			if err := s.Checkpoint(ctx, k, g); err != nil {
				t.Fatal(err)
			}
		}, []string{
			"create projects/app/graph.tmp", "write projects/app/graph.tmp", "fsync projects/app/graph.tmp",
			"remove projects/app/graph.prev", "link projects/app/graph.json -> projects/app/graph.prev",
			"rename projects/app/graph.tmp -> projects/app/graph.json", "fsyncdir projects/app",
			"append projects/app/graph.journal", "truncate projects/app/graph.journal", "fsync projects/app/graph.journal",
		}},
		{"checkpoint of an empty journal", func() {
			if err := s.Checkpoint(ctx, k, g); err != nil {
				t.Fatal(err)
			}
		}, nil},
	}
	for _, step := range steps {
		step.do()
		if got := tfs.takeOps(); !slices.Equal(got, step.want) {
			t.Errorf("%s ops:\n got %q\nwant %q", step.name, got, step.want)
		}
	}
	// .prev is the first version, kept by a hard link.
	prev, err := os.ReadFile(filepath.Join(root, "projects/app/graph.prev"))
	if err != nil || bytes.Contains(prev, []byte(`"b"`)) || !bytes.Contains(prev, []byte(`"a"`)) {
		t.Errorf(".prev = %s, %v; want the first version", prev, err)
	}
	if fi, err := os.Stat(filepath.Join(root, "projects/app/graph.journal")); err != nil || fi.Size() != 0 {
		t.Errorf("journal after the checkpoint: %v, %v; want empty", fi, err)
	}
}

// TestFaults injects full-disk and read-only errors at each write step of
// an append and of a checkpoint. A failed append is refused with kind
// unavailable naming the file, leaves the stored graph as it was (the
// journal cut back to its records) and the next commit succeeds. A failed
// checkpoint is refused too but loses nothing: the journal keeps the
// records, no tmp is left, and the next checkpoint succeeds.
func TestFaults(t *testing.T) {
	type path struct {
		name  string
		steps []string
	}
	paths := []path{
		{"append", []string{"append", "fsyncdir", "write", "fsync"}},
		{"checkpoint", []string{"create", "write", "fsync", "remove", "link", "rename", "fsyncdir", "truncate"}},
	}
	for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EROFS} {
		for _, p := range paths {
			for _, step := range p.steps {
				t.Run(errno.Error()+"/"+p.name+"/"+step, func(t *testing.T) {
					root := t.TempDir()
					s, tfs, _ := openTest(t, root)
					ctx := t.Context()
					g := oldThenNew(t, s, "second")
					if p.name == "checkpoint" {
						if err := s.Commit(ctx, domain.UserGraph, g, g.Pending()); err != nil {
							t.Fatal(err)
						}
						g.Checkpoint()
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
					var err error
					if p.name == "append" {
						err = s.Commit(ctx, domain.UserGraph, g, g.Pending())
					} else {
						err = s.Checkpoint(ctx, domain.UserGraph, g)
					}
					tfs.setFault(nil)
					if domain.KindOf(err) != domain.KindUnavailable || !errors.Is(err, errno) {
						t.Fatalf("%s = %v, want unavailable wrapping %v", p.name, err, errno)
					}
					if !strings.Contains(err.Error(), "user.") {
						t.Errorf("error %q does not name the file", err)
					}
					want := []string{"new", "old"}
					if p.name == "append" {
						want = []string{"old"} // the refused batch is not stored
					}
					d, err := s.Load(ctx, domain.UserGraph)
					if err != nil || !slices.Equal(nodeIDs(d), want) {
						t.Errorf("after the fault: %v, %v; want %v", nodeIDs(d), err, want)
					}
					if _, err := os.Stat(filepath.Join(root, "user.tmp")); !errors.Is(err, os.ErrNotExist) {
						t.Errorf("user.tmp left behind: %v", err)
					}
					if p.name == "append" {
						if err := s.Commit(ctx, domain.UserGraph, g, g.Pending()); err != nil {
							t.Fatalf("retry after the fault cleared: %v", err)
						}
					} else if err := s.Checkpoint(ctx, domain.UserGraph, g); err != nil {
						t.Fatalf("checkpoint after the fault cleared: %v", err)
					}
					s2, _, _ := openTest(t, root)
					if d, err := s2.Load(ctx, domain.UserGraph); err != nil || !slices.Equal(nodeIDs(d), []string{"new", "old"}) {
						t.Errorf("reopened after the retry: %v, %v", nodeIDs(d), err)
					}
				})
			}
		}
	}
}

// nodeIDs returns the ids of d's nodes, sorted.
func nodeIDs(d domain.GraphData) []string {
	var ids []string
	for _, n := range d.Nodes {
		ids = append(ids, n.ID)
	}
	slices.Sort(ids)
	return ids
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
		// Folded into the file: user.json holds v2, user.prev v1.
		if err := s.Checkpoint(t.Context(), k, g); err != nil {
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
