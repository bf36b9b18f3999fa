package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// exported is what a test reads of an export document.
type exported struct {
	Format      string `json:"format"`
	Level       string `json:"level"`
	ProjectPath string `json:"project_path"`
	Nodes       []struct {
		ID, Gist, Tier string
	} `json:"nodes"`
	Edges []struct{ From, To, Rel string } `json:"edges"`
}

func readExport(t *testing.T, raw []byte) exported {
	t.Helper()
	var d exported
	if err := json.Unmarshal(raw, &d); err != nil || d.Format != "kg-graph" {
		t.Fatalf("not an export document (%v):\n%s", err, raw)
	}
	slices.SortFunc(d.Nodes, func(a, b struct{ ID, Gist, Tier string }) int { return strings.Compare(a.ID, b.ID) })
	return d
}

// A graph exported from the files of one root (json) is imported into the
// files of another (bolt) and exported again: the same nodes and edges.
// Then the same document goes into a running server, which takes it
// through its API, and replace deletes what the document lacks.
func TestExportImport(t *testing.T) {
	t.Parallel()
	src := filepath.Join(t.TempDir(), "src")
	s := startKG(t, "json", src)
	project := projectDir(t, "app")
	sid := s.session(project)
	s.putNode(sid, "project", "design", "REST over gRPC", map[string]any{"notes": []any{"clients are browsers"}})
	s.putNode(sid, "project", "store", "SQLite for tests", nil)
	s.putEdge(sid, "project", "design", "depends_on", "store")
	s.stop()

	file := filepath.Join(t.TempDir(), "app.json")
	code, out, stderr := runKG(t, nil, "export", "--project", project, "-o", file, "--storage-root", src)
	if code != 0 || out != "" {
		t.Fatalf("export: exit %d, %q %q", code, out, stderr)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := readExport(t, raw)
	if want.Level != "project" || want.ProjectPath != project || len(want.Nodes) != 2 || len(want.Edges) != 1 {
		t.Fatalf("export = %+v", want)
	}

	// Into a fresh bolt root, on the files.
	dst := filepath.Join(t.TempDir(), "dst")
	code, out, stderr = runKG(t, []string{"KG_STORAGE=bolt"}, "import", file, "--storage-root", dst)
	if code != 0 || !strings.HasPrefix(out, "imported "+file+" into the project "+project+" (merge): 2 node(s), 1 edge(s)") {
		t.Fatalf("import: exit %d\n%s%s", code, out, stderr)
	}
	code, out, _ = runKG(t, nil, "export", "--project", project, "--storage-root", dst)
	if d := cmp.Diff(want.Nodes, readExport(t, []byte(out)).Nodes); code != 0 || d != "" {
		t.Errorf("export of the imported graph: exit %d (-want +got):\n%s", code, d)
	}

	// Into a running server, which holds its root: through the API.
	third := filepath.Join(t.TempDir(), "third")
	p := start(t, "--port", "0", "--storage-root", third)
	other := projectDir(t, "other")
	code, out, stderr = runKG(t, nil, "import", file, "--project", other, "--storage-root", third)
	if code != 0 || !strings.HasPrefix(out, "imported "+file+" into the project "+other+" (merge): 2 node(s)") {
		t.Fatalf("import through the server: exit %d\n%s%s", code, out, stderr)
	}
	// The import compacts with the server's settings: other ones are refused.
	code, out, stderr = runKG(t, nil, "import", file, "--project", projectDir(t, "refused"), "--storage-root", third, "--grace-days", "0")
	if code != 1 || out != "" || !strings.Contains(stderr, "runs with other settings than those given: --grace-days 0 (it runs with 5)") {
		t.Errorf("import with another grace through the server: exit %d\n%s%s", code, out, stderr)
	}
	read := callTool(t, p.Addr, "kg_read", map[string]any{"cwd": other})
	if nodes, _ := field(read, "project", "active").([]any); len(nodes) != 2 {
		t.Errorf("the server's read after the import: %v", read)
	}

	// Replace with a document that holds one node: the other goes.
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	doc["nodes"] = doc["nodes"].([]any)[:1]
	doc["edges"] = []any{}
	one, _ := json.Marshal(doc)
	oneFile := filepath.Join(t.TempDir(), "one.json")
	writeFile(t, oneFile, string(one))
	code, out, stderr = runKG(t, nil, "import", oneFile, "--replace", "--project", other, "--storage-root", third)
	if code != 0 || !strings.Contains(out, "(replace)") || !strings.Contains(out, "deleted 1 node(s)") {
		t.Errorf("replace: exit %d\n%s%s", code, out, stderr)
	}
	code, out, _ = runKG(t, nil, "export", "--project", other, "--storage-root", third)
	if got := readExport(t, []byte(out)); code != 0 || len(got.Nodes) != 1 {
		t.Errorf("after replace: exit %d, %+v", code, got)
	}
	if code := p.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("server exit %d", code)
	}
}

