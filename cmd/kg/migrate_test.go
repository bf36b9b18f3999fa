package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/kg-memory/kg/adapters/rootdir"
)

// fillRoot writes a node to each graph of a root through a server run in
// this process, and returns the session and the project.
func fillRoot(t *testing.T, storage, root string) (sid, project string) {
	t.Helper()
	s := startKG(t, storage, root)
	project = projectDir(t, "app")
	sid = s.session(project)
	s.putNode(sid, "user", "user-fact", "kept across backends", nil)
	s.putNode(sid, "project", "project-fact", "kept across backends too", map[string]any{"notes": []any{"a note"}})
	s.stop()
	return sid, project
}

// readBack checks, through a server on storage, that both nodes are there.
func readBack(t *testing.T, storage, root, sid string) {
	t.Helper()
	s := startKG(t, storage, root)
	defer s.stop()
	for _, id := range []string{"user-fact", "project-fact"} {
		r := s.ok("kg_read", map[string]any{"session_id": sid, "id": id})
		mustContain(t, r.text, "kept across backends")
	}
}

// The refusal of a server started with the other backend names a command;
// that command, run as written, converts the root, and the server then
// starts. Back again, nothing is lost and the source is never deleted.
func TestMigrateAsTheRefusalSays(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "root")
	sid, _ := fillRoot(t, "json", root)
	userJSON, err := os.ReadFile(filepath.Join(root, "user.json"))
	if err != nil {
		t.Fatal(err)
	}

	env := []string{"KG_STORAGE_ROOT=" + root}
	code, _, stderr := runKG(t, env, "serve", "--port", "0", "--storage", "bolt")
	m := regexp.MustCompile("run `(kg [^`]*)`").FindStringSubmatch(stderr)
	if code != 1 || m == nil {
		t.Fatalf("serve --storage bolt on a json root: exit %d, stderr %q", code, stderr)
	}
	code, out, stderr := runKG(t, env, strings.Fields(m[1])[1:]...)
	if code != 0 || !strings.Contains(out, "copied json → bolt in "+root+": written user, project:") ||
		!strings.Contains(out, "kg serve serves bolt from now on; drop a --storage json or KG_STORAGE=json") {
		t.Fatalf("%s: exit %d\n%s%s", m[1], code, out, stderr)
	}
	if stderr != "" {
		t.Errorf("stderr of a piped migrate (no progress bar): %q", stderr)
	}
	if got, _ := rootdir.Backend(root); got != "bolt" {
		t.Errorf(".backend = %q after kg migrate --to bolt", got)
	}
	if b, err := os.ReadFile(filepath.Join(root, "user.json")); err != nil || string(b) != string(userJSON) {
		t.Errorf("the json source changed or went away: %v", err)
	}
	readBack(t, "bolt", root, sid)
	// A server started without --storage (the service unit of
	// docs/kg.service) serves what the root now holds.
	p := start(t, "--port", "0", "--storage-root", root)
	if h := getHealth(t, p.Addr); h["storage"] != "bolt" {
		t.Errorf("kg serve without --storage after the migration serves %v, want bolt", h["storage"])
	}
	if code := p.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("server exit %d", code)
	}

	// The other way, and a second run that finds nothing to do.
	code, out, stderr = runKG(t, env, "migrate", "--to", "json")
	if code != 0 || !strings.Contains(out, "copied bolt → json") {
		t.Fatalf("migrate --to json: exit %d\n%s%s", code, out, stderr)
	}
	readBack(t, "json", root, sid)
	if _, err := os.Stat(filepath.Join(root, "kg.db")); err != nil {
		t.Errorf("the bolt source went away: %v", err)
	}
	code, out, _ = runKG(t, env, "migrate", "--to", "json")
	if code != 0 || !strings.Contains(out, "already holds json; every graph is at the current schema: nothing to do") {
		t.Errorf("migrate --to json again: exit %d\n%s", code, out)
	}
}

