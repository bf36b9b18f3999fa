package kg_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEveryUseCaseHasACaller checks that each exported method of
// app.Service and hooks.Hooks (app/hooks) is called by code outside those
// packages that is not a test: a use case
// only tests call is staged code that reads as if it ran.
func TestEveryUseCaseHasACaller(t *testing.T) {
	useCases, called := useCasesAndCalls(t, ".")
	if len(useCases) < 15 {
		t.Fatalf("found only %d use cases in app/; the reader is broken", len(useCases))
	}
	for _, name := range useCases {
		_, method, _ := strings.Cut(name, ".")
		if !called[method] {
			t.Errorf("%s has no caller outside app/ and app/hooks/ but tests", name)
		}
	}
}

// useCasesAndCalls returns the exported methods of *Service declared in
// root/app and of *Hooks declared in root/app/hooks (outside tests), as
// "Service.Name" or "Hooks.Name", and the names of every selector (x.Name)
// used by the non-test code outside those two folders.
func useCasesAndCalls(t *testing.T, root string) (useCases []string, called map[string]bool) {
	t.Helper()
	called = map[string]bool{}
	fset := token.NewFileSet()
	useCaseType := map[string]string{filepath.Join(root, "app"): "Service", filepath.Join(root, "app", "hooks"): "Hooks"}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && skippedDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if typ, ok := useCaseType[filepath.Dir(path)]; ok {
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if ok && fn.Recv != nil && fn.Name.IsExported() && receiverIs(fn, typ) {
					useCases = append(useCases, typ+"."+fn.Name.Name)
				}
			}
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				called[sel.Sel.Name] = true
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(useCases)
	return useCases, called
}

// receiverIs reports whether fn is a method of *name or name.
func receiverIs(fn *ast.FuncDecl, name string) bool {
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	id, ok := typ.(*ast.Ident)
	return ok && id.Name == name
}
