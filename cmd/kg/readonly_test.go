package main

// Commands that only read leave a root exactly as they found it, and a
// read-only visit of the server writes nothing (issue 15).

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/kg-memory/kg/adapters/storage/bolt"
	"github.com/kg-memory/kg/domain"
)

// rootImage is every entry under a root, folders and the lock file
// included: its mode, and for a file its bytes.
func rootImage(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = fi.Mode().String()
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] += " " + string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameRoot fails the test with what changed between two images.
func sameRoot(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for p := range before {
			if !yield(p) {
				return
			}
		}
	}) {
		switch a, ok := after[p]; {
		case !ok:
			t.Errorf("%s removed %s", what, p)
		case a != before[p]:
			t.Errorf("%s changed %s", what, p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s made %s", what, p)
		}
	}
}

// boltFile writes <root>/kg.db with a user graph and a project, closed as
// a server leaves it, and nothing else in the root; with open it returns
// the store still open (its free list not written, as a kill leaves it) and
// a copy of the file as it is then.
func boltFile(t *testing.T, root string) {
	t.Helper()
	s, err := bolt.Open(context.Background(), root, bolt.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []domain.GraphKey{domain.UserGraph, domain.ProjectGraph("/work/app")} {
		d := domain.GraphData{Schema: 2, Seq: 3, ProjectPath: k.Project}
		for i := range 3 {
			d.Nodes = append(d.Nodes, domain.Node{ID: fmt.Sprintf("n-%d", i), Gist: "kept in bolt",
				Version: domain.Version{V: 1, TS: 1_716_400_000_000_000, Seq: uint64(i + 1)}})
		}
		g, _ := domain.Restore(k, d, domain.RestoreOptions{})
		if err := s.Commit(context.Background(), k, g, g.Everything()); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// Every command that only reads — kg compact --dry-run, kg export (of the
// user graph and of a project), kg project list, kg doctor — leaves a root
// as it found it: no .lock, no .backend, no folder, no byte changed; on a
// json root that holds only user.json, and on bolt roots that hold only
// kg.db: closed cleanly, left without its free list by a kill, with a
// damaged page. (kg doctor used to commit a transaction on every run, and
// the others created .backend and .lock.)
func TestReadOnlyCommandsLeaveTheRootAsTheyFoundIt(t *testing.T) {
	t.Parallel()
	commands := [][]string{
		{"compact", "--dry-run"},
		{"compact", "--dry-run", "--project", "/work/app"},
		{"export"},
		{"export", "--project", "/work/app"},
		{"project", "list"},
		{"doctor"},
	}
	roots := map[string]func(t *testing.T, root string){
		"json, only user.json": func(t *testing.T, root string) { oldUserGraph(t, root, 3) },
		"bolt, closed cleanly": boltFile,
		"bolt, after a kill": func(t *testing.T, root string) {
			boltFile(t, root)
			// A kill leaves the newest meta page without a free list:
			// kg's Close writes it; put back the meta page of the commit
			// before it, as the file was then.
			crashImageOf(t, filepath.Join(root, bolt.FileName))
		},
		"bolt, a damaged page": func(t *testing.T, root string) {
			boltFile(t, root)
			file := filepath.Join(root, bolt.FileName)
			owners, _, err := bolt.PageOwners(file)
			if err != nil {
				t.Fatal(err)
			}
			for pg, o := range owners {
				if o == "the project graph /work/app" {
					zeroPageAt(t, file, pg)
					return
				}
			}
			t.Fatal("no page of the project")
		},
	}
	for name, build := range roots {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			build(t, root)
			for _, args := range commands {
				before := rootImage(t, root)
				code, stdout, stderr := runKG(t, nil, append(args, "--storage-root", root)...)
				t.Logf("kg %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
				sameRoot(t, "kg "+strings.Join(args, " "), before, rootImage(t, root))
			}
		})
	}
}

// crashImageOf makes the kg.db at file look as a kill -9 leaves it: both
// meta pages name no free list (what every commit writes, ADR 0040), the
// free list kg's Close wrote left as a page nothing names.
func crashImageOf(t *testing.T, file string) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ps := os.Getpagesize()
	for _, off := range []int{0, ps} {
		m := raw[off+16 : off+16+64]
		for i := range 8 {
			m[32+i] = 0xff // freelist = PgidNoFreelist
		}
		h := fnvSum(m[:56])
		for i := range 8 {
			m[56+i] = byte(h >> (8 * i))
		}
	}
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}
}