// While a server holds the root, kg migrate refuses and changes nothing.
func TestMigrateRefusesWhileAServerRuns(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	p := start(t, "--port", "0", "--storage-root", root)
	for _, args := range [][]string{{"migrate", "--to", "bolt"}, {"migrate", "legacy"}} {
		code, out, stderr := runKG(t, nil, append(args, "--storage-root", root)...)
		want := "a kg server serves " + root + " at http://" + p.Addr + ": stop it first"
		if code != 1 || out != "" || !strings.Contains(stderr, want) {
			t.Errorf("kg %v: exit %d, stdout %q, stderr %q\nwant exit 1 and %q", args, code, out, stderr, want)
		}
	}
	if got, _ := rootdir.Backend(root); got != "json" {
		t.Errorf(".backend = %q", got)
	}
	if code := p.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("server exit %d", code)
	}
}

func TestMigrateUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no --to", []string{"migrate"}, 2, "kg migrate: want --to json, bolt or postgres, or the legacy command"},
		{"unknown backend", []string{"migrate", "--to", "sqlite"}, 2, `invalid --to "sqlite": want json, bolt or postgres`},
		{"unknown word", []string{"migrate", "bolt"}, 2, `unknown command "bolt"; want --to json, bolt or postgres, or legacy`},
		{"legacy takes no argument", []string{"migrate", "legacy", "x"}, 2, `kg migrate legacy: unexpected argument "x"`},
		{"no root", []string{"migrate", "--to", "bolt", "--storage-root", "/nonexistent/kg"}, 1, "there is no storage root at /nonexistent/kg"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runKG(t, nil, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}

// kg migrate legacy imports ~/.claude/knowledge and a project's
// .claude/knowledge, copying and never deleting; a second run has nothing
// to do.
func TestMigrateLegacy(t *testing.T) {
	t.Parallel()
	for _, storage := range []string{"json", "bolt"} {
		t.Run(storage, func(t *testing.T) {
			t.Parallel()
			home, root := t.TempDir(), filepath.Join(t.TempDir(), "root")
			project := projectDir(t, "legacy-app")
			writeFile(t, filepath.Join(home, ".claude", "knowledge", "user.json"),
				`{"nodes": {"old-habit": {"gist": "from the oldest layout", "_created_ts": 1716400000}}, "edges": {}}`)
			legacyProject := `{"nodes": {"old-design": {"id": "old-design", "gist": "a project decision of old", "_created_ts": 1716400010}}, "edges": []}`
			writeFile(t, filepath.Join(project, ".claude", "knowledge", "graph.json"), legacyProject)

			env := []string{"HOME=" + home, "KG_STORAGE_ROOT=" + root, "KG_STORAGE=" + storage}
			code, out, stderr := runKG(t, env, "migrate", "legacy", "--project", project)
			if code != 0 || !strings.Contains(out, "imported from "+filepath.Join(home, ".claude", "knowledge")+" into "+root+" ("+storage+"): written user, project:"+project) {
				t.Fatalf("exit %d\n%s%s", code, out, stderr)
			}
			code, out, _ = runKG(t, env, "migrate", "legacy", "--project", project)
			if code != 0 || !strings.HasPrefix(out, "nothing to import") {
				t.Errorf("second run: exit %d\n%s", code, out)
			}
			if b, _ := os.ReadFile(filepath.Join(project, ".claude", "knowledge", "graph.json")); string(b) != legacyProject {
				t.Errorf("the legacy file changed: %s", b)
			}

			s := startKG(t, storage, root)
			sid := s.session(project)
			mustContain(t, s.ok("kg_read", map[string]any{"session_id": sid, "id": "old-habit"}).text, "from the oldest layout")
			mustContain(t, s.ok("kg_read", map[string]any{"session_id": sid, "id": "old-design"}).text, "a project decision of old")
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
