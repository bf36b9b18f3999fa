package jsonfile

import (
	"github.com/kg-memory/kg/adapters/storage/record"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kg-memory/kg/adapters/storage/jsonfile/codec"
	"github.com/kg-memory/kg/domain"
)

// writeOwned writes a graph owned by owner (none when "") into
// projects/<name>.
func writeOwned(t *testing.T, root, name, owner string) {
	t.Helper()
	d := domain.GraphData{ProjectPath: owner, Nodes: []domain.Node{{ID: "from-" + strings.ReplaceAll(name, "/", "-"), Gist: "g"}}}
	dir := filepath.Join(root, "projects", name)
	must(t, os.MkdirAll(dir, 0o700))
	must(t, os.WriteFile(filepath.Join(dir, "graph.json"), codec.EncodeGraph(d), 0o600))
}

func TestFolderLookup(t *testing.T) {
	const p = "/home/dev/my app"
	hashed := "my-app-" + record.ProjectHash(p)
	tests := []struct {
		name    string
		setup   func(t *testing.T, root string)
		want    string // folder the first save lands in
		wantErr bool
	}{
		{"new project takes the slug", func(*testing.T, string) {}, "my-app", false},
		{"(a) raw name without owner", func(t *testing.T, root string) { writeOwned(t, root, "my app", "") }, "my app", false},
		{"(a) raw name owned by it", func(t *testing.T, root string) { writeOwned(t, root, "my app", p) }, "my app", false},
		{"(a) raw name owned by another falls to the slug", func(t *testing.T, root string) { writeOwned(t, root, "my app", "/other/my app") }, "my-app", false},
		{"(b) slug owned by it", func(t *testing.T, root string) { writeOwned(t, root, "my-app", p) }, "my-app", false},
		{"slug owned by another: hashed", func(t *testing.T, root string) { writeOwned(t, root, "my-app", "/other/my-app") }, hashed, false},
		{"(c) hashed exists", func(t *testing.T, root string) {
			writeOwned(t, root, "my-app", "/other/x")
			writeOwned(t, root, hashed, p)
		}, hashed, false},
		{"unreadable owner is unavailable", func(t *testing.T, root string) {
			must(t, os.MkdirAll(filepath.Join(root, "projects", "my app"), 0o700))
			must(t, os.WriteFile(filepath.Join(root, "projects", "my app", "graph.json"), []byte("{"), 0o600))
		}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			tc.setup(t, root)
			s, _, _ := openTest(t, root)
			k := domain.ProjectGraph(p)
			_, err := s.Load(t.Context(), k)
			if tc.wantErr {
				if domain.KindOf(err) != domain.KindUnavailable {
					t.Fatalf("Load = %v, want unavailable", err)
				}
				g := oneNode(t, k, "x")
				if err := s.Commit(t.Context(), k, g, g.Pending()); domain.KindOf(err) != domain.KindUnavailable {
					t.Fatalf("Commit = %v, want unavailable", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			g := oneNode(t, k, "mine")
			must(t, s.Commit(t.Context(), k, g, g.Pending()))
			b, err := os.ReadFile(filepath.Join(root, "projects", tc.want, "graph.json"))
			if err != nil || !strings.Contains(string(b), `"mine"`) || !strings.Contains(string(b), `"project_path": "`+p+`"`) {
				t.Errorf("projects/%s/graph.json = %.200s, %v; want this project's graph", tc.want, b, err)
			}
		})
	}
}

func TestAliasMovesFolder(t *testing.T) {
	root := t.TempDir()
	writeOwned(t, root, "old-name", "/home/dev/old-name")
	must(t, os.WriteFile(filepath.Join(root, "aliases.json"), []byte(`{"old-name": "new-name", "../evil": "new-name"}`), 0o600))
	s, _, _ := openTest(t, root)
	k := domain.ProjectGraph("/home/dev/new-name")
	d, err := s.Load(t.Context(), k)
	if err != nil || len(d.Nodes) != 1 || d.Nodes[0].ID != "from-old-name" {
		t.Fatalf("Load = %+v, %v; want the aliased graph", d.Nodes, err)
	}
	if _, err := os.Stat(filepath.Join(root, "projects", "old-name")); !os.IsNotExist(err) {
		t.Errorf("old folder still there (moved, not copied): %v", err)
	}
	list, err := s.List(t.Context())
	if err != nil || len(list) != 1 || list[0].Key != k || list[0].Slug != "new-name" {
		t.Errorf("List = %+v, %v", list, err)
	}
	if _, err := os.Stat(filepath.Join(root, "aliases.json")); err != nil {
		t.Errorf("alias not kept: %v", err)
	}
}

func TestPathsStayUnderRoot(t *testing.T) {
	root := t.TempDir()
	s, _, _ := openTest(t, root)
	for _, p := range []string{"/x/..", "/x/../../etc", "/", "/x/.", "/a/b/.."} {
		k := domain.ProjectGraph(p)
		g := oneNode(t, k, "n")
		if err := s.Commit(t.Context(), k, g, g.Pending()); err != nil {
			t.Errorf("commit %q: %v", p, err)
		}
	}
	for _, bad := range []string{root + "/../x", root, "/etc/passwd"} {
		if s.under(bad) == nil {
			t.Errorf("under(%q) accepted", bad)
		}
	}
	err := filepath.WalkDir(filepath.Dir(root), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(path, root+string(filepath.Separator)) {
			t.Errorf("file written outside the root: %s", path)
		}
		return nil
	})
	must(t, err)
}
