package kg_test

// The dependency rule of docs/architecture.md: arrows between folders point
// inward only. The rule is checked on every package's non-test imports as
// `go list` reports them, and domain/ is additionally scanned for the wall
// clock and goroutines, which would make compaction non-deterministic.

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/kg-memory/kg"

// rule says which module-internal packages a package may import, and
// whether it may import anything outside the standard library.
type rule struct {
	prefix     string   // the packages the rule is for (path relative to the module)
	mayImport  []string // module-internal prefixes allowed
	thirdParty bool     // may import modules outside the standard library
	// libraries lists the packages outside the standard library a rule
	// without thirdParty still allows, each named by an ADR.
	libraries   []string
	description string
}

// rules are matched in order; the first whose prefix matches applies.
var rules = []rule{
	// The stemmer of search is pure code, no I/O (docs/decisions/0045-word-index-for-search.md).
	{prefix: "domain", libraries: []string{"github.com/kljensen/snowball/english"}, description: "standard library only, and the snowball stemmer"},
	{prefix: "ports/porttest", mayImport: []string{"domain", "ports"}, thirdParty: true, description: "domain, ports and test libraries"},
	{prefix: "ports", mayImport: []string{"domain"}, description: "domain"},
	{prefix: "app", mayImport: []string{"domain", "ports"}, description: "domain and ports"},
	{prefix: "adapters/storage/", mayImport: []string{"domain", "ports"}, thirdParty: true,
		description: "domain, ports and its library, not app nor another adapter"},
	{prefix: "adapters/clock", mayImport: []string{"domain", "ports"}, thirdParty: true, description: "domain, ports"},
	{prefix: "adapters/paths", mayImport: []string{"domain", "ports", "adapters/namedfile"}, thirdParty: true, description: "domain, ports, namedfile"},
	{prefix: "adapters/transcript", mayImport: []string{"domain", "ports", "adapters/namedfile"}, thirdParty: true, description: "domain, ports, namedfile"},
	{prefix: "adapters/filehash", mayImport: []string{"domain", "ports", "adapters/namedfile"}, description: "domain, ports, namedfile"},
	// Opening the files a request names, shared by the adapters that read them (docs/design/trust.md#files-named-by-a-request).
	{prefix: "adapters/namedfile", description: "standard library only"},
	{prefix: "adapters/rootdir", mayImport: []string{"domain", "ports"}, thirdParty: true, description: "domain, ports"},
	{prefix: "adapters/events", mayImport: []string{"domain", "ports"}, thirdParty: true, description: "domain, ports"},
	{prefix: "adapters/mcpstdio", description: "standard library only: it forwards bytes to the server"},
	{prefix: "adapters/metrics", mayImport: []string{"domain", "ports"}, thirdParty: true, description: "domain, ports and the Prometheus client"},
	{prefix: "adapters/http", mayImport: []string{"domain", "ports", "app", "adapters/http", "adapters/events", "adapters/metrics"}, thirdParty: true,
		description: "domain, ports, app, the http adapters, the events hub (/ws subscribes to it) and the metrics (it records requests and serves /metrics), not storage adapters"},
	{prefix: "migrations", mayImport: []string{"domain", "ports"},
		description: "domain and ports: it copies through the repository ports, and cmd/kg opens the stores"},
	{prefix: "cmd/", mayImport: []string{""}, thirdParty: true, description: "anything"},
	{prefix: "bench/workload", libraries: []string{"github.com/kljensen/snowball/english"},
		description: "standard library only, and the stemmer its vocabulary is checked with"},
}

type pkg struct {
	path    string // relative to the module; "" for the root
	imports []string
}

// violations checks pkgs against rules and returns one line per import that
// breaks them, and one per package no rule covers.
func violations(pkgs []pkg, stdlib func(string) bool) []string {
	var out []string
	for _, p := range pkgs {
		if p.path == "" || strings.HasPrefix(p.path, "e2e") {
			continue // the root holds only this test
		}
		r, ok := ruleFor(p.path)
		if !ok {
			out = append(out, fmt.Sprintf("%s: no dependency rule covers this package; add one to arch_test.go", p.path))
			continue
		}
		for _, imp := range p.imports {
			if stdlib(imp) {
				continue
			}
			internal, isInternal := strings.CutPrefix(imp, module+"/")
			if !isInternal {
				if !r.thirdParty && !slices.Contains(r.libraries, imp) {
					out = append(out, fmt.Sprintf("%s imports %s: may import %s", p.path, imp, r.description))
				}
				continue
			}
			if internal == p.path || strings.HasPrefix(internal, p.path+"/") {
				continue // its own subpackages
			}
			if !allowed(r, internal) {
				out = append(out, fmt.Sprintf("%s imports %s: may import %s", p.path, internal, r.description))
			}
		}
	}
	return out
}

func ruleFor(path string) (rule, bool) {
	for _, r := range rules {
		if path == strings.TrimSuffix(r.prefix, "/") || strings.HasPrefix(path, strings.TrimSuffix(r.prefix, "/")+"/") {
			return r, true
		}
	}
	return rule{}, false
}

func allowed(r rule, internal string) bool {
	for _, m := range r.mayImport {
		if m == "" || internal == strings.TrimSuffix(m, "/") || strings.HasPrefix(internal, strings.TrimSuffix(m, "/")+"/") {
			return true
		}
	}
	return false
}

func isStdlib(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), "/")
		pkgs = append(pkgs, pkg{path: rel, imports: fields[1:]})
	}
	return pkgs
}

