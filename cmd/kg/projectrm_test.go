package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kg-memory/kg/adapters/storage/bolt"
	"github.com/kg-memory/kg/domain"
)

// emptyProject stores the empty graph an older kg wrote for a mere visit.
func emptyProject(t *testing.T, storage, root, project string) {
	t.Helper()
	if storage == "json" {
		writeFile(t, filepath.Join(root, "projects", filepath.Base(project), "graph.json"),
			`{"_meta": {"progress": {}, "project_path": "`+project+`", "schema": 2, "seq": 0, "tombstones": {}, "versions": {}}, "edges": {}, "nodes": {}}`)
		return
	}
	s, err := bolt.Open(context.Background(), root, bolt.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	k := domain.ProjectGraph(project)
	g, _ := domain.Restore(k, domain.GraphData{Schema: 2, ProjectPath: project}, domain.RestoreOptions{})
	if err := s.Commit(context.Background(), k, g, g.Everything()); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".backend"), []byte("bolt\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// kg project rm, on the files and through a running server, json and
// bolt: a project that holds nothing goes; one that holds memory is
// refused without --force (exit 1, nothing changed) and goes with it; an
// unknown one is an error; afterwards it is not listed and its folder name
// is free.
func TestProjectRm(t *testing.T) {
	t.Parallel()
	forEachStorage(t, func(t *testing.T, storage string) {
		root := t.TempDir()
		emptyProject(t, storage, root, "/home/dev/typo")
		rm := func(want int, args ...string) string {
			t.Helper()
			code, out, stderr := runKG(t, nil, append([]string{"project", "rm", "--storage-root", root}, args...)...)
			if code != want {
				t.Errorf("kg project rm %v: exit %d, want %d\n%s%s", args, code, want, out, stderr)
			}
			return out + stderr
		}
		if out := rm(0, "/home/dev/typo"); !strings.Contains(out, "removed /home/dev/typo: it held no memory") {
			t.Errorf("offline, an empty project: %s", out)
		}
		if out := rm(1, "/home/dev/typo"); !strings.Contains(out, "no project has memory at /home/dev/typo") {
			t.Errorf("offline, again: %s", out)
		}

		p := start(t, "--port", "0", "--storage", storage, "--storage-root", root)
		putNodes(t, p.Addr, "/work/full", "a", "b")
		if out := rm(1, "/work/full"); !strings.Contains(out, "holds 2 node(s)") || !strings.Contains(out, "--force") {
			t.Errorf("through the server, without --force: %s", out)
		}
		if ps := restJSON(t, p.Addr, "GET", "/api/projects", nil, 200)["projects"].([]any); len(ps) != 1 {
			t.Errorf("a refused removal changed the projects: %v", ps)
		}
		if out := rm(0, "/work/full", "--force"); !strings.Contains(out, "removed the memory of /work/full: 2 node(s), 0 edge(s)") {
			t.Errorf("through the server, --force: %s", out)
		}
		if ps := restJSON(t, p.Addr, "GET", "/api/projects", nil, 200)["projects"].([]any); len(ps) != 0 {
			t.Errorf("projects after the removal: %v", ps)
		}
		putNodes(t, p.Addr, "/work/again", "c")
		if code := p.stop(syscall.SIGTERM); code != 0 {
			t.Fatalf("exit %d\n%s", code, p.log())
		}
		if out := rm(1, "/work/again"); !strings.Contains(out, "holds 1 node(s)") {
			t.Errorf("offline, without --force: %s", out)
		}
		rm(0, "/work/again", "--force")
		if code, out, _ := runKG(t, nil, "project", "list", "--storage-root", root); code != 0 || !strings.Contains(out, "no project has memory") {
			t.Errorf("kg project list: exit %d\n%s", code, out)
		}
		if storage == "json" {
			entries, _ := os.ReadDir(filepath.Join(root, "projects"))
			if len(entries) != 0 {
				t.Errorf("projects/ still holds %v", entries)
			}
		}
	})
}