// fnvSum is FNV-64a, the checksum of a bbolt meta page.
func fnvSum(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// zeroPageAt overwrites page pg of file with zeros.
func zeroPageAt(t *testing.T, file string, pg int) {
	t.Helper()
	f, err := os.OpenFile(file, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(make([]byte, os.Getpagesize()), int64(pg)*int64(os.Getpagesize())); err != nil {
		t.Fatal(err)
	}
}

// The case: a read-only visit — kg_read with a new cwd, POST
// /api/sessions/register, GET /api/graph/read?project_path=… — wrote
// projects/<name>/graph.json at the next tick, so the project was listed for
// ever and took the folder name from a later real project. Now nothing is
// written for a graph until it holds something, the user graph included,
// through ticks and a shutdown; the project is never listed; and the real
// project named the same gets the plain folder name.
func TestReadOnlyVisitCreatesNoProject(t *testing.T) {
	t.Parallel()
	forEachStorage(t, func(t *testing.T, storage string) {
		root := t.TempDir()
		p := start(t, "--port", "0", "--storage", storage, "--storage-root", root, "--maintenance-interval", "1", "--log-level", "debug")
		callTool(t, p.Addr, "kg_read", map[string]any{"cwd": "/home/dev/visited"})
		restJSON(t, p.Addr, "POST", "/api/sessions/register?project_path=/home/dev/registered", nil, 200)
		restJSON(t, p.Addr, "GET", "/api/graph/read?project_path=/home/dev/typo", nil, 200)
		waitLog(t, p, `"msg":"maintenance tick done"`, strings.Count(p.log(), `"msg":"maintenance tick done"`)+2)
		if ps := restJSON(t, p.Addr, "GET", "/api/projects", nil, 200)["projects"].([]any); len(ps) != 0 {
			t.Errorf("GET /api/projects = %v, want none", ps)
		}
		if code := p.stop(syscall.SIGTERM); code != 0 {
			t.Fatalf("exit %d\n%s", code, p.log())
		}
		for _, name := range []string{"projects", "user.json"} {
			if _, err := os.Stat(filepath.Join(root, name)); !os.IsNotExist(err) {
				t.Errorf("%s exists after read-only visits: %v", name, err)
			}
		}
		if code, out, _ := runKG(t, nil, "project", "list", "--storage-root", root); code != 0 || !strings.Contains(out, "no project has memory") {
			t.Errorf("kg project list: exit %d\n%s", code, out)
		}

		p = start(t, "--port", "0", "--storage", storage, "--storage-root", root)
		sid := sessionOf(callTool(t, p.Addr, "kg_read", map[string]any{"cwd": "/srv/real/typo"}))
		callTool(t, p.Addr, "kg_put_node", map[string]any{"session_id": sid, "level": "project", "id": "real", "gist": "a real project"})
		ps := restJSON(t, p.Addr, "GET", "/api/projects", nil, 200)["projects"].([]any)
		if len(ps) != 1 || field(ps[0], "slug") != "typo" || field(ps[0], "project_path") != "/srv/real/typo" {
			t.Errorf("GET /api/projects = %v, want /srv/real/typo in the folder typo", ps)
		}
		if code := p.stop(syscall.SIGTERM); code != 0 {
			t.Fatalf("exit %d\n%s", code, p.log())
		}
	})
}

// forEachStorage runs f as a parallel subtest per backend.
func forEachStorage(t *testing.T, f func(t *testing.T, storage string)) {
	for _, storage := range []string{"json", "bolt"} {
		t.Run(storage, func(t *testing.T) {
			t.Parallel()
			f(t, storage)
		})
	}
}
