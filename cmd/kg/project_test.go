package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/adapters/http/apijson"
)

// kg project list reads the files when no server runs and asks the server
// when one does; both say the same.
func TestProjectList(t *testing.T) {
	t.Parallel()
	for _, storage := range []string{"json", "bolt"} {
		t.Run(storage, func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(t.TempDir(), "root")
			code, _, stderr := runKG(t, nil, "project", "list", "--storage-root", root)
			if code != 1 || !strings.Contains(stderr, "there is no storage root at "+root) {
				t.Errorf("no root: exit %d, %q", code, stderr)
			}
			s := startKG(t, storage, root)
			app, lib := projectDir(t, "app"), projectDir(t, "lib")
			sid := s.session(app)
			s.putNode(sid, "project", "a1", "one", nil)
			s.putNode(sid, "project", "a2", "two", nil)
			s.putEdge(sid, "project", "a1", "uses", "a2")
			s.putNode(s.session(lib), "project", "l1", "three", nil)
			s.stop()

			// Offline: no --storage needed, the root says which.
			code, offline, stderr := runKG(t, nil, "project", "list", "--json", "--storage-root", root)
			if code != 0 {
				t.Fatalf("offline: exit %d: %s", code, stderr)
			}
			var got struct{ Projects []apijson.Project }
			if err := json.Unmarshal([]byte(offline), &got); err != nil {
				t.Fatal(err)
			}
			counts := map[string][2]int{}
			for _, p := range got.Projects {
				counts[p.ProjectPath] = [2]int{p.Active, p.Edges}
				if p.LastChangeTS <= 0 || p.Slug == "" {
					t.Errorf("%+v", p)
				}
			}
			if d := cmp.Diff(map[string][2]int{app: {2, 1}, lib: {1, 0}}, counts); d != "" {
				t.Errorf("offline counts (-want +got):\n%s", d)
			}
			code, table, _ := runKG(t, nil, "project", "list", "--storage-root", root)
			if code != 0 || !strings.HasPrefix(table, "SLUG") || !strings.Contains(table, app) || !strings.Contains(table, lib) {
				t.Errorf("table: exit %d\n%s", code, table)
			}

			p := start(t, "--port", "0", "--storage-root", root, "--storage", storage)
			code, online, stderr := runKG(t, nil, "project", "list", "--json", "--storage-root", root)
			if code != 0 {
				t.Fatalf("through the server: exit %d: %s", code, stderr)
			}
			if d := cmp.Diff(offline, online); d != "" {
				t.Errorf("offline and through the server differ (-offline +server):\n%s", d)
			}
			if code := p.stop(syscall.SIGTERM); code != 0 {
				t.Errorf("server exit %d", code)
			}
		})
	}
}

// kg project mv gives a project's memory and sessions to a new path, and
// refuses while a server runs or when the new path has memory.
func TestProjectMv(t *testing.T) {
	t.Parallel()
	for _, storage := range []string{"json", "bolt"} {
		t.Run(storage, func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(t.TempDir(), "root")
			old, other := projectDir(t, "api"), projectDir(t, "web")
			moved := filepath.Join(t.TempDir(), "renamed", "api") // need not exist
			s := startKG(t, storage, root)
			sid := s.session(old)
			s.putNode(sid, "project", "design", "REST over gRPC", nil)
			s.putNode(s.session(other), "project", "web-node", "a page", nil)
			s.stop()

			p := start(t, "--port", "0", "--storage-root", root, "--storage", storage)
			code, _, stderr := runKG(t, nil, "project", "mv", old, moved, "--storage-root", root)
			if code != 1 || !strings.Contains(stderr, "stop it first, kg project mv needs the root to itself") {
				t.Errorf("while a server runs: exit %d, %q", code, stderr)
			}
			p.stop(syscall.SIGTERM)

			code, _, stderr = runKG(t, nil, "project", "mv", old, other, "--storage-root", root)
			if code != 1 || !strings.Contains(stderr, "project "+other+" already has memory") {
				t.Errorf("onto a project with memory: exit %d, %q", code, stderr)
			}
			code, _, stderr = runKG(t, nil, "project", "mv", "/no/such/project", moved, "--storage-root", root)
			if code != 1 || !strings.Contains(stderr, "no memory is stored for project /no/such/project (`kg project list` shows") {
				t.Errorf("from a project without memory: exit %d, %q", code, stderr)
			}

			code, out, stderr := runKG(t, nil, "project", "mv", old, moved, "--storage-root", root)
			if code != 0 || out != "moved the memory of "+old+" to "+moved+"; 1 session(s) follow it\n" {
				t.Fatalf("exit %d, %q %q", code, out, stderr)
			}
			code, out, _ = runKG(t, nil, "project", "mv", old, moved, "--storage-root", root)
			if code != 0 || !strings.HasPrefix(out, "the memory of "+old+" is already at "+moved) {
				t.Errorf("again: exit %d, %q", code, out)
			}
			// The move is one entry of the moved graph's change log, above
			// the history it brought along.
			code, out, _ = runKG(t, nil, "history", "--project", moved, "--storage-root", root)
			if first := strings.SplitN(out, "\n", 2)[0]; code != 0 || !strings.Contains(first, "project_mv the graph (moved from "+old+" to "+moved) ||
				!strings.Contains(out, "put node design") {
				t.Errorf("kg history after the move: exit %d\n%s", code, out)
			}

			// The session follows: its project is the new path.
			s = startKG(t, storage, root)
			r := s.ok("kg_read", map[string]any{"session_id": sid})
			mustContain(t, r.text, "REST over gRPC")
			if fresh := s.ok("kg_read", map[string]any{"cwd": old}); strings.Contains(fresh.text, "REST over gRPC") {
				t.Errorf("the old path still has the memory:\n%s", fresh.text)
			}
		})
	}
}

func TestProjectUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"project"}, "kg project: want a command: list or mv or rm"},
		{[]string{"project", "cp"}, `kg project: unknown command "cp"; want list or mv or rm`},
		{[]string{"project", "rm"}, "kg project rm: missing PATH"},
		{[]string{"project", "rm", "/a", "/b"}, `kg project rm: unexpected argument "/b"`},
		{[]string{"project", "mv", "/a"}, "kg project mv: missing NEW_PATH"},
		{[]string{"project", "mv"}, "kg project mv: missing OLD_PATH and NEW_PATH"},
		{[]string{"project", "mv", "/a", "/a/"}, "OLD_PATH and NEW_PATH are both /a"},
		{[]string{"project", "list", "x"}, `kg project list: unexpected argument "x"`},
	}
	for _, tc := range tests {
		code, _, stderr := runKG(t, nil, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("kg %v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
