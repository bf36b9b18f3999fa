package main

// Nothing in a request can make the server read or write outside its storage
// root (docs/design/http.md#security; docs/design/storage.md#project-slugs),
// and a link planted inside the root is not followed out of it. These tests run
// real servers on both backends next to a folder "outside" that holds what an
// escape would touch: a graph claiming the project, a user graph, a file; it
// must be byte for byte the same at the end, and nothing of it may be served.

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/adapters/rootdir"
)

// secret is a node only the files outside the root hold, and secretGist
// its gist: no response holds that text unless it read that node.
const (
	secret     = "outside-secret"
	secretGist = "read from outside the root"
)

// sandbox is a folder holding the storage root and, beside it, a folder
// outside the root with a graph and a user graph that hold secret, and a
// file.
type sandbox struct {
	base, root, outside string
}

func newSandbox(t *testing.T) sandbox {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sb := sandbox{base: base, root: filepath.Join(base, "root"), outside: filepath.Join(base, "outside")}
	graph := func(project string) string {
		return `{"_meta":{"schema":2,"seq":1,"project_path":"` + project + `"},"edges":{},"nodes":{"` + secret +
			`":{"id":"` + secret + `","gist":"` + secretGist + `"}}}`
	}
	for name, content := range map[string]string{
		"app/graph.json": graph(filepath.Join(base, "work", "app")),
		"user.json":      graph(""),
		"sessions.json":  `{}`,
		"aliases.json":   `{"app": "app"}`,
		"precious.txt":   "not kg's",
	} {
		p := filepath.Join(sb.outside, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return sb
}

// fingerprint describes every file, folder and link under dir but skip:
// its path, and its content's hash, "dir" or its link's target.
func fingerprint(t *testing.T, dir, skip string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == skip {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link to " + target
		case d.IsDir():
			out[rel] = "dir"
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			out[rel] = hex.EncodeToString(sum[:8])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// rootFiles are the only files kg keeps in a root, by backend.
var rootFiles = map[string]*regexp.Regexp{
	"json": regexp.MustCompile(`^(\.lock|\.backend|(user|sessions)\.(json|prev|journal)|aliases\.json|projects|projects/[^/]+|projects/[^/]+/graph\.(json|prev|journal)|user\.history\.jsonl(\.\d{20}-\d{20})?|projects/[^/]+/history\.jsonl(\.\d{20}-\d{20})?)$`),
	"bolt": regexp.MustCompile(`^(\.lock|\.backend|kg\.db)$`),
}

// checkRoot fails the test for any file under the root that kg does not
// keep there (a project's graph written two folders deep, a leftover
// temporary file, a file named after a request), and for any file another
// user could read or folder another user could enter: files are 0600,
// folders 0700, whatever the umask lets through.
func checkRoot(t *testing.T, storage, root string) {
	t.Helper()
	for rel := range fingerprint(t, root, "") {
		if rel != "." && !rootFiles[storage].MatchString(filepath.ToSlash(rel)) {
			t.Errorf("%s backend: unexpected %s in the root", storage, rel)
		}
		fi, err := os.Lstat(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]fs.FileMode{true: 0o700, false: 0o600}[fi.IsDir()]; fi.Mode().Perm() != want {
			t.Errorf("%s backend: %s has mode %v, want %v", storage, rel, fi.Mode().Perm(), want)
		}
	}
}

// served returns every way a client can read the user graph and a project
// graph, joined: for a test to look for what must not be there.
func (s *kgServer) served(t *testing.T, project string) string {
	t.Helper()
	var b strings.Builder
	for _, path := range []string{"/api/graph/read?project_path=" + url.QueryEscape(project), "/api/export?level=user",
		"/api/projects", "/api/search?q=outside"} {
		r := s.rest(t, "GET", path, "", nil)
		b.WriteString(r.raw)
	}
	r := s.rpc(t, "application/json", toolCall("kg_read", map[string]any{"cwd": project}))
	b.WriteString(r.raw)
	return b.String()
}

// TestRequestsStayInsideTheRoot gives the server, as a cwd (MCP) and as a
// project_path (REST), paths that name the root itself, folders in it, its
// parent, the folder beside it, dot-dot runs out of it and above /, names
// of 300 bytes and paths of 4 KiB, names of files kg keeps, links into and
// out of it. Each becomes a project whose graph lands in one folder of
// projects/ (json) or one bucket (bolt), is read back, also after a
// restart, and nothing outside the root is touched.
func TestRequestsStayInsideTheRoot(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, storage string) {
		sb := newSandbox(t)
		linkToRoot, linkOut := filepath.Join(sb.base, "link-to-root"), filepath.Join(sb.base, "link-out")
		must(t, os.Symlink(sb.root, linkToRoot))
		must(t, os.Symlink(sb.outside, linkOut))
		if storage == "json" {
			// aliases.json is read from disk, not from a request, but it
			// names folders: old names that climb out of projects/ are
			// ignored, never moved.
			must(t, os.MkdirAll(sb.root, 0o700))
			must(t, os.WriteFile(filepath.Join(sb.root, "aliases.json"),
				[]byte(`{"../../outside/app": "app", "../outside": "app", "..": "app", "`+sb.outside+`/app": "app"}`), 0o600))
		}
		before := fingerprint(t, sb.base, sb.root)
		s := startKG(t, storage, sb.root)

		paths := []struct{ name, path string }{
			{"the storage root", sb.root},
			{"the root's projects folder", filepath.Join(sb.root, "projects")},
			{"a project folder in the root", filepath.Join(sb.root, "projects", "app")},
			{"the root's parent", sb.base},
			{"the folder beside the root", sb.outside},
			{"dot-dot out of the root", sb.root + "/projects/../../outside"},
			{"dot-dot above /", "/../../.." + sb.outside},
			{"/", "/"},
			{"a name of 300 bytes", filepath.Join(sb.base, strings.Repeat("n", 300))},
			{"a path of 4 KiB", "/" + strings.Repeat("d/", 2048) + "p"},
			{"a name of a root file", filepath.Join(sb.base, "user.json")},
			{"a name of dots", filepath.Join(sb.base, "...")},
			{"backslashes and dots", sb.base + `/..\..\outside`},
			{"a link to the root", linkToRoot},
			{"a link out of the root", linkOut},
			{"a link to the root, then dot-dots", linkToRoot + "/../outside"},
			{"a project aliases.json points outside for", filepath.Join(sb.base, "work", "app")},
		}
		for i, c := range paths {
			p := c.path
			t.Run(c.name, func(t *testing.T) {
				sid := s.session(p)
				s.putNode(sid, "project", "mcp-"+strconv.Itoa(i), "written through MCP", nil)
				body, _ := json.Marshal(map[string]any{"level": "project", "project_path": p, "id": "rest-" + strconv.Itoa(i), "gist": "written through REST"})
				if r := s.rest(t, "POST", "/api/nodes", "application/json", strings.NewReader(string(body))); r.status != 200 {
					t.Fatalf("REST write: %d %s", r.status, r.raw)
				}
				got := s.served(t, p)
				for _, want := range []string{`"mcp-` + strconv.Itoa(i) + `"`, `"rest-` + strconv.Itoa(i) + `"`} {
					if !strings.Contains(got, want) {
						t.Errorf("the project does not read back %s", want)
					}
				}
				if strings.Contains(got, secretGist) {
					t.Errorf("a graph from outside the root was served")
				}
			})
		}
		checkRoot(t, storage, sb.root)
		s = s.restart()
		for i, c := range paths {
			name, p := c.name, c.path
			if got := s.served(t, p); !strings.Contains(got, `"mcp-`+strconv.Itoa(i)+`"`) || strings.Contains(got, secretGist) {
				t.Errorf("after a restart, project %q (%.100s) does not read back, or reads from outside", name, p)
			}
		}
		s.stop()
		if after := fingerprint(t, sb.base, sb.root); !cmp.Equal(before, after) {
			t.Errorf("outside the root changed:\n%s", cmp.Diff(before, after))
		}
		checkRoot(t, storage, sb.root)
	})
}

// tryStart runs `kg serve` and returns the running server, or nil and its
// stderr when it exits before listening.
func tryStart(t *testing.T, args ...string) (*proc, string) {
	t.Helper()
	cmd := exec.Command(kgBin(t), append([]string{"serve", "--log-format", "json", "--port", "0"}, args...)...)
	cmd.Env = childEnv(t)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, cmd: cmd, done: make(chan struct{})}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	addr := make(chan string, 1)
	go func() {
		defer close(p.done)
		defer close(addr)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			p.mu.Lock()
			p.stderr.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			var rec struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Msg == "listening" {
				addr <- rec.Addr
			}
		}
	}()
	if a, ok := <-addr; ok {
		p.Addr = a
		return p, ""
	}
	<-p.done
	_ = cmd.Wait()
	return nil, p.log()
}

