package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// kg history and kg undo, on each backend: through the running server
// (REST), then on the files once it has stopped. Two sessions write over
// MCP; the history shows their changes with a diff; the undo of one
// session's changes, dry run first, puts back what nobody else changed
// since and names what it skips; the undo survives a restart, its entries
// too.
func TestHistoryAndUndoCommands(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, storage string) {
		root := t.TempDir()
		s := startKG(t, storage, root)
		cwd := projectDir(t, "app")
		s1, s2 := s.session(cwd), s.session(cwd)
		s.putNode(s2, "project", "retry-policy", "retry three times", nil)
		s.putNode(s1, "project", "retry-policy", "retry five times, then give up", map[string]any{"notes": []any{"seen in prod"}})
		s.putNode(s1, "project", "jwt-refresh", "refresh tokens slide", nil)
		s.putNode(s1, "project", "shared", "s1 wrote this", nil)
		s.putNode(s2, "project", "shared", "s2 wrote this after", nil)
		s.putEdge(s1, "project", "jwt-refresh", "touches", "src/auth.go")
		flags := []string{"--storage-root", root, "--project", cwd}

		code, out, stderr := runKG(t, nil, append([]string{"history"}, flags...)...)
		if code != 0 {
			t.Fatalf("kg history: exit %d\n%s%s", code, out, stderr)
		}
		mustContain(t, out, "session "+s1+"  put edge jwt-refresh --touches--> src/auth.go",
			"put node retry-policy", "gist     - retry three times", "gist     + retry five times, then give up",
			"notes    + seen in prod")
		if first := strings.SplitN(out, "\n", 2)[0]; !strings.Contains(first, "put edge") {
			t.Errorf("kg history is not newest first: %q", first)
		}
		code, out, _ = runKG(t, nil, append([]string{"history", "retry-policy", "--session", s2, "--json"}, flags...)...)
		var page struct {
			Entries []struct {
				Seq       uint64 `json:"seq"`
				SessionID string `json:"session_id"`
				ID        string `json:"id"`
				Op        string `json:"op"`
			} `json:"entries"`
		}
		if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil || len(page.Entries) != 1 ||
			page.Entries[0].ID != "retry-policy" || page.Entries[0].SessionID != s2 {
			t.Fatalf("kg history retry-policy --session s2: exit %d, %v\n%s", code, err, out)
		}
		code, _, stderr = runKG(t, nil, append([]string{"history", "--limit", "501"}, flags...)...)
		if code != 2 || !strings.Contains(stderr, "invalid --limit 501: want 1 to 500") {
			t.Errorf("kg history --limit 501: exit %d, %s", code, stderr)
		}

		code, out, stderr = runKG(t, nil, append([]string{"undo", "--session", s1, "--dry-run"}, flags...)...)
		if code != 0 {
			t.Fatalf("kg undo --dry-run: exit %d\n%s%s", code, out, stderr)
		}
		mustContain(t, out, "would put back 3 item(s), skipped 1", "restore node retry-policy", "delete node jwt-refresh",
			"delete edge jwt-refresh --touches--> src/auth.go", "skipped node shared: changed since by session "+s2)
		r := s.ok("kg_read", map[string]any{"session_id": s2, "ids": []any{"jwt-refresh"}})
		if r.isError || !strings.Contains(r.text, "refresh tokens slide") {
			t.Fatalf("the dry run changed the graph: %s", r.text)
		}
		code, _, stderr = runKG(t, nil, append([]string{"undo", "--session", s1, "--seqs", "1-2"}, flags...)...)
		if code != 2 || !strings.Contains(stderr, "not both") {
			t.Errorf("kg undo --session --seqs: exit %d, %s", code, stderr)
		}

		code, out, stderr = runKG(t, nil, append([]string{"undo", "--session", s1}, flags...)...)
		if code != 0 {
			t.Fatalf("kg undo: exit %d\n%s%s", code, out, stderr)
		}
		mustContain(t, out, "put back 3 item(s), skipped 1", "(seq ")
		r = s.ok("kg_read", map[string]any{"session_id": s2, "ids": []any{"retry-policy", "shared"}})
		mustContain(t, r.text, "retry three times", "s2 wrote this after")
		mustNotContain(t, r.text, "five times")

		// On the files, after a restart: the undo and its entries stayed.
		s.stop()
		code, out, stderr = runKG(t, nil, append([]string{"history", "--limit", "3"}, flags...)...)
		if code != 0 {
			t.Fatalf("kg history on the files: exit %d\n%s%s", code, out, stderr)
		}
		if n := strings.Count(out, "  undo "); n != 3 {
			t.Errorf("kg history on the files shows %d undo entries, want 3:\n%s", n, out)
		}
		code, out, _ = runKG(t, nil, append([]string{"undo", "--session", s1}, flags...)...)
		mustContain(t, out, "put back 0 item(s), skipped 4")
		if code != 0 {
			t.Errorf("a second undo on the files: exit %d\n%s", code, out)
		}
	})
}

// Issue 28, item 2: kg undo --session S with no --level or --project covers
// every graph S wrote (the user graph and its project), through the server
// and on the files, and prints each graph's result.
func TestUndoBySessionCoversEveryGraph(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, storage string) {
		root := t.TempDir()
		s := startKG(t, storage, root)
		cwd := projectDir(t, "app")
		s1 := s.session(cwd)
		s.putNode(s1, "user", "lesson", "a lesson for every project", nil)
		s.putNode(s1, "project", "design", "the design of app", nil)
		flags := []string{"--storage-root", root}

		code, out, stderr := runKG(t, nil, append([]string{"undo", "--session", s1, "--dry-run"}, flags...)...)
		if code != 0 {
			t.Fatalf("kg undo --session --dry-run: exit %d\n%s%s", code, out, stderr)
		}
		mustContain(t, out, "user graph: would put back 1 item(s), skipped 0", "delete node lesson",
			"project "+cwd+": would put back 1 item(s), skipped 0", "delete node design")

		s.stop() // on the files: the same
		code, out, stderr = runKG(t, nil, append([]string{"undo", "--session", s1, "--json"}, flags...)...)
		var res struct {
			Graphs []struct {
				Level   string `json:"level"`
				Applied []any  `json:"applied"`
			} `json:"graphs"`
		}
		if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || len(res.Graphs) != 2 ||
			res.Graphs[0].Level != "user" || len(res.Graphs[1].Applied) != 1 {
			t.Fatalf("kg undo --session on the files: exit %d, %v\n%s%s", code, err, out, stderr)
		}
	})
}
