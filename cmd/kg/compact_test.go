package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kg-memory/kg/cmd/kg/internal/report"
)

// oldUserGraph writes a user graph in the replaced server's format with n
// nodes created long ago (past any grace), so that a small budget archives
// some of them.
func oldUserGraph(t *testing.T, root string, n int) {
	t.Helper()
	var nodes []string
	for i := range n {
		nodes = append(nodes, fmt.Sprintf(`"n%02d": {"id": "n%02d", "gist": "an old lesson number %d, long enough to cost tokens", "_created_ts": %d}`,
			i, i, i, 1716400000+i*3600))
	}
	writeFile(t, filepath.Join(root, "user.json"), `{"nodes": {`+strings.Join(nodes, ",\n")+`}, "edges": {}}`)
}

// On the files: --dry-run says what would move and changes nothing; a run
// moves it, each move with its reason; a second run has nothing to do.
func TestCompactOffline(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	oldUserGraph(t, root, 12)
	before, _ := os.ReadFile(filepath.Join(root, "user.json"))
	budget := []string{"--storage-root", root, "--max-tokens", "100", "--grace-days", "0"}

	code, out, stderr := runKG(t, nil, append([]string{"compact", "--dry-run"}, budget...)...)
	if code != 0 || !strings.HasPrefix(out, "user graph: would make ") || !strings.Contains(out, "archive  ") ||
		!strings.Contains(out, "active → archived") || !strings.Contains(out, "score ") {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(root, "user.json")); string(after) != string(before) {
		t.Errorf("--dry-run changed user.json")
	}

	code, out, stderr = runKG(t, nil, append([]string{"compact", "--json"}, budget...)...)
	var got report.Compaction
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("run: exit %d, %v\n%s%s", code, err, out, stderr)
	}
	if got.Level != "user" || got.DryRun || len(got.Archived) == 0 || got.EstimateAfter >= got.EstimateBefore {
		t.Errorf("run = %+v", got)
	}
	archives := 0
	for _, m := range got.Moves.Moves {
		if m.Reason == "" {
			t.Errorf("move %+v has no reason", m)
		}
		if m.Pass == "archive" {
			archives++
			if m.Rank == nil || !strings.Contains(m.Reason, "score ") {
				t.Errorf("archive %+v: want its rank and score", m)
			}
		}
	}
	if archives != len(got.Archived) {
		t.Errorf("%d archive moves for %d archived nodes", archives, len(got.Archived))
	}
	stored := readJSONFile(t, filepath.Join(root, "user.json"))
	for _, id := range got.Archived {
		if n := field(stored, "nodes", id).(map[string]any); n["_archived"] != true {
			t.Errorf("%s is not archived in user.json: %v", id, n)
		}
	}

	code, out, _ = runKG(t, nil, append([]string{"compact"}, budget...)...)
	if code != 0 || !strings.HasPrefix(out, "user graph: nothing to move (estimate ") {
		t.Errorf("second run: exit %d\n%s", code, out)
	}
}

// With a server holding the root, kg compact goes through its API (the
// files are locked): a project's plan and a run of the user graph.
func TestCompactThroughTheServer(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	oldUserGraph(t, root, 3)
	p := start(t, "--port", "0", "--storage-root", root)
	project := projectDir(t, "app")
	sid := sessionOf(callTool(t, p.Addr, "kg_read", map[string]any{"cwd": project}))
	callTool(t, p.Addr, "kg_put_node", map[string]any{"session_id": sid, "level": "project", "id": "p1", "gist": "a project node"})

	code, out, stderr := runKG(t, nil, "compact", "--dry-run", "--project", project, "--json", "--storage-root", root)
	var plan report.Compaction
	if err := json.Unmarshal([]byte(out), &plan); code != 0 || err != nil {
		t.Fatalf("plan: exit %d, %v\n%s%s", code, err, out, stderr)
	}
	if plan.Level != "project" || plan.Project == nil || *plan.Project != project || !plan.DryRun || plan.EstimateBefore == 0 {
		t.Errorf("plan = %+v", plan)
	}
	code, out, stderr = runKG(t, nil, "compact", "--storage-root", root)
	if code != 0 || !strings.HasPrefix(out, "user graph: nothing to move (estimate ") {
		t.Errorf("run: exit %d\n%s%s", code, out, stderr)
	}

	// The run is the server's, with its settings: a budget given that the
	// server does not run with is refused, naming both, before anything
	// moves; the server's own value, however spelt, is no difference.
	before, _ := os.ReadFile(filepath.Join(root, "user.json"))
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--max-tokens", "200"}, "--max-tokens 200 (it runs with 4000)"},
		{[]string{"KG_MAX_TOKENS=200"}, nil, "KG_MAX_TOKENS=200 (it runs with 4000)"},
		{nil, []string{"--dry-run", "--grace-days", "0", "--estimate-notes"}, "--estimate-notes true (it runs with false), --grace-days 0 (it runs with 5)"},
	} {
		code, out, stderr := runKG(t, tc.env, append([]string{"compact", "--storage-root", root}, tc.args...)...)
		if code != 1 || out != "" || !strings.Contains(stderr, "runs with other settings than those given: "+tc.want+";") ||
			!strings.Contains(stderr, "restart the server with these") {
			t.Errorf("kg compact %v %v: exit %d, stdout %q, stderr %q; want exit 1 naming %s", tc.env, tc.args, code, out, stderr, tc.want)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(root, "user.json")); string(after) != string(before) {
		t.Errorf("a refused compaction changed user.json")
	}
	code, out, stderr = runKG(t, []string{"KG_ESTIMATE_NOTES=no"}, "compact", "--storage-root", root, "--max-tokens", "4000", "--grace-days", "5")
	if code != 0 || !strings.HasPrefix(out, "user graph: nothing to move") {
		t.Errorf("with the server's own settings: exit %d\n%s%s", code, out, stderr)
	}
	if code := p.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("server exit %d", code)
	}
}

func TestCompactUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compact", "--level", "project"}, "--level project needs --project PATH"},
		{[]string{"compact", "--level", "user", "--project", "/x"}, "--level user takes no --project"},
		{[]string{"compact", "--level", "team"}, `invalid --level "team": want user or project`},
		{[]string{"compact", "now"}, `unexpected argument "now"`},
	} {
		code, _, stderr := runKG(t, nil, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("kg %v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
