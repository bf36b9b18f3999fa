package team

// End-to-end tests of the kg binary in team mode: `kg migrate --to
// postgres`, `kg token` and `kg serve --storage postgres`, run as a user
// runs them.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kg-memory/kg/adapters/storage/jsonfile"
	"github.com/kg-memory/kg/adapters/storage/postgres/pgtest"
	"github.com/kg-memory/kg/domain"
)

var (
	buildOnce sync.Once
	kgPath    string
	buildErr  error
)

// kgBinary builds cmd/kg once for the package's tests.
func kgBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kg-team-bin-")
		if err != nil {
			buildErr = err
			return
		}
		kgPath = filepath.Join(dir, "kg")
		out, err := exec.Command("go", "build", "-o", kgPath, "../../cmd/kg").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return kgPath
}

// kgRun runs the binary with env (KG_ settings; HOME is a temporary folder)
// and returns its exit status, stdout and stderr.
func kgRun(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	// A command that should have stopped at once but serves instead is
	// killed, so that a test fails rather than hangs. The binary is built
	// first: on a busy machine the build alone can take the minute.
	bin := kgBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = kgEnv(t, env)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

func kgEnv(t testing.TB, extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KG_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return append(append(env, "HOME="+t.TempDir()), extra...)
}

// rootDigest lists every file under root with a digest of its bytes, but
// the lock file every kg process that opens the root takes (it holds no
// memory).
func rootDigest(t *testing.T, root string) string {
	t.Helper()
	var h strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == filepath.Join(root, ".lock") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&h, "%s %x\n", p, sha256.Sum256(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return h.String()
}

// TestBinaryMovesInAndServesATeam: a json root moved in with `kg migrate
// --to postgres` (the root unchanged), a token made with `kg token create`,
// a `kg serve --storage postgres` that serves the root's memory to that
// token and to no other, `kg token list` naming it, and `kg token revoke`
// felt by the running server within 5 s.
func TestBinaryMovesInAndServesATeam(t *testing.T) {
	dbURL := pgtest.Database(t) // new: the binary creates its tables
	root := t.TempDir()
	project := filepath.Join(t.TempDir(), "api") // no .kg/project, no git: a private project of the principal
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	seedRoot(t, root, project)
	before := rootDigest(t, root)
	dbEnv := "KG_DATABASE_URL=" + dbURL
	storageRoot := "KG_STORAGE_ROOT=" + root

	if code, _, stderr := kgRun(t, []string{dbEnv, storageRoot}, "migrate", "--to", "postgres"); code != 2 || !strings.Contains(stderr, "--principal") {
		t.Errorf("migrate without --principal: exit %d, %q; want 2 naming --principal", code, stderr)
	}
	if code, _, stderr := kgRun(t, []string{storageRoot}, "migrate", "--to", "postgres", "--principal", "alice"); code == 0 || !strings.Contains(stderr, "KG_DATABASE_URL") {
		t.Errorf("migrate without KG_DATABASE_URL: exit %d, %q; want a failure naming it", code, stderr)
	}
	code, stdout, stderr := kgRun(t, []string{dbEnv, storageRoot}, "migrate", "--to", "postgres", "--principal", "alice")
	if code != 0 || !strings.Contains(stdout, "checked") {
		t.Fatalf("kg migrate --to postgres: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if after := rootDigest(t, root); after != before {
		t.Errorf("kg migrate --to postgres changed the root:\nbefore\n%s\nafter\n%s", before, after)
	}

	code, token, stderr := kgRun(t, []string{dbEnv}, "token", "create", "--name", "alice")
	token = strings.TrimSpace(token)
	if code != 0 || token == "" || strings.Contains(token, "\n") {
		t.Fatalf("kg token create: exit %d, stdout %q, stderr %q; want the token alone on stdout", code, token, stderr)
	}
	_, bobToken, _ := kgRun(t, []string{dbEnv}, "token", "create", "--name", "bob", "--scope", "read")
	bobToken = strings.TrimSpace(bobToken)
	code, list, _ := kgRun(t, []string{dbEnv}, "token", "list")
	if code != 0 || !strings.Contains(list, "alice") || !strings.Contains(list, "bob") || strings.Contains(list, token) {
		t.Errorf("kg token list: exit %d\n%s\nwant alice and bob, and no token in full", code, list)
	}

	addr := serveTeam(t, dbEnv)
	get := func(tok, path string, out any) int {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://"+addr+path, nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if out != nil {
			_ = json.NewDecoder(res.Body).Decode(out)
		}
		return res.StatusCode
	}
	type read struct {
		User    struct{ Nodes []struct{ ID string } } `json:"user"`
		Project struct{ Nodes []struct{ ID string } } `json:"project"`
	}
	var r read
	if code := get(token, "/api/graph/read?project_path="+url.QueryEscape(project), &r); code != 200 ||
		len(r.User.Nodes) != 1 || r.User.Nodes[0].ID != "user-fact" || len(r.Project.Nodes) != 1 || r.Project.Nodes[0].ID != "project-fact" {
		t.Errorf("alice's read on the team server: %d %+v; want the root's user and project node", code, r)
	}
	var rb read
	if code := get(bobToken, "/api/graph/read?project_path="+url.QueryEscape(project), &rb); code != 200 || len(rb.User.Nodes) != 0 || len(rb.Project.Nodes) != 0 {
		t.Errorf("bob's read: %d %+v; want neither alice's user graph nor her private project", code, rb)
	}
	if code := get("", "/api/graph/read", nil); code != 401 {
		t.Errorf("a read without a token: %d, want 401", code)
	}

	if code, out, stderr := kgRun(t, []string{dbEnv}, "token", "revoke", "alice"); code != 0 || !strings.Contains(out, "revoked 1") {
		t.Fatalf("kg token revoke: exit %d, %q %q", code, out, stderr)
	}
	deadline := time.Now().Add(5 * time.Second)
	for get(token, "/api/graph/read", nil) != 401 {
		if time.Now().After(deadline) {
			t.Fatal("the running server still takes a token revoked 5 s ago")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code := get(bobToken, "/api/graph/read", nil); code != 200 {
		t.Errorf("bob's token after alice's was revoked: %d, want 200", code)
	}
}

// seedRoot writes a json root with one user node and one node of project.
func seedRoot(t *testing.T, root, project string) {
	t.Helper()
	s, err := jsonfile.Open(root, jsonfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for key, id := range map[domain.GraphKey]string{domain.UserGraph: "user-fact", domain.ProjectGraph(project): "project-fact"} {
		g := domain.NewGraph(key)
		if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: "moved in"}, domain.Stamp{Now: domain.Micros(time.Now().UnixMicro())}); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(ctx, key, g, g.Pending()); err != nil {
			t.Fatal(err)
		}
	}
}

// serveTeam runs `kg serve --storage postgres` on a free port until the
// test ends and returns its address.
func serveTeam(t testing.TB, env ...string) string {
	t.Helper()
	return serveTeamWith(t, nil, env...)
}

// serveTeamProcess is serveTeam, also giving the server's process.
func serveTeamProcess(t testing.TB, env ...string) (string, *os.Process) {
	t.Helper()
	return serveTeamArgs(t, nil, env...)
}

// serveTeamWith is serveTeam with more arguments of kg serve.
func serveTeamWith(t testing.TB, args []string, env ...string) string {
	t.Helper()
	addr, _ := serveTeamArgs(t, args, env...)
	return addr
}

// serveTeamArgs is serveTeamWith, also giving the server's process.
func serveTeamArgs(t testing.TB, args []string, env ...string) (string, *os.Process) {
	t.Helper()
	cmd := exec.Command(kgBinary(t), append([]string{"serve", "--storage", "postgres", "--port", "0", "--log-format", "json"}, args...)...)
	cmd.Env = kgEnv(t, env)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	addr := make(chan string, 1)
	var logged strings.Builder
	var mu sync.Mutex
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			mu.Lock()
			logged.WriteString(sc.Text() + "\n")
			mu.Unlock()
			var rec struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Msg == "listening" {
				addr <- rec.Addr
			}
		}
		close(addr)
	}()
	select {
	case a, ok := <-addr:
		if !ok {
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("kg serve --storage postgres exited:\n%s", logged.String())
		}
		return a, cmd.Process
	case <-time.After(60 * time.Second):
		t.Fatal("kg serve --storage postgres did not listen within 60 s")
	}
	return "", nil
}
