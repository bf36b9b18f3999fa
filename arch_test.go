package kg_test

// The dependency rule of docs/architecture.md: arrows between folders point
// inward only, and the inner layers reach nothing outside the process.
// Every package `go list` finds is checked on the imports of all its
// non-test files (whatever their build constraints, so a file built only on
// another system cannot hide an import) against the module-internal rule
// and its layer's forbidden standard library, and the source of domain/**,
// ports/** and app/** is scanned (go/ast, not grep) for the calls of allowed
// packages that still do I/O, and in domain/** for the wall clock,
// goroutines and randomly seeded draws, which would make compaction
// non-deterministic (docs/decisions/0082-standard-library-per-layer.md).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/kg-memory/kg"

// rule says which module-internal packages a package may import, whether it
// may import anything outside the standard library, and which parts of the
// standard library it may not import.
type rule struct {
	prefix     string   // the packages the rule is for (path relative to the module)
	mayImport  []string // module-internal prefixes allowed
	thirdParty bool     // may import modules outside the standard library
	// libraries lists the packages outside the standard library a rule
	// without thirdParty still allows, each named by an ADR.
	libraries   []string
	description string
	// noIO: the rule's packages may not import ioPackages, nor call the
	// functions of ioCalls, except the packages of allowIO.
	noIO bool
	// allowIO lists the packages of ioPackages the rule still allows, each
	// with the reason.
	allowIO map[string]string
	// moreForbidden lists standard-library packages forbidden beyond
	// ioPackages.
	moreForbidden []string
	// pure: no wall clock, no goroutines, no randomly seeded draws (see
	// impurities).
	pure bool
}

// ioPackages are the standard-library packages that reach outside the
// process: files, the network, other processes, the environment, signals,
// system calls, databases, the process's standard logger and its runtime
// knobs, profiles and heap dumps, and the operating system's random source.
// A name ending in "/" stands for every package under it. net/url and
// net/netip parse values and do no I/O; ioExempt keeps them allowed.
var ioPackages = []string{
	"os", "os/", "net", "net/", "io/fs", "io/ioutil", "syscall", "database/sql", "database/sql/",
	"log", "log/syslog", "crypto/rand", "runtime/debug", "runtime/pprof", "runtime/trace",
	"plugin", "expvar", "debug/",
}

var ioExempt = []string{"net/url", "net/netip"}

// ioCalls are the functions of otherwise pure standard-library packages
// that touch the process's files or standard streams.
var ioCalls = map[string][]string{
	"fmt":           {"Print", "Printf", "Println", "Scan", "Scanf", "Scanln"},
	"path/filepath": {"Abs", "EvalSymlinks", "Glob", "Walk", "WalkDir"},
}

// inner is what domain/**, ports/** and app/** share: no I/O of their own
// (app talks out only through ports/).
func inner(r rule) rule {
	r.noIO = true
	return r
}

// room is the rule of a room of domain (docs/decisions/0088-domain-rooms.md):
// a subpackage that builds on the graph, as pure as domain itself. It may
// import domain and domain's leaf packages; domain imports none of its rooms
// (the compiler refuses the cycle).
func room(prefix string) rule {
	return inner(rule{prefix: prefix, mayImport: []string{"domain"}, libraries: []string{"github.com/kljensen/snowball/english"},
		description:   "domain and its subpackages, the standard library and the snowball stemmer; never I/O, logging, the wall clock or goroutines",
		moreForbidden: []string{"log/slog"}, pure: true})
}