// A bad document is refused whole, naming what is wrong, and changes
// nothing; the flags are checked before anything is read.
func TestImportRefusals(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	oldUserGraph(t, root, 2)
	before, _ := os.ReadFile(filepath.Join(root, "user.json"))
	bad := filepath.Join(t.TempDir(), "bad.json")
	writeFile(t, bad, `{"format": "kg-graph", "version": 1, "level": "user", "exported_ts": 1,
		"nodes": [{"id": "ok", "gist": "fine", "tier": "active", "version": 1},
		          {"id": "x", "gist": "", "tier": "active", "version": 1}], "edges": [], "progress": {}}`)
	code, out, stderr := runKG(t, nil, "import", bad, "--storage-root", root)
	if code != 1 || out != "" || !strings.Contains(stderr, "gist") || !strings.Contains(stderr, "(nothing was changed)") {
		t.Errorf("bad document: exit %d, %q %q", code, out, stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(root, "user.json")); string(after) != string(before) {
		t.Errorf("a refused import changed user.json")
	}
	writeFile(t, bad, `{"format": "something-else", "version": 1}`)
	code, _, stderr = runKG(t, nil, "import", bad, "--storage-root", root)
	if code != 1 || !strings.Contains(stderr, `format: "something-else" is not "kg-graph"`) {
		t.Errorf("another format: exit %d, %q", code, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"import"}, "kg import: missing FILE"},
		{[]string{"import", bad, "--merge", "--replace"}, "kg import: --merge and --replace exclude each other"},
		{[]string{"export", "extra"}, `kg export: unexpected argument "extra"`},
	} {
		code, _, stderr := runKG(t, nil, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("kg %v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// importDoc writes an export document of the user graph with n nodes
// created long ago (past any grace), and returns its path.
func importDoc(t *testing.T, n int) string {
	t.Helper()
	var nodes []string
	for i := range n {
		nodes = append(nodes, fmt.Sprintf(`{"id": "n%03d", "gist": "an old lesson number %d, long enough to cost tokens", "tier": "active", "version": 1, "created_ts": %d}`,
			i, i, 1716400000+i*3600))
	}
	file := filepath.Join(t.TempDir(), "doc.json")
	writeFile(t, file, `{"format": "kg-graph", "version": 1, "level": "user", "exported_ts": 1716400000,
		"nodes": [`+strings.Join(nodes, ",\n")+`], "edges": [], "progress": {}}`)
	return file
}

// An import whose compaction run moves many nodes sums the moves up in one
// line; --verbose lists each with its reason.
func TestImportSumsUpTheMoves(t *testing.T) {
	t.Parallel()
	file := importDoc(t, 60)
	root := filepath.Join(t.TempDir(), "root")
	code, out, stderr := runKG(t, nil, "import", file, "--storage-root", root, "--max-tokens", "200")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "imported "+file+" into the user graph (merge): 60 node(s)") ||
		!regexp.MustCompile(`^compaction: [1-9]\d* archived, 0 restored, \d+ orphaned, 0 pruned \(estimate \d+ → \d+ tokens\); --verbose lists every move$`).MatchString(lines[1]) {
		t.Errorf("import: exit %d\n%s%s", code, out, stderr)
	}
	if stderr != "" {
		t.Errorf("piped, the import wrote to stderr: %q", stderr)
	}

	again := filepath.Join(t.TempDir(), "root")
	code, out, _ = runKG(t, nil, "import", file, "--storage-root", again, "--max-tokens", "200", "--verbose")
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) < 20 || !strings.HasPrefix(lines[1], "user graph: made ") || !strings.Contains(out, "active → archived") {
		t.Errorf("import --verbose: exit %d, %d lines\n%s", code, len(lines), out)
	}
}

// On a terminal, the import on the files shows its progress on stderr
// (what it reads, then each step), and clears it before its summary;
// piped, it shows nothing.
func TestImportShowsProgressOnATerminal(t *testing.T) {
	t.Parallel()
	file := importDoc(t, 30)
	bin := kgBin(t)
	for _, interactive := range []bool{true, false} {
		root := filepath.Join(t.TempDir(), "root")
		var out, errs strings.Builder
		e := env{stdin: strings.NewReader(""), stdout: &out, stderr: &errs, getenv: func(string) string { return "" }, home: fakeHome,
			interactive: interactive, executable: func() (string, error) { return bin, nil }}
		code := run(context.Background(), e, []string{"import", file, "--storage-root", root})
		if code != 0 || !strings.HasPrefix(out.String(), "imported ") {
			t.Fatalf("interactive %v: exit %d\n%s%s", interactive, code, out.String(), errs.String())
		}
		if !interactive {
			if errs.Len() != 0 {
				t.Errorf("piped: stderr %q", errs.String())
			}
			continue
		}
		for _, want := range []string{"kg import: reading " + file, "kg import: writing 30 node(s), 0 edge(s) into the user graph", "kg import: saving"} {
			if !strings.Contains(errs.String(), want) {
				t.Errorf("on a terminal, stderr lacks %q:\n%q", want, errs.String())
			}
		}
		if !strings.HasSuffix(errs.String(), "\r") {
			t.Errorf("the bar is not cleared at the end: %q", errs.String())
		}
	}
}

// kg import of a named pipe is refused at once, saying what the path is
// and how to import from a pipe (stdin), instead of waiting for a writer
// for ever (docs/design/trust.md#files-named-by-a-request).
func TestImportRefusesANamedPipe(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	pipe := filepath.Join(t.TempDir(), "doc.json")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Fatal(err)
	}
	bin := kgBin(t) // built before the deadline starts
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "import", pipe, "--storage-root", root)
	cmd.Env = childEnv(t)
	out, _ := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("kg import of a named pipe did not end within 20s: %s", out)
	}
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(string(out), "a named pipe") || !strings.Contains(string(out), "-") {
		t.Errorf("kg import of a named pipe: exit %d, %q; want 1 naming the pipe", code, out)
	}
}