func TestDependenciesPointInward(t *testing.T) {
	pkgs := listPackages(t)
	if len(pkgs) < 3 {
		t.Fatalf("go list found %d packages; the check would prove nothing", len(pkgs))
	}
	for _, v := range violations(pkgs, isStdlib) {
		t.Error(v)
	}
}

func TestDependencyCheckerCatchesViolations(t *testing.T) {
	cases := []struct {
		name string
		pkg  pkg
		want string // substring of the violation; "" = none
	}{
		{"domain imports os: fine", pkg{"domain", []string{"os", "time"}}, ""},
		{"domain imports a module", pkg{"domain", []string{"github.com/google/uuid"}}, "domain imports github.com/google/uuid"},
		{"domain imports ports", pkg{"domain", []string{module + "/ports"}}, "domain imports ports"},
		{"domain imports its scanner", pkg{"domain", []string{module + "/domain/secrets"}}, ""},
		{"the scanner imports domain", pkg{"domain/secrets", []string{module + "/domain"}}, "domain/secrets imports domain"},
		{"ports imports domain", pkg{"ports", []string{module + "/domain"}}, ""},
		{"ports imports app", pkg{"ports", []string{module + "/app"}}, "ports imports app"},
		{"app imports a storage adapter", pkg{"app", []string{module + "/adapters/storage/jsonfile"}}, "app imports adapters/storage/jsonfile"},
		{"app imports chi", pkg{"app", []string{"github.com/go-chi/chi/v5"}}, "app imports github.com/go-chi/chi/v5"},
		{"storage adapter imports another", pkg{"adapters/storage/bolt", []string{module + "/adapters/storage/jsonfile"}}, "adapters/storage/bolt imports adapters/storage/jsonfile"},
		{"storage adapter imports app", pkg{"adapters/storage/bolt", []string{module + "/app"}}, "imports app"},
		{"storage adapter imports bbolt", pkg{"adapters/storage/bolt", []string{"go.etcd.io/bbolt", module + "/ports"}}, ""},
		{"http imports a storage adapter", pkg{"adapters/http/mcp", []string{module + "/adapters/storage/memory"}}, "adapters/http/mcp imports adapters/storage/memory"},
		{"http imports app", pkg{"adapters/http", []string{module + "/app", module + "/adapters/http/mcp"}}, ""},
		{"migrations imports jsonfile", pkg{"migrations", []string{module + "/adapters/storage/jsonfile"}}, "migrations imports adapters/storage/jsonfile"},
		{"migrations imports ports", pkg{"migrations", []string{module + "/ports", module + "/domain"}}, ""},
		{"migrations imports app", pkg{"migrations", []string{module + "/app"}}, "migrations imports app"},
		{"cmd imports everything", pkg{"cmd/kg", []string{module + "/app", module + "/adapters/storage/bolt"}}, ""},
		{"unknown package", pkg{"util", nil}, "no dependency rule"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := violations([]pkg{tc.pkg}, isStdlib)
			if tc.want == "" {
				if len(got) != 0 {
					t.Fatalf("violations = %q, want none", got)
				}
				return
			}
			if len(got) != 1 || !strings.Contains(got[0], tc.want) {
				t.Fatalf("violations = %q, want one containing %q", got, tc.want)
			}
		})
	}
}

// impurities returns the uses of the wall clock and the go statements in one
// Go source file.
func impurities(fset *token.FileSet, f *ast.File) []string {
	timeName := ""
	for _, imp := range f.Imports {
		if imp.Path.Value == `"time"` {
			timeName = "time"
			if imp.Name != nil {
				timeName = imp.Name.Name
			}
		}
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			out = append(out, fmt.Sprintf("%s: go statement", fset.Position(n.Pos())))
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && timeName != "" && id.Name == timeName {
				switch n.Sel.Name {
				case "Now", "Since", "Until", "Sleep", "After", "Tick", "NewTimer", "NewTicker", "AfterFunc":
					out = append(out, fmt.Sprintf("%s: time.%s", fset.Position(n.Pos()), n.Sel.Name))
				}
			}
		}
		return true
	})
	return out
}

func TestDomainIsPure(t *testing.T) {
	// Every package under domain/ is held to the rule: the secret scanner
	// (domain/secrets) is as much the core as the graph.
	var files []string
	err := filepath.WalkDir("domain", func(name string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(name, ".go") {
			files = append(files, name)
		}
		return err
	})
	if err != nil || !slices.Contains(files, filepath.Join("domain", "secrets", "secrets.go")) {
		t.Fatalf("the walk of domain/ missed domain/secrets/secrets.go (%v)", err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range impurities(fset, f) {
			t.Errorf("domain must be pure: %s", v)
		}
	}
}

func TestPurityCheckerCatchesImpurities(t *testing.T) {
	cases := []struct {
		name, src string
		want      int
	}{
		{"clean", "package d\nimport \"time\"\nfunc f() time.Duration { return time.Second }", 0},
		{"time.Now", "package d\nimport \"time\"\nfunc f() { _ = time.Now() }", 1},
		{"renamed time.Since", "package d\nimport t \"time\"\nfunc f(x t.Time) { _ = t.Since(x) }", 1},
		{"go statement", "package d\nfunc f() { go f() }", 1},
		{"a local named time", "package d\ntype c struct{}\nfunc (c) Now() int { return 0 }\nfunc f() { var time c; _ = time.Now() }", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "x.go", tc.src, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := impurities(fset, f); len(got) != tc.want {
				t.Fatalf("impurities = %q, want %d", got, tc.want)
			}
		})
	}
}