// TestPlantedLinksAreNotFollowed plants, inside a root, symbolic links to
// the folder outside it — in place of a project's folder, of projects/, of
// a graph file, of user.json, sessions.json and aliases.json, of kg.db, of
// .lock and .backend — then starts the server on the root and uses it. The
// server either refuses to start, naming the link, or serves without the
// linked content; nothing outside the root changes.
func TestPlantedLinksAreNotFollowed(t *testing.T) {
	t.Parallel()
	type link struct{ at, to string } // relative to the root and to outside
	tests := []struct {
		name, storage string
		links         []link
		refusesStart  bool // the server does not start: the link is in its way
	}{
		{"a project's folder", "json", []link{{"projects/app", "app"}}, false},
		{"the projects folder", "json", []link{{"projects", "."}}, false},
		{"a project's graph file", "json", []link{{"projects/app/graph.json", "app/graph.json"}}, false},
		{"user.json", "json", []link{{"user.json", "user.json"}}, false},
		{"sessions.json", "json", []link{{"sessions.json", "sessions.json"}}, true},
		{"aliases.json", "json", []link{{"aliases.json", "aliases.json"}, {"projects/old", "app"}}, false},
		{"kg.db", "bolt", []link{{"kg.db", "precious.txt"}}, true},
		{".lock, json", "json", []link{{".lock", "precious.txt"}}, true},
		{".lock, bolt", "bolt", []link{{".lock", "precious.txt"}}, true},
		{".backend", "json", []link{{".backend", "precious.txt"}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sb := newSandbox(t)
			for _, l := range tc.links {
				at := filepath.Join(sb.root, l.at)
				must(t, os.MkdirAll(filepath.Dir(at), 0o700))
				must(t, os.Symlink(filepath.Join(sb.outside, l.to), at))
			}
			before := fingerprint(t, sb.base, sb.root)
			p, stderr := tryStart(t, "--storage", tc.storage, "--storage-root", sb.root)
			switch {
			case tc.refusesStart && p != nil:
				t.Errorf("the server started through a link")
			case tc.refusesStart && !strings.Contains(stderr, "symbolic link"):
				t.Errorf("the server stopped without naming the link:\n%s", stderr)
			case !tc.refusesStart && p == nil:
				t.Fatalf("the server did not start:\n%s", stderr)
			}
			if p != nil {
				s := &kgServer{t: t, Addr: p.Addr, stopped: true}
				project := filepath.Join(sb.base, "work", "app")
				r := s.rpc(t, "application/json", toolCall("kg_read", map[string]any{"cwd": project}))
				var read struct {
					Result struct {
						StructuredContent struct {
							SessionID string `json:"session_id"`
						} `json:"structuredContent"`
					} `json:"result"`
				}
				_ = json.Unmarshal([]byte(r.raw), &read)
				if sid := read.Result.StructuredContent.SessionID; sid != "" {
					for _, level := range []string{"user", "project"} {
						s.rpc(t, "application/json", toolCall("kg_put_node", map[string]any{"session_id": sid, "level": level, "id": "inside", "gist": "g"}))
					}
				}
				if got := s.served(t, project); strings.Contains(got, secretGist) {
					t.Errorf("a graph from outside the root was served")
				}
				if code := p.stop(os.Interrupt); code != 0 {
					t.Logf("exit status %d\n%s", code, p.log())
				}
			}
			if after := fingerprint(t, sb.base, sb.root); !cmp.Equal(before, after) {
				t.Errorf("outside the root changed:\n%s", cmp.Diff(before, after))
			}
		})
	}
}

