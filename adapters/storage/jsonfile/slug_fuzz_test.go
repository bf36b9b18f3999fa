package jsonfile

import (
	"encoding/json"
	"github.com/kg-memory/kg/adapters/storage/record"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kg-memory/kg/adapters/storage/jsonfile/codec"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// slugPattern is what Slug may return (docs/design/storage.md#project-slugs).
var slugPattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,54}$`)

// FuzzSlug checks slug derivation on any project key: the slug matches its
// pattern, deriving it again from itself changes nothing, the hash is 8
// hex digits, and every folder a lookup may pick (the raw name when it can
// be a folder, the slug, slug-hash) is one folder directly under
// projects/.
func FuzzSlug(f *testing.F) {
	for _, k := range []string{"/home/dev/api", "/x/my  app (old)", "/x/café-übung", "/x/..-.hidden", "/", "/x/..", "/x/.",
		"/x/" + strings.Repeat("a", 300), "/x/a\x00b", "/x/\xff\xfe", "/x/a\\b", "relative", "", "/x/..\\..", "/x/ .. "} {
		f.Add(k)
	}
	root := "/srv/kg-root"
	s := &Store{root: root}
	f.Fuzz(func(t *testing.T, key string) {
		slug := record.ProjectSlug(key)
		if !slugPattern.MatchString(slug) {
			t.Fatalf("record.ProjectSlug(%q) = %q, outside %s", key, slug, slugPattern)
		}
		if again := record.ProjectSlug("/x/" + slug); again != slug {
			t.Fatalf("Slug of the slug %q is %q", slug, again)
		}
		if h := record.ProjectHash(key); !regexp.MustCompile(`^[0-9a-f]{8}$`).MatchString(h) {
			t.Fatalf("record.ProjectHash(%q) = %q", key, h)
		}
		names := []string{slug, slug + "-" + record.ProjectHash(key)}
		if raw := rawName(key); validFolder(raw) {
			names = append(names, raw)
		}
		for _, name := range names {
			p := s.folderFile(name).path()
			if filepath.Dir(filepath.Dir(p)) != s.projectsDir() || s.under(p) != nil {
				t.Fatalf("key %q: folder %q gives %s, not a folder directly under %s", key, name, p, s.projectsDir())
			}
		}
	})
}

// FuzzProjectFolder saves and loads a project whose path, and whose
// aliases.json entry, are fuzzed, on a real root through a file system
// that fails the test on any path outside the root (symlinks resolved),
// beside a folder outside the root that holds a graph claiming that
// project. Whatever the input:
//   - no file outside the root is read, written, renamed or listed;
//   - a save that succeeds lands in projects/<raw name | slug |
//     slug-hash>/graph.json, is listed under that folder, and loads again,
//     in this store and in a new one (a restart);
//   - a save that fails says the input is invalid or the graph unavailable.
func FuzzProjectFolder(f *testing.F) {
	f.Add("/home/dev/api", "", "")
	f.Add("/home/dev/new-name", "old-name", "new-name")
	f.Add("/home/dev/new-name", "../outside", "new-name")
	f.Add("/home/dev/x", "../../outside", "x")
	f.Add("/x/..", "..", "project")
	f.Add("/x/a\x00b", "a\x00b", "a-b")
	f.Add("/x/"+strings.Repeat("é", 200), "", "")
	f.Add("/x/.", ".", "x")
	f.Add("/x/projects", "", "")
	f.Fuzz(func(t *testing.T, p, aliasOld, aliasNew string) {
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		base := t.TempDir()
		root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
		writeGraphFile(t, outside, domain.GraphData{ProjectPath: p, Nodes: []domain.Node{{ID: "outside-secret", Gist: "g"}}})
		must(t, os.MkdirAll(filepath.Join(root, "projects"), 0o700))
		if aliasOld != "" || aliasNew != "" {
			b, err := json.Marshal(map[string]string{aliasOld: aliasNew})
			must(t, err)
			must(t, os.WriteFile(filepath.Join(root, "aliases.json"), b, 0o600))
			if old := filepath.Join(root, "projects", aliasOld); filepath.Dir(old) == filepath.Join(root, "projects") &&
				!strings.ContainsRune(aliasOld, 0) && len(aliasOld) < 200 {
				writeGraphFile(t, old, domain.GraphData{ProjectPath: "/old/" + aliasOld, Nodes: []domain.Node{{ID: "aliased", Gist: "g"}}})
			}
		}

		k := domain.ProjectGraph(p)
		cfs := &confinedFS{t: t, root: root}
		s, err := Open(root, Options{FS: cfs})
		must(t, err)
		d, err := s.Load(t.Context(), k)
		if err != nil {
			failsCleanly(t, "Load", err)
			d = domain.GraphData{ProjectPath: p}
		}
		notOutside(t, d)
		g, _ := domain.Restore(k, d, domain.RestoreOptions{})
		if _, err := g.PutNode(domain.NodeInput{ID: "mine", Gist: "g"}, domain.Stamp{Now: 1716400000_000000}); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(t.Context(), k, g, g.Pending()); err != nil {
			failsCleanly(t, "Commit", err)
			return
		}

		list, err := s.List(t.Context())
		must(t, err)
		i := slices.IndexFunc(list, func(sg ports.StoredGraph) bool { return sg.Key == k })
		if i < 0 {
			t.Fatalf("project %q saved but not listed: %+v", p, list)
		}
		folder := list[i].Slug
		if !slices.Contains([]string{rawName(p), record.ProjectSlug(p), record.ProjectSlug(p) + "-" + record.ProjectHash(p)}, folder) {
			t.Fatalf("project %q saved in folder %q: not its raw name %q, slug %q or slug-hash", p, folder, rawName(p), record.ProjectSlug(p))
		}
		file := filepath.Join(root, "projects", folder, "graph.json")
		if filepath.Dir(filepath.Dir(file)) != filepath.Join(root, "projects") {
			t.Fatalf("folder %q is not directly under projects/", folder)
		}
		if _, err := os.Stat(file); err != nil {
			t.Fatalf("project %q listed in %q, but: %v", p, folder, err)
		}
		for _, store := range []*Store{s, reopen(t, root, cfs)} {
			back, err := store.Load(t.Context(), k)
			must(t, err)
			notOutside(t, back)
			if !slices.ContainsFunc(back.Nodes, func(n domain.Node) bool { return n.ID == "mine" }) {
				t.Fatalf("project %q saved in %q does not load again: %+v", p, folder, back.Nodes)
			}
		}
	})
}

func reopen(t *testing.T, root string, cfs *confinedFS) *Store {
	t.Helper()
	s, err := Open(root, Options{FS: cfs})
	must(t, err)
	return s
}

// failsCleanly checks that a refused load or save says why in the terms of
// the domain: bad input, or a graph that cannot be served now.
func failsCleanly(t *testing.T, op string, err error) {
	t.Helper()
	if k := domain.KindOf(err); k != domain.KindInvalid && k != domain.KindUnavailable {
		t.Fatalf("%s: %v (kind %v), want invalid or unavailable", op, err, k)
	}
}

func notOutside(t *testing.T, d domain.GraphData) {
	t.Helper()
	for _, n := range d.Nodes {
		if n.ID == "outside-secret" {
			t.Fatalf("a graph from outside the root was loaded")
		}
	}
}

// writeGraphFile writes d as dir/graph.json.
func writeGraphFile(t *testing.T, dir string, d domain.GraphData) {
	t.Helper()
	must(t, os.MkdirAll(dir, 0o700))
	must(t, os.WriteFile(filepath.Join(dir, "graph.json"), codec.EncodeGraph(d), 0o600))
}

// confinedFS is the real file system, minus fsync (durability is not what
// these tests check, and it would slow the fuzzing down a hundredfold), that
// fails the test when any operation names a path outside root, lexically
// or once symlinks are resolved. It overrides every method of FS: a test
// (TestConfinedFSChecksEveryMethod) fails when FS gains one it does not.
type confinedFS struct {
	OS
	t    *testing.T
	root string
}

func (c *confinedFS) check(op string, paths ...string) {
	c.t.Helper()
	for _, p := range paths {
		if !within(c.root, p) || !within(realRoot(c.root), resolve(p)) {
			c.t.Errorf("%s %q: outside the root %s (resolves to %s)", op, p, c.root, resolve(p))
		}
	}
}

// within reports whether p is root or lies under it.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && !filepath.IsAbs(rel) && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func realRoot(root string) string {
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		return root
	}
	return r
}

// resolve returns p with the symlinks of its longest existing prefix
// resolved.
func resolve(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

func (c *confinedFS) Resolve(name string) (string, error) {
	c.check("resolve", name)
	return c.OS.Resolve(name)
}

func (c *confinedFS) ReadFile(name string) ([]byte, error) {
	c.check("read", name)
	return c.OS.ReadFile(name)
}

func (c *confinedFS) Create(name string) (File, error) {
	c.check("create", name)
	f, err := c.OS.Create(name)
	if err != nil {
		return nil, err
	}
	return noSync{f}, nil
}

func (c *confinedFS) Append(name string) (File, error) {
	c.check("append", name)
	f, err := c.OS.Append(name)
	if err != nil {
		return nil, err
	}
	return noSync{f}, nil
}

func (c *confinedFS) Edit(name string) (File, error) {
	c.check("edit", name)
	f, err := c.OS.Edit(name)
	if err != nil {
		return nil, err
	}
	return noSync{f}, nil
}

func (c *confinedFS) Rename(oldpath, newpath string) error {
	c.check("rename", oldpath, newpath)
	return c.OS.Rename(oldpath, newpath)
}

func (c *confinedFS) Link(oldpath, newpath string) error {
	c.check("link", oldpath, newpath)
	return c.OS.Link(oldpath, newpath)
}

func (c *confinedFS) Remove(name string) error {
	c.check("remove", name)
	return c.OS.Remove(name)
}

func (c *confinedFS) Mkdir(name string, perm fs.FileMode) error {
	c.check("mkdir", name)
	return c.OS.Mkdir(name, perm)
}

func (c *confinedFS) Stat(name string) (fs.FileInfo, error) {
	c.check("stat", name)
	return c.OS.Stat(name)
}

func (c *confinedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	c.check("list", name)
	return c.OS.ReadDir(name)
}

func (c *confinedFS) SyncDir(name string) error {
	c.check("sync", name)
	if _, err := os.Lstat(name); err != nil {
		return err
	}
	return nil
}

// noSync is a file whose Sync does nothing.
type noSync struct{ File }

func (noSync) Sync() error { return nil }

// TestConfinedFSChecksEveryMethod: every method of FS is declared on
// confinedFS in this file, so that no file operation escapes its check
// through the embedded OS.
func TestConfinedFSChecksEveryMethod(t *testing.T) {
	f, err := goparser.ParseFile(token.NewFileSet(), "slug_fuzz_test.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil {
			if star, ok := fn.Recv.List[0].Type.(*ast.StarExpr); ok {
				if id, ok := star.X.(*ast.Ident); ok && id.Name == "confinedFS" {
					declared[fn.Name.Name] = true
				}
			}
		}
	}
	fsType := reflect.TypeFor[FS]()
	for i := range fsType.NumMethod() {
		if name := fsType.Method(i).Name; !declared[name] {
			t.Errorf("confinedFS does not check %s: the embedded OS answers it unchecked", name)
		}
	}
}
