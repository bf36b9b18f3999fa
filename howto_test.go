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
	"slices"
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

// TestPortsTableListsEveryPort holds the ports table of docs/architecture.md
// to ports/: it names every exported interface of package ports, and
// nothing else.
func TestPortsTableListsEveryPort(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := markdownTable(sectionOf(string(doc), "## Ports"))
	if len(rows) == 0 {
		t.Fatal(`docs/architecture.md has no table under "## Ports"`)
	}
	var named []string
	for _, row := range rows {
		named = append(named, portNames(row[0])...)
	}
	ports, err := exportedInterfaces("ports")
	if err != nil {
		t.Fatal(err)
	}
	if len(ports) < 10 {
		t.Fatalf("found %d interfaces in ports/; the reader is broken", len(ports))
	}
	for _, p := range listDiff(ports, named, "ports/ declares %s; the ports table of docs/architecture.md does not list it",
		"the ports table of docs/architecture.md lists %s, which ports/ does not declare as an interface") {
		t.Error(p)
	}
}

// TestLayoutTableCoversEveryFolder holds the layout table of README.md to
// the tree: every folder it names exists, every folder of Go sources lies
// under one it names, and every top-level folder holds or lies under one.
func TestLayoutTableCoversEveryFolder(t *testing.T) {
	doc, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := markdownTable(sectionOf(string(doc), "## Layout of the code"))
	var folders []string
	for _, row := range rows {
		for _, m := range codeToken.FindAllStringSubmatch(row[0], -1) {
			folders = append(folders, strings.TrimSuffix(m[1], "/"))
		}
	}
	if len(folders) < 5 {
		t.Fatalf(`README.md names %d folders under "## Layout of the code"; the reader is broken`, len(folders))
	}
	for _, f := range folders {
		if st, err := os.Stat(f); err != nil || !st.IsDir() {
			t.Errorf("README.md's layout table names %s/, which is not a folder", f)
		}
	}
	dirs, err := sourceFolders(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		covered := slices.ContainsFunc(folders, func(f string) bool {
			return d == f || strings.HasPrefix(d, f+"/") || (!strings.Contains(d, "/") && strings.HasPrefix(f, d+"/"))
		})
		if !covered {
			t.Errorf("README.md's layout table names no folder that holds %s/", d)
		}
	}
}

// TestDocTableReadersCatchMistakes runs the table readers on a sample.
func TestDocTableReadersCatchMistakes(t *testing.T) {
	doc := "# T\n\n## Ports\n\nText.\n\n| port | what |\n| --- | --- |\n" +
		"| `Clock` | the time |\n| `GraphRepository`, `Gone` (optional) | `Load` \\| `Commit` |\n\n## Next\n\n| x |\n| --- |\n| `Other` |\n"
	rows := markdownTable(sectionOf(doc, "## Ports"))
	if d := cmp.Diff([][]string{{"`Clock`", "the time"}, {"`GraphRepository`, `Gone` (optional)", "`Load` | `Commit`"}}, rows); d != "" {
		t.Errorf("markdownTable (-want +got):\n%s", d)
	}
	var named []string
	for _, row := range rows {
		named = append(named, portNames(row[0])...)
	}
	got := listDiff([]string{"Clock", "Events", "GraphRepository"}, named, "missing %s", "extra %s")
	if d := cmp.Diff([]string{"missing Events", "extra Gone"}, got); d != "" {
		t.Errorf("listDiff (-want +got):\n%s", d)
	}
}

// sectionOf returns the part of a markdown document from the heading line
// to the next heading of the same or a higher level (outside code blocks),
// or "".
func sectionOf(doc, heading string) string {
	start := strings.Index(doc, "\n"+heading+"\n")
	if start < 0 {
		return ""
	}
	level := headingLevel(heading)
	lines := strings.Split(doc[start+1:], "\n")
	fenced := false
	for i, l := range lines[1:] {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
		}
		if n := headingLevel(l); !fenced && n > 0 && n <= level {
			return strings.Join(lines[:i+1], "\n")
		}
	}
	return strings.Join(lines, "\n")
}

// headingLevel is the level of a markdown heading line, 0 for another line.
func headingLevel(line string) int {
	n := len(line) - len(strings.TrimLeft(line, "#"))
	if n == 0 || !strings.HasPrefix(line[n:], " ") {
		return 0
	}
	return n
}

// markdownTable returns the body rows of the first table in text, each as
// its trimmed cells (an escaped \| stays in its cell, unescaped).
func markdownTable(text string) [][]string {
	var rows [][]string
	inTable := false
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		if !inTable {
			inTable = true // the header
			continue
		}
		if strings.HasPrefix(line, "| ---") || strings.HasPrefix(line, "|---") {
			continue
		}
		cells := strings.Split(strings.ReplaceAll(strings.Trim(line, "|"), `\|`, "\x00"), "|")
		for i, c := range cells {
			cells[i] = strings.TrimSpace(strings.ReplaceAll(c, "\x00", "|"))
		}
		rows = append(rows, cells)
	}
	return rows
}

var portName = regexp.MustCompile("^[A-Z][A-Za-z0-9]*$")

// portNames returns the code spans of a cell that read as a Go type name.
func portNames(cell string) []string {
	var out []string
	for _, m := range codeToken.FindAllStringSubmatch(cell, -1) {
		if portName.MatchString(m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// exportedInterfaces returns the exported interface types the non-test
// sources of the package in dir declare, sorted.
func exportedInterfaces(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var out []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.IsExported() {
				if _, isInterface := ts.Type.(*ast.InterfaceType); isInterface {
					out = append(out, ts.Name.Name)
				}
			}
			return true
		})
	}
	slices.Sort(out)
	return out, nil
}

// sourceFolders returns, relative to root and with slashes, the top-level
// folders and every folder holding Go sources, but for root itself and the
// folders no source lives in (skippedDirs, hidden ones).
func sourceFolders(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == root {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		if d.IsDir() {
			if skippedDirs[d.Name()] || strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if !strings.Contains(rel, "/") {
				out = append(out, rel)
			}
			return nil
		}
		if dir := filepath.ToSlash(filepath.Dir(rel)); strings.HasSuffix(rel, ".go") && dir != "." && !slices.Contains(out, dir) {
			out = append(out, dir)
		}
		return nil
	})
	return out, err
}

// listDiff returns one line per name of want missing from got (missing's
// format) and per name of got not in want (extra's format).
func listDiff(want, got []string, missing, extra string) []string {
	var out []string
	for _, w := range want {
		if !slices.Contains(got, w) {
			out = append(out, fmt.Sprintf(missing, w))
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			out = append(out, fmt.Sprintf(extra, g))
		}
	}
	return out
}