// TestOpenBindNeedsAndEnforcesTheToken runs the built binary: bound beyond
// loopback without a token it refuses to start (exit 2, the reason, the
// root untouched), from a flag or the environment; with one it starts and
// every request without the token is refused.
func TestOpenBindNeedsAndEnforcesTheToken(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"--host 0.0.0.0", nil, []string{"--host", "0.0.0.0"}, "--host 0.0.0.0 is not a loopback address"},
		{"KG_HTTP_HOST=::", []string{"KG_HTTP_HOST=::"}, nil, "--host :: is not a loopback address"},
		{"a LAN address", []string{"KG_HTTP_HOST=192.0.2.10"}, nil, "--host 192.0.2.10 is not a loopback address"},
		{"an empty token", []string{"KG_AUTH_TOKEN="}, []string{"--host", "0.0.0.0"}, "not a loopback address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(t.TempDir(), "untouched")
			code, _, stderr := runKG(t, append(tc.env, "KG_STORAGE_ROOT="+root), append([]string{"serve"}, tc.args...)...)
			if code != 2 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "--auth-token or KG_AUTH_TOKEN") {
				t.Errorf("exit %d, stderr %q; want exit 2 naming the address and the token", code, stderr)
			}
			if _, err := os.Stat(root); !os.IsNotExist(err) {
				t.Errorf("the refused start created the root (%v)", err)
			}
		})
	}

	const token = "a-long-random-token"
	root := filepath.Join(t.TempDir(), "root")
	p := start(t, "--host", "0.0.0.0", "--port", "0", "--auth-token", token, "--storage-root", root)
	_, port, err := net.SplitHostPort(p.Addr)
	if err != nil {
		t.Fatal(err)
	}
	s := &kgServer{t: t, Addr: "127.0.0.1:" + port, stopped: true}
	for _, path := range []string{"/health", "/api/graph/read", "/ui/"} {
		if r := s.rest(t, "GET", path, "", nil); r.status != 401 {
			t.Errorf("GET %s without the token: %d", path, r.status)
		}
	}
	if r := s.rpc(t, "application/json", toolCall("kg_read", map[string]any{"cwd": "/tmp"})); r.status != 401 {
		t.Errorf("MCP without the token: %d %s", r.status, r.raw)
	}
	req, _ := http.NewRequest("GET", "http://"+s.Addr+"/health", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET /health with the token: %d", resp.StatusCode)
	}
	if h := rootdir.ReadHolder(root); h.PID != p.cmd.Process.Pid {
		t.Errorf("lock holder %+v", h)
	}
	if code := p.stop(os.Interrupt); code != 0 {
		t.Errorf("exit status %d\n%s", code, p.log())
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
