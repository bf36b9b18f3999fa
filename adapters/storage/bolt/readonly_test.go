package bolt_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/kg-memory/kg/adapters/storage/bolt"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// A store opened read-only writes nothing to kg.db, ever — not at Open,
// not at Close (no free list), not for damaged sessions — whatever the
// file: closed cleanly, left without its free list by a kill, with a
// damaged page, with its free list damaged (which a read-write Open
// refuses, and which read-only is not needed); and it reads every graph it
// can. A root without kg.db is not created.
func TestReadOnlyOpenWritesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name     string
		prepare  func(t *testing.T, dir string) string // returns kg.db
		readable []domain.GraphKey
		refused  string // what Inspection says a read-write Open refuses
	}{
		{"closed cleanly", func(t *testing.T, dir string) string { return buildFile(t, dir) },
			[]domain.GraphKey{domain.UserGraph, domain.ProjectGraph(projA), domain.ProjectGraph(projB)}, ""},
		{"after a kill", func(t *testing.T, dir string) string {
			src := t.TempDir()
			buildFile(t, src)
			s := open(t, src)
			k := domain.ProjectGraph(projB)
			d, err := s.Load(ctx, k)
			if err != nil {
				t.Fatal(err)
			}
			g, _ := domain.Restore(k, d, domain.RestoreOptions{})
			if _, err := g.PutNode(domain.NodeInput{ID: "new", Gist: "written before the kill"}, domain.Stamp{Now: t0 + 1}); err != nil {
				t.Fatal(err)
			}
			if err := s.Commit(ctx, k, g, g.Pending()); err != nil {
				t.Fatal(err)
			}
			_, file := crashImage(t, src)
			if fl := freelistPage(t, file); fl != noFreelist {
				t.Fatalf("the crash image names free-list page %d", fl)
			}
			raw, _ := os.ReadFile(file)
			dst := filepath.Join(dir, bolt.FileName)
			if err := os.WriteFile(dst, raw, 0o600); err != nil {
				t.Fatal(err)
			}
			return dst
		}, []domain.GraphKey{domain.UserGraph, domain.ProjectGraph(projA), domain.ProjectGraph(projB)}, ""},
		{"a damaged page and damaged sessions", func(t *testing.T, dir string) string {
			file := buildFile(t, dir)
			writePage(t, file, rootPage(t, file, "projects", projA, "nodes"), nil)
			writePage(t, file, rootPage(t, file, "sessions"), nil)
			return file
		}, []domain.GraphKey{domain.UserGraph, domain.ProjectGraph(projB)}, ""},
		{"a damaged free list", func(t *testing.T, dir string) string {
			file := buildFile(t, dir)
			writePage(t, file, freelistPage(t, file), nil)
			return file
		}, []domain.GraphKey{domain.UserGraph, domain.ProjectGraph(projA), domain.ProjectGraph(projB)}, "free list is unreadable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			file := c.prepare(t, dir)
			before, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			s, err := bolt.Open(ctx, dir, bolt.Options{ReadOnly: true, Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
			if err != nil {
				t.Fatalf("open read-only: %v", err)
			}
			for _, k := range c.readable {
				if _, err := s.Load(ctx, k); err != nil {
					t.Errorf("load %s: %v", k, err)
				}
			}
			if _, err := s.LoadSessions(ctx); err != nil && !errors.Is(err, ports.ErrDamaged) {
				t.Errorf("load sessions: %v", err)
			}
			g, _ := domain.Restore(domain.UserGraph, domain.GraphData{}, domain.RestoreOptions{})
			_, _ = g.PutNode(domain.NodeInput{ID: "x", Gist: "y"}, domain.Stamp{Now: t0})
			if err := s.Commit(ctx, domain.UserGraph, g, g.Pending()); err == nil {
				t.Error("a commit to a read-only store succeeded")
			}
			if got := s.Inspection().Refused; (c.refused == "") != (got == "") || !bytes.Contains([]byte(got), []byte(c.refused)) {
				t.Errorf("Inspection().Refused = %q, want %q", got, c.refused)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if after, _ := os.ReadFile(file); !bytes.Equal(before, after) {
				t.Error("a read-only store changed kg.db")
			}
		})
	}
	root := filepath.Join(t.TempDir(), "none")
	if _, err := bolt.Open(ctx, root, bolt.Options{ReadOnly: true}); err == nil {
		t.Error("a read-only open of a root without kg.db succeeded")
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("a read-only open made the root: %v", err)
	}
}

// A damaged project removed (kg project rm --force) is set aside unread in
// the quarantine, not deleted (deleting reads every page to free it); the
// rest is served, and a reopen finds the file sound.
func TestRemoveDamagedProject(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	file := buildFile(t, dir)
	writePage(t, file, rootPage(t, file, "projects", projA, "nodes"), nil)
	s := openDamaged(t, dir)
	if err := s.RemoveProject(ctx, projA); err != nil {
		t.Fatalf("remove: %v", err)
	}
	if d := s.Damage(); len(d) != 0 {
		t.Errorf("Damage() after the removal = %q", d)
	}
	list, err := s.List(ctx)
	if err != nil || len(list) != 1 || list[0].Key.Project != projB {
		t.Errorf("List = %v, %v; want %s alone", list, err, projB)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if q := quarantined(t, file); len(q) != 1 {
		t.Errorf("quarantine = %v, want the removed project", q)
	}
	s = openDamaged(t, dir)
	if d := s.Damage(); len(d) != 0 {
		t.Errorf("Damage() after a reopen = %q", d)
	}
	if d, err := s.Load(ctx, domain.ProjectGraph(projA)); err != nil || !d.Empty() {
		t.Errorf("the removed project loads %v, %v; want nothing", d, err)
	}
}
