package kg_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxMethods is the most methods a type of app may have (issue 29,
// docs/decisions/0089-service-parts.md): a type past it holds more than one
// room, and what its use cases share belongs in a part of its own.
const maxMethods = 39

// TestAppTypesStaySmall counts the methods of every type declared in app/**
// (test files left out) and fails for any past maxMethods.
func TestAppTypesStaySmall(t *testing.T) {
	counts := map[string]int{}
	fset := token.NewFileSet()
	err := filepath.WalkDir("app", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for typ, n := range methodCounts(f) {
			counts[filepath.Dir(path)+"."+typ] += n
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) == 0 {
		t.Fatal("no methods found in app/**: the walk read nothing")
	}
	for typ, n := range counts {
		if n > maxMethods {
			t.Errorf("%s has %d methods, over %d: move what only one use case calls to it, or a shared piece to a part of its own", typ, n, maxMethods)
		}
	}
}

// methodCounts returns, by receiver type name, the methods f declares.
func methodCounts(f *ast.File) map[string]int {
	out := map[string]int{}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || len(fn.Recv.List) == 0 {
			continue
		}
		typ := fn.Recv.List[0].Type
		if star, ok := typ.(*ast.StarExpr); ok {
			typ = star.X
		}
		if idx, ok := typ.(*ast.IndexExpr); ok { // a generic receiver, T[K]
			typ = idx.X
		}
		if id, ok := typ.(*ast.Ident); ok {
			out[id.Name]++
		}
	}
	return out
}

func TestMethodCountsCountsEachReceiver(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "x.go", `package x
type S struct{}
type G[K any] struct{}
func (s *S) A() {}
func (s S) B() {}
func (g *G[K]) C() {}
func D() {}
`, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := methodCounts(f)
	if got["S"] != 2 || got["G"] != 1 || len(got) != 2 {
		t.Errorf("methodCounts = %v, want S:2 G:1", got)
	}
}

// maxPackageLines is the most non-test lines a package may hold (issue 29,
// docs/decisions/0113-compaction-policy-in-the-room.md): a package past it holds more than
// one room, which a newcomer can no longer read in one sitting.
const maxPackageLines = 4000

// TestPackagesStaySmall counts the lines of every package's non-test Go
// files (generated ones included) and fails for any past maxPackageLines.
// Folders the go tool ignores (testdata, node_modules, dot and underscore
// names) hold no package and are skipped.
func TestPackagesStaySmall(t *testing.T) {
	lines := map[string]int{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines[filepath.Dir(path)] += bytes.Count(b, []byte("\n"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if lines["domain"] == 0 || lines["app"] == 0 {
		t.Fatalf("the walk counted no lines of domain or app: %v", lines)
	}
	for dir, n := range lines {
		if n > maxPackageLines {
			t.Errorf("%s has %d non-test lines, over %d: split it into rooms (docs/architecture.md)", dir, n, maxPackageLines)
		}
	}
}