// rules are matched in order; the first whose prefix matches applies.
var rules = []rule{
	// A command a developer runs by hand to rewrite the corpus from a
	// gitleaks dump (domain/secrets/secretcorpus/README.md): it reads stdin and
	// writes stdout, and nothing links it into kg.
	{prefix: "domain/secrets/secretcorpus/internal/gitleaksdump", description: "standard library only: a command run by hand"},
	room("domain/recall"),
	room("domain/merge"),
	room("domain/duplicates"),
	room("domain/stale"),
	room("domain/undo"),
	room("domain/compaction"),
	room("domain/secretscreen"),
	room("domain/importing"),
	room("domain/fullread"),
	room("domain/graphsearch"),
	room("domain/changes"),
	// The fixtures the tests of domain's rooms share: a room's rule, since it
	// builds on the graph as a room does.
	room("domain/internal/graphtest"),
	// The session table holds each session's hook state
	// (docs/decisions/0102-graph-store-package.md); its session ids must not
	// be guessable, and crypto/rand.Read never fails (app/sessiontable/table.go).
	inner(rule{prefix: "app/sessiontable", mayImport: []string{"domain", "ports", "app/hookstate"},
		description: "domain, ports and app/hookstate; never I/O but through ports", allowIO: map[string]string{"crypto/rand": "unguessable session ids"}}),
	// The maintenance tick's duties on the store, the sessions and the
	// recorded files (docs/decisions/0102-graph-store-package.md); the stack
	// of a duty's recovered panic goes into the log.
	inner(rule{prefix: "app/maintenance", mayImport: []string{"domain", "ports", "app/graphstore", "app/sessiontable", "app/filecheck"},
		description: "domain, ports and app's lower packages; never I/O but through ports", allowIO: map[string]string{"runtime/debug": "the stack of a recovered panic, for the log"}}),
	// The change logs' reads and undo (docs/decisions/0107-history-room.md).
	inner(rule{prefix: "app/history", mayImport: []string{"domain", "ports", "app/graphstore"},
		description: "domain, ports and app/graphstore; never I/O but through ports"}),
	// The use counts of nodes by sessions (docs/decisions/0107-history-room.md).
	inner(rule{prefix: "app/usecount", mayImport: []string{"domain", "ports", "app/graphstore", "app/sessiontable"},
		description: "domain, ports, app/graphstore and app/sessiontable; never I/O but through ports"}),
	// The project files a write names and the nodes recorded, read through
	// ports.FileHasher (docs/decisions/0107-history-room.md): a write's
	// files are read under the loaded graph's lock.
	inner(rule{prefix: "app/filecheck", mayImport: []string{"domain", "ports", "app/graphstore"},
		description: "domain, ports and app/graphstore; never I/O but through ports"}),
	// The stemmer of search is pure code, no I/O (docs/decisions/0045-word-index-for-search.md).
	inner(rule{prefix: "domain", libraries: []string{"github.com/kljensen/snowball/english"},
		description:   "standard library only, and the snowball stemmer; never I/O, logging, the wall clock or goroutines",
		moreForbidden: []string{"log/slog"}, pure: true}),
	// The contract suite is test code that ships as a package: it kills
	// child processes and damages files (ports/porttest/crash.go), so it
	// may do I/O.
	{prefix: "ports/porttest", mayImport: []string{"domain", "ports"}, thirdParty: true, description: "domain, ports and test libraries"},
	inner(rule{prefix: "ports", mayImport: []string{"domain"}, description: "domain; never I/O"}),
	// The hook routes, built on app's Service and its one seam for them,
	// app.HookSupport (docs/decisions/0103-hooks-room.md).
	inner(rule{prefix: "app/hooks", mayImport: []string{"domain", "ports", "app"}, description: "domain, ports and app; never I/O but through ports"}),
	// The test environment of the packages built on app (app/hooks): a
	// service on the memory adapters, test code that ships as a package
	// (docs/decisions/0103-hooks-room.md).
	{prefix: "app/internal/apptest", mayImport: []string{"domain", "ports", "app", "adapters/clock", "adapters/storage/memory"},
		description: "domain, ports, app and the memory adapters it opens the service on"},
	inner(rule{prefix: "app", mayImport: []string{"domain", "ports"}, description: "domain and ports; never I/O but through ports",
		allowIO: map[string]string{
			// The stack of a recovered panic goes into the log (app/graphstore/commit.go, app/graphstore/store.go).
			"runtime/debug": "the stack of a recovered panic, for the log; and the memory a search of every graph let go, given back at once (docs/design/team.md#scale)",
			// Session ids must not be guessable, and crypto/rand.Read never fails (app/sessiontable/table.go).
			"crypto/rand": "unguessable session ids",
		}}),
	// The JSON records the storage adapters share (docs/decisions/0085-one-record-encoding.md): pure encoding, no I/O.
	{prefix: "adapters/storage/record", mayImport: []string{"domain", "ports"}, noIO: true,
		description: "domain and ports; never I/O: it encodes, the adapters store"},
	// The json store's codec (docs/decisions/0090-jsonfile-codec.md): bytes ⇄ values, no I/O; the
	// store owns the files.
	{prefix: "adapters/storage/jsonfile/codec", mayImport: []string{"domain", "ports"}, noIO: true,
		description: "domain and ports; never I/O: it encodes, the json store stores"},
	{prefix: "adapters/storage/jsonfile", mayImport: []string{"domain", "ports", "adapters/storage/record", "adapters/storage/jsonfile/codec"}, thirdParty: true,
		description: "domain, ports, the shared records, its codec and its library, not app nor another adapter"},
	{prefix: "adapters/storage/", mayImport: []string{"domain", "ports", "adapters/storage/record"}, thirdParty: true,
		description: "domain, ports, the shared records and its library, not app nor another adapter"},
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

// pkg is one package as the checks see it.
type pkg struct {
	path    string // relative to the module; "" for the root
	imports []string
	// files are the package's parsed non-test sources (nil in the
	// checker's own table tests), positioned in fset.
	files []*ast.File
	fset  *token.FileSet
}

// violations checks pkgs against rules and returns one line per import that
// breaks them, one per forbidden call, and one per package no rule covers.
func violations(pkgs []pkg, stdlib func(string) bool) []string {
	var out []string
	for _, p := range pkgs {
		if p.path == "" || strings.HasPrefix(p.path, "e2e") {
			continue // the root holds only tests
		}
		r, ok := ruleFor(p.path)
		if !ok {
			out = append(out, fmt.Sprintf("%s: no dependency rule covers this package; add one to arch_test.go", p.path))
			continue
		}
		for _, imp := range p.imports {
			if why := importViolation(r, p.path, imp, stdlib); why != "" {
				out = append(out, fmt.Sprintf("%s imports %s%s: %s", p.path, strings.TrimPrefix(imp, module+"/"), importedAt(p, imp), why))
			}
		}
		for _, f := range p.files {
			out = append(out, impurities(p.fset, f, r)...)
		}
	}
	return out
}

// importViolation says why the package at path may not import imp under r,
// or "" when it may.
func importViolation(r rule, path, imp string, stdlib func(string) bool) string {
	if stdlib(imp) {
		if forbiddenStd(r, imp) {
			return r.prefix + "/** may not import it (docs/decisions/0082-standard-library-per-layer.md)"
		}
		return ""
	}
	internal, isInternal := strings.CutPrefix(imp, module+"/")
	if !isInternal {
		if !r.thirdParty && !slices.Contains(r.libraries, imp) {
			return "may import " + r.description
		}
		return ""
	}
	if internal == path || strings.HasPrefix(internal, path+"/") {
		return "" // its own subpackages
	}
	if !allowed(r, internal) {
		return "may import " + r.description
	}
	return ""
}

// forbiddenStd reports whether r forbids the standard-library package imp.
func forbiddenStd(r rule, imp string) bool {
	if slices.Contains(r.moreForbidden, imp) {
		return true
	}
	if !r.noIO || slices.Contains(ioExempt, imp) {
		return false
	}
	if _, ok := r.allowIO[imp]; ok {
		return false
	}
	for _, f := range ioPackages {
		if imp == f || (strings.HasSuffix(f, "/") && strings.HasPrefix(imp, f)) {
			return true
		}
	}
	return false
}

// importedAt names the first file of p that imports imp, as " (file:line)",
// or "" when p carries no sources.
func importedAt(p pkg, imp string) string {
	for _, f := range p.files {
		for _, s := range f.Imports {
			if path, _ := strconv.Unquote(s.Path.Value); path == imp {
				return " (" + p.fset.Position(s.Pos()).String() + ")"
			}
		}
	}
	return ""
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

// listedPackage is the part of `go list -json` the checks read.
type listedPackage struct {
	ImportPath     string
	Dir            string
	GoFiles        []string
	CgoFiles       []string
	IgnoredGoFiles []string
}

// listPackages loads the packages of patterns as `go list` sees them in the
// module at dir, with overlay (absolute path → contents) laid over the files
// on disk, and parses every non-test source of each.
func listPackages(t *testing.T, dir string, overlay map[string]string, patterns ...string) []pkg {
	t.Helper()
	args := []string{"list", "-json=ImportPath,Dir,GoFiles,CgoFiles,IgnoredGoFiles"}
	if len(overlay) > 0 {
		args = append(args, "-overlay="+writeOverlay(t, overlay))
	}
	cmd := exec.Command("go", append(args, patterns...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	fset := token.NewFileSet()
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var lp listedPackage
		if err := dec.Decode(&lp); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		p, err := parsePackage(fset, lp, overlay)
		if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// parsePackage parses the non-test sources of lp, reading a file of overlay
// instead of the disk, and gathers their imports.
func parsePackage(fset *token.FileSet, lp listedPackage, overlay map[string]string) (pkg, error) {
	p := pkg{path: strings.TrimPrefix(strings.TrimPrefix(lp.ImportPath, module), "/"), fset: fset}
	for _, name := range slices.Concat(lp.GoFiles, lp.CgoFiles, lp.IgnoredGoFiles) {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file := filepath.Join(lp.Dir, name)
		var src any
		if s, ok := overlay[file]; ok {
			src = s
		}
		f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
		if err != nil {
			return pkg{}, fmt.Errorf("parsing %s: %w", file, err)
		}
		p.files = append(p.files, f)
		for _, s := range f.Imports {
			if path, _ := strconv.Unquote(s.Path.Value); !slices.Contains(p.imports, path) {
				p.imports = append(p.imports, path)
			}
		}
	}
	return p, nil
}

// writeOverlay writes overlay's files and the JSON `go list -overlay` reads,
// and returns the JSON's path.
func writeOverlay(t *testing.T, overlay map[string]string) string {
	t.Helper()
	tmp := t.TempDir()
	replace := map[string]string{}
	i := 0
	for path, src := range overlay {
		i++
		backing := filepath.Join(tmp, fmt.Sprintf("%d.go", i))
		if err := os.WriteFile(backing, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		replace[path] = backing
	}
	b, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestDependenciesPointInward(t *testing.T) {
	pkgs := listPackages(t, ".", nil, "./...")
	if len(pkgs) < 3 {
		t.Fatalf("go list found %d packages; the check would prove nothing", len(pkgs))
	}
	scanned := 0
	for _, p := range pkgs {
		if strings.HasPrefix(p.path, "domain/") && len(p.files) > 0 {
			scanned++
		}
	}
	if scanned == 0 {
		t.Fatal("no package under domain/ was scanned; the check would miss domain's subpackages")
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
		{"domain imports time and strings", pkg{path: "domain", imports: []string{"time", "strings", "sync"}}, ""},
		{"domain imports os", pkg{path: "domain", imports: []string{"os"}}, "domain imports os"},
		{"a domain subpackage imports os/exec", pkg{path: "domain/search/deep", imports: []string{"os/exec"}}, "domain/search/deep imports os/exec"},
		{"domain imports net/http", pkg{path: "domain", imports: []string{"net/http"}}, "domain imports net/http"},
		{"domain imports net/url", pkg{path: "domain", imports: []string{"net/url", "net/netip"}}, ""},
		{"domain imports log/slog", pkg{path: "domain/secrets", imports: []string{"log/slog"}}, "domain/secrets imports log/slog"},
		{"domain imports a module", pkg{path: "domain", imports: []string{"github.com/google/uuid"}}, "domain imports github.com/google/uuid"},
		{"domain imports ports", pkg{path: "domain", imports: []string{module + "/ports"}}, "domain imports ports"},
		{"domain imports its scanner", pkg{path: "domain", imports: []string{module + "/domain/secrets"}}, ""},
		{"the scanner imports domain", pkg{path: "domain/secrets", imports: []string{module + "/domain"}}, "domain/secrets imports domain"},
		{"domain imports its search text", pkg{path: "domain", imports: []string{module + "/domain/search", "github.com/kljensen/snowball/english"}}, ""},
		{"search imports domain", pkg{path: "domain/search", imports: []string{module + "/domain"}}, "domain/search imports domain"},
		{"domain imports its renderer", pkg{path: "domain", imports: []string{module + "/domain/render"}}, ""},
		{"the renderer imports domain", pkg{path: "domain/render", imports: []string{module + "/domain"}}, "domain/render imports domain"},
		{"a room imports domain", pkg{path: "domain/recall", imports: []string{module + "/domain", module + "/domain/render"}}, ""},
		{"a room imports ports", pkg{path: "domain/recall", imports: []string{module + "/ports"}}, "domain/recall imports ports"},
		{"a room imports os", pkg{path: "domain/recall", imports: []string{"os"}}, "domain/recall imports os"},
		{"ports imports domain", pkg{path: "ports", imports: []string{module + "/domain", "time", "encoding/json"}}, ""},
		{"ports imports io/fs", pkg{path: "ports", imports: []string{"io/fs"}}, "ports imports io/fs"},
		{"ports imports database/sql", pkg{path: "ports", imports: []string{"database/sql"}}, "ports imports database/sql"},
		{"porttest imports os and syscall", pkg{path: "ports/porttest", imports: []string{"os", "os/exec", "syscall"}}, ""},
		{"ports imports app", pkg{path: "ports", imports: []string{module + "/app"}}, "ports imports app"},
		{"app imports log/slog and runtime/debug", pkg{path: "app", imports: []string{"log/slog", "runtime/debug", "crypto/rand"}}, ""},
		{"app imports log", pkg{path: "app", imports: []string{"log"}}, "app imports log"},
		{"app imports syscall", pkg{path: "app", imports: []string{"syscall"}}, "app imports syscall"},
		{"app imports os/signal", pkg{path: "app/hooks", imports: []string{"os/signal"}}, "app/hooks imports os/signal"},
		{"app imports a storage adapter", pkg{path: "app", imports: []string{module + "/adapters/storage/jsonfile"}}, "app imports adapters/storage/jsonfile"},
		{"app imports chi", pkg{path: "app", imports: []string{"github.com/go-chi/chi/v5"}}, "app imports github.com/go-chi/chi/v5"},
		{"storage adapter imports os", pkg{path: "adapters/storage/jsonfile", imports: []string{"os", "syscall"}}, ""},
		{"storage adapter imports another", pkg{path: "adapters/storage/bolt", imports: []string{module + "/adapters/storage/jsonfile"}}, "adapters/storage/bolt imports adapters/storage/jsonfile"},
		{"storage adapter imports app", pkg{path: "adapters/storage/bolt", imports: []string{module + "/app"}}, "imports app"},
		{"storage adapter imports bbolt", pkg{path: "adapters/storage/bolt", imports: []string{"go.etcd.io/bbolt", module + "/ports"}}, ""},
		{"http imports a storage adapter", pkg{path: "adapters/http/mcp", imports: []string{module + "/adapters/storage/memory"}}, "adapters/http/mcp imports adapters/storage/memory"},
		{"http imports app", pkg{path: "adapters/http", imports: []string{module + "/app", module + "/adapters/http/mcp"}}, ""},
		{"migrations imports jsonfile", pkg{path: "migrations", imports: []string{module + "/adapters/storage/jsonfile"}}, "migrations imports adapters/storage/jsonfile"},
		{"migrations imports ports", pkg{path: "migrations", imports: []string{module + "/ports", module + "/domain"}}, ""},
		{"migrations imports app", pkg{path: "migrations", imports: []string{module + "/app"}}, "migrations imports app"},
		{"cmd imports everything", pkg{path: "cmd/kg", imports: []string{module + "/app", module + "/adapters/storage/bolt", "os"}}, ""},
		{"unknown package", pkg{path: "util"}, "no dependency rule"},
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

// wallClock are the functions of package time that read or wait on the
// wall clock.
var wallClock = []string{"Now", "Since", "Until", "Sleep", "After", "Tick", "NewTimer", "NewTicker", "AfterFunc"}

// seededRand are the functions of math/rand and math/rand/v2 that build a
// generator from a seed the caller gives; every other function of theirs
// draws from a randomly seeded source.
var seededRand = []string{"New", "NewSource", "NewPCG", "NewChaCha8", "NewZipf"}

// impurities returns the calls of one Go source file that r forbids: the
// I/O functions of ioCalls and the builtins print and println for a rule
// without I/O; for a pure rule also the wall clock, go statements and
// randomly seeded draws. A call is recognised by the name the file imports
// the package under.
func impurities(fset *token.FileSet, f *ast.File, r rule) []string {
	if !r.noIO && !r.pure {
		return nil
	}
	names := map[string]string{} // local name → import path
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if path == "math/rand/v2" {
			name = "rand"
		}
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = path
	}
	var out []string
	report := func(n ast.Node, what string) {
		out = append(out, fmt.Sprintf("%s: %s, which %s/** may not do (docs/architecture.md)", fset.Position(n.Pos()), what, r.prefix))
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			if r.pure {
				report(n, "go statement")
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && r.noIO && (id.Name == "print" || id.Name == "println") {
				report(n, id.Name+" writes to stderr")
			}
		case *ast.SelectorExpr:
			id, ok := n.X.(*ast.Ident)
			if !ok {
				return true
			}
			if what := forbiddenCall(names[id.Name], n.Sel.Name, r); what != "" {
				report(n, what)
			}
		}
		return true
	})
	return out
}

// forbiddenCall says why r forbids the function name of the package at
// path, or "" when it allows it.
func forbiddenCall(path, name string, r rule) string {
	switch {
	case path == "":
		return ""
	case r.noIO && slices.Contains(ioCalls[path], name):
		return fmt.Sprintf("%s.%s does I/O", path, name)
	case r.pure && path == "time" && slices.Contains(wallClock, name):
		return "time." + name + " reads the wall clock"
	case r.pure && (path == "math/rand" || path == "math/rand/v2") && !slices.Contains(seededRand, name) &&
		ast.IsExported(name) && !isRandType(name):
		return path + "." + name + " draws from a randomly seeded source"
	}
	return ""
}

// isRandType reports whether name is a type of math/rand, which a pure
// package may name (a *rand.Rand built from a seed).
func isRandType(name string) bool {
	return slices.Contains([]string{"Rand", "Source", "Source64", "PCG", "ChaCha8", "Zipf"}, name)
}

func TestPurityCheckerCatchesImpurities(t *testing.T) {
	domain, _ := ruleFor("domain/secrets")
	app, _ := ruleFor("app")
	cases := []struct {
		name, src string
		r         rule
		want      int
	}{
		{"clean", "package d\nimport \"time\"\nfunc f() time.Duration { return time.Second }", domain, 0},
		{"time.Now", "package d\nimport \"time\"\nfunc f() { _ = time.Now() }", domain, 1},
		{"renamed time.Since", "package d\nimport t \"time\"\nfunc f(x t.Time) { _ = t.Since(x) }", domain, 1},
		{"go statement", "package d\nfunc f() { go f() }", domain, 1},
		{"time.Now in a goroutine", "package d\nimport \"time\"\nfunc f() { go func() { _ = time.Now() }() }", domain, 2},
		{"a local named time", "package d\ntype c struct{}\nfunc (c) Now() int { return 0 }\nfunc f() { var time c; _ = time.Now() }", domain, 0},
		{"seeded rand", "package d\nimport \"math/rand/v2\"\nfunc f() int { return rand.New(rand.NewPCG(1, 2)).IntN(3) }", domain, 0},
		{"randomly seeded rand", "package d\nimport \"math/rand/v2\"\nfunc f() int { return rand.IntN(3) }", domain, 1},
		{"fmt.Println in domain", "package d\nimport \"fmt\"\nfunc f() { fmt.Println(fmt.Sprint(1)) }", domain, 1},
		{"println in app", "package a\nfunc f() { println(1) }", app, 1},
		{"filepath.Abs in app", "package a\nimport \"path/filepath\"\nfunc f() { _, _ = filepath.Abs(filepath.Join(\"a\", \"b\")) }", app, 1},
		{"goroutines and the clock in app", "package a\nimport \"time\"\nfunc f() { go f(); _ = time.Now() }", app, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "x.go", tc.src, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := impurities(fset, f, tc.r); len(got) != tc.want {
				t.Fatalf("impurities = %q, want %d", got, tc.want)
			}
		})
	}
}

// TestArchitectureCheckCatchesPlants lays one forbidden import or call at a
// time over the real tree (`go list -overlay`, no copy) and runs the check
// of TestDependenciesPointInward on the package it lands in: each must be
// reported, at the planted file.
func TestArchitectureCheckCatchesPlants(t *testing.T) {
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	plants := []struct {
		name, file, src, want string
	}{
		{"os in a domain file", "domain/zz_plant.go", "package domain\n\nimport _ \"os\"\n", "domain imports os"},
		{"net/http in domain", "domain/zz_plant.go", "package domain\n\nimport _ \"net/http\"\n", "domain imports net/http"},
		{"os/exec in a file built only on windows", "domain/zz_plant.go", "//go:build windows\n\npackage domain\n\nimport _ \"os/exec\"\n", "domain imports os/exec"},
		{"os.Getenv in app", "app/zz_plant.go", "package app\n\nimport \"os\"\n\nfunc plant() string { return os.Getenv(\"HOME\") }\n", "app imports os"},
		{"time.Now in a goroutine in a domain subpackage", "domain/secrets/secretcorpus/zz_plant.go",
			"package secretcorpus\n\nimport \"time\"\n\nfunc plant() { go func() { _ = time.Now() }() }\n", "time.Now reads the wall clock"},
		{"a goroutine in a domain subpackage", "domain/secrets/secretcorpus/zz_plant.go",
			"package secretcorpus\n\nfunc plant() { go plant() }\n", "go statement"},
		{"os in a new domain subpackage", "domain/plantroom/plant.go", "package plantroom\n\nimport _ \"os\"\n", "domain/plantroom imports os"},
		{"io/fs in ports", "ports/zz_plant.go", "package ports\n\nimport _ \"io/fs\"\n", "ports imports io/fs"},
		{"syscall in ports", "ports/zz_plant.go", "package ports\n\nimport _ \"syscall\"\n", "ports imports syscall"},
		{"database/sql in app", "app/zz_plant.go", "package app\n\nimport _ \"database/sql\"\n", "app imports database/sql"},
		{"fmt.Println in app", "app/zz_plant.go", "package app\n\nimport \"fmt\"\n\nfunc plant() { fmt.Println() }\n", "fmt.Println does I/O"},
	}
	for _, pl := range plants {
		t.Run(pl.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(root, filepath.FromSlash(pl.file))
			pkgs := listPackages(t, root, map[string]string{file: pl.src}, "./"+filepath.ToSlash(filepath.Dir(pl.file)))
			got := violations(pkgs, isStdlib)
			for _, v := range got {
				if strings.Contains(v, pl.want) && strings.Contains(v, file) {
					return
				}
			}
			t.Errorf("the check did not catch the plant in %s; violations = %q, want one containing %q", pl.file, got, pl.want)
		})
	}
}
