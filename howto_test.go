package kg_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHowToNamesFilesThatExist checks the how-to of docs/architecture.md
// against the code: every file or folder it names exists (for a path with a
// placeholder, its folder does), and every function, test or qualified name
// it names is declared.
func TestHowToNamesFilesThatExist(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := howToSection(string(b))
	if section == "" {
		t.Fatal(`docs/architecture.md has no "## How to add" section`)
	}
	names, err := declaredNames(".")
	if err != nil {
		t.Fatal(err)
	}
	problems, checked := howToProblems(".", section, names)
	t.Logf("checked %d files and names", checked)
	if checked < 30 {
		t.Errorf("checked only %d names in the how-to; the reader is broken", checked)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestHowToCheckerCatchesMistakes runs the checker on a sample.
func TestHowToCheckerCatchesMistakes(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "cmd", "kg"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package main\n\ntype Config struct{}\n\nfunc backends() {}\n\nfunc TestReal(t *testing.T) {}\n"
	if err := os.WriteFile(filepath.Join(root, "cmd", "kg", "config.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	names, err := declaredNames(root)
	if err != nil {
		t.Fatal(err)
	}
	section := "## How to add\n\n1. `cmd/kg/config.go`, `cmd/kg/gone.go`, `cmd/kg/kg_<name>.go`, `nowhere/<name>/`, " +
		"`backends()`, `settings()`, `TestReal`, `TestGone`, `main.Config`, `app.Config`, `--storage`, `go tool wire ./cmd/kg`, `tool`.\n"
	got, _ := howToProblems(root, section, names)
	want := []string{
		"docs/architecture.md names cmd/kg/gone.go, which does not exist",
		"docs/architecture.md names nowhere/<name>/, whose folder nowhere does not exist",
		"docs/architecture.md names settings(), which nothing declares",
		"docs/architecture.md names TestGone, which nothing declares",
		"docs/architecture.md names app.Config, which package app does not declare",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// howToSection returns the "## How to add …" section of a document.
func howToSection(doc string) string {
	start := strings.Index(doc, "\n## How to add")
	if start < 0 {
		return ""
	}
	rest := doc[start+1:]
	if end := strings.Index(rest[3:], "\n## "); end >= 0 {
		rest = rest[:end+3]
	}
	return rest
}

var (
	codeToken = regexp.MustCompile("`([^`\\s]+)`")
	pathLike  = regexp.MustCompile(`^[a-z_./<>A-Z0-9-]*/[a-z_./<>A-Z0-9-]*$|^[A-Za-z0-9_<>.-]+\.(go|md|json)$`)
	funcLike  = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\(\)$|^(Test[A-Za-z0-9_]+)$`)
	qualified = regexp.MustCompile(`^([a-z]+)\.([A-Z][A-Za-z0-9_]*)$`)
)

// howToProblems checks the code names of a how-to section against the
// repository at root, and returns what is wrong and how many names it
// checked.
func howToProblems(root, section string, names map[string]map[string]bool) (problems []string, checked int) {
	for _, m := range codeToken.FindAllStringSubmatch(section, -1) {
		tok := m[1]
		switch {
		case pathLike.MatchString(tok) && !strings.HasPrefix(tok, "./"):
			checked++
			path := tok
			if i := strings.Index(path, "<"); i >= 0 {
				dir := strings.TrimSuffix(filepath.Dir(path[:i]+"x"), "/")
				if _, err := os.Stat(filepath.Join(root, dir)); err != nil {
					problems = append(problems, fmt.Sprintf("docs/architecture.md names %s, whose folder %s does not exist", tok, dir))
				}
				continue
			}
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(path))); err != nil {
				problems = append(problems, fmt.Sprintf("docs/architecture.md names %s, which does not exist", tok))
			}
		case funcLike.MatchString(tok):
			checked++
			name := strings.TrimSuffix(tok, "()")
			if !names[""][name] {
				problems = append(problems, fmt.Sprintf("docs/architecture.md names %s, which nothing declares", tok))
			}
		case qualified.MatchString(tok):
			checked++
			q := qualified.FindStringSubmatch(tok)
			if !names[q[1]][q[2]] {
				problems = append(problems, fmt.Sprintf("docs/architecture.md names %s, which package %s does not declare", tok, q[1]))
			}
		}
	}
	return problems, checked
}

// declaredNames returns the top-level functions, methods, types, variables
// and constants of every Go file under root: by package name, and all of
// them under "".
func declaredNames(root string) (map[string]map[string]bool, error) {
	names := map[string]map[string]bool{"": {}}
	add := func(pkg, name string) {
		if names[pkg] == nil {
			names[pkg] = map[string]bool{}
		}
		names[pkg][name] = true
		names[""][name] = true
	}
	fset := token.NewFileSet()
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
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := f.Name.Name
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				add(pkg, d.Name.Name)
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						add(pkg, s.Name.Name)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							add(pkg, n.Name)
						}
					}
				}
			}
		}
		return nil
	})
	return names, err
}
