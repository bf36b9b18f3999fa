package main

// How the tests of this package run a kg, and how a new test should:
//
//   - Every test calls t.Parallel() first (and so does each subtest that
//     starts its own server), and shares nothing with another test: each
//     has its own root (t.TempDir()), its own port (--port 0, never 8765)
//     and its own environment. Never os.Setenv or t.Setenv: give a setting
//     as a flag, or to the child's environment through runKG's env.
//   - A server in this process: startKG(t, storage, root, flags...) runs
//     runServer, what `kg serve` runs, on a real root and a real listener,
//     and returns a *kgServer with an MCP client (call, ok, fails, session,
//     putNode...); its cleanup stops it. Prefer it: it is the cheapest.
//     forEachBackend runs a test once per storage backend, in parallel.
//   - A server as a child process, where the process is what is tested
//     (signals, exit statuses, the lock, kg mcp): start(t, flags...) runs
//     `kg serve` from kgBin(t) and returns a *proc once it listens.
//   - A command: runKG(t, env, args...) runs kgBin(t) to completion and
//     returns its exit status, stdout and stderr.
//   - kgBin(t) builds the binary once per run of the package, with -race,
//     into a temporary folder, the first time a test needs it (tests of
//     plain functions do not pay the build); every child shares it.
//     Children get childEnv: no KG_ variable of the machine, a temporary
//     HOME, and the race detector's one-second pause at exit turned off.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// kgBuild is the kg binary the tests run as a child, built by kgBin the
// first time a test needs it: tests of the package's functions alone do
// not pay the build.
var kgBuild struct {
	once      sync.Once
	dir, path string
	err       error
}

// kgBin returns the path of the kg binary, built with -race once per run
// of the package; it fails t if the build fails.
func kgBin(t testing.TB) string {
	t.Helper()
	kgBuild.once.Do(func() {
		if kgBuild.dir, kgBuild.err = os.MkdirTemp("", "kg-bin-"); kgBuild.err != nil {
			return
		}
		kgBuild.path = filepath.Join(kgBuild.dir, "kg")
		out, err := exec.Command("go", "build", "-race", "-o", kgBuild.path, ".").CombinedOutput()
		if err != nil {
			kgBuild.err = fmt.Errorf("%w\n%s", err, out)
		}
	})
	if kgBuild.err != nil {
		t.Fatalf("building kg: %v", kgBuild.err)
	}
	return kgBuild.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if kgBuild.dir != "" {
		_ = os.RemoveAll(kgBuild.dir)
	}
	os.Exit(code)
}

// childEnv is the environment of a child kg: no KG_ setting leaks in from
// the machine, and HOME is a temporary folder, so that the default root
// never touches a real memory. A -race binary sleeps a second at exit
// (GORACE atexit_sleep_ms, for reports of races at exit); children of
// these tests are run by the hundred and each exits after its work is
// checked, so the pause is turned off unless GORACE says otherwise.
func childEnv(t *testing.T, extra ...string) []string {
	t.Helper()
	var env []string
	gorace := false
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KG_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
		gorace = gorace || strings.HasPrefix(kv, "GORACE=")
	}
	if !gorace {
		env = append(env, "GORACE=atexit_sleep_ms=0")
	}
	return append(append(env, "HOME="+t.TempDir()), extra...)
}

// proc is a running kg server.
type proc struct {
	t    *testing.T
	cmd  *exec.Cmd
	Addr string // host:port it listens on

	mu     sync.Mutex
	stderr bytes.Buffer
	done   chan struct{} // closed when stderr is drained
}

// start runs `kg serve args...` and returns once it logs its address; it
// fails the test if the child exits first.
func start(t *testing.T, args ...string) *proc {
	t.Helper()
	return startCmd(t, exec.Command(kgBin(t), append([]string{"serve", "--log-format", "json"}, args...)...))
}

// startCmd runs cmd, a kg server logging JSON (perhaps behind a shell that
// execs it), and returns once it logs its address; it fails the test if the
// child exits first.
func startCmd(t *testing.T, cmd *exec.Cmd) *proc {
	t.Helper()
	p := &proc{t: t, done: make(chan struct{}), cmd: cmd}
	p.cmd.Env = childEnv(t)
	pipe, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			_ = p.cmd.Wait()
		}
	})
	addr := make(chan string, 1)
	go func() {
		defer close(p.done)
		defer close(addr)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.stderr.WriteString(line + "\n")
			p.mu.Unlock()
			var rec struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "listening" {
				addr <- rec.Addr
			}
		}
	}()
	a, ok := <-addr
	if !ok {
		_ = p.cmd.Wait()
		t.Fatalf("kg exited before listening: %v\n%s", p.cmd.ProcessState, p.log())
	}
	p.Addr = a
	return p
}

func (p *proc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// stop sends sig and returns the exit status once the child is gone.
func (p *proc) stop(sig os.Signal) int {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatal(err)
	}
	<-p.done
	_ = p.cmd.Wait()
	return p.cmd.ProcessState.ExitCode()
}

// runKG runs kg to completion and returns its exit status and output.
func runKG(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runKGStdin(t, env, "", args...)
}

// runKGStdin is runKG with stdin.
func runKGStdin(t *testing.T, env []string, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(kgBin(t), args...)
	cmd.Env = childEnv(t, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// forEachBackend runs f as one subtest per registered storage backend that
// keeps its data in the root (team mode's postgres is tested by e2e/team).
func forEachBackend(t *testing.T, f func(t *testing.T, storage string)) {
	t.Helper()
	for _, b := range backends() {
		if !b.InRoot {
			continue
		}
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			f(t, b.Name)
		})
	}
}

// lockedBuffer collects a server's log lines; the server writes it from
// several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// listenHandler passes every record on and reports the address of the
// "listening" record, the one runServer logs once it can serve.
type listenHandler struct {
	slog.Handler
	addr chan<- string
}

func (h listenHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "listening" {
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "addr" {
				select {
				case h.addr <- a.Value.String():
				default:
				}
			}
			return true
		})
	}
	return h.Handler.Handle(ctx, r)
}

func (h listenHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return listenHandler{Handler: h.Handler.WithAttrs(as), addr: h.addr}
}

func (h listenHandler) WithGroup(name string) slog.Handler {
	return listenHandler{Handler: h.Handler.WithGroup(name), addr: h.addr}
}

// kgServer is one run of `kg serve` in this process.
type kgServer struct {
	t       *testing.T
	storage string
	root    string
	flags   []string
	Addr    string

	cancel  context.CancelFunc
	done    chan error // runServer's result
	client  *client.Client
	logs    *lockedBuffer
	stopped bool
}

// startKG parses the flags as `kg serve` does, with --port 0, the root and
// the backend, and runs the server until stop. The maintenance tick is set
// to a day so that no tick runs during a test: what a test sees is what
// its calls did.
func startKG(t *testing.T, storage, root string, flags ...string) *kgServer {
	t.Helper()
	args := append([]string{"--port", "0", "--storage-root", root, "--storage", storage,
		"--maintenance-interval", "86400"}, flags...)
	cfg, err := parseWith(args, func(string) string { return "" }, fakeHome)
	if err != nil {
		t.Fatalf("parseServe %v: %v", args, err)
	}
	s := &kgServer{t: t, storage: storage, root: root, flags: flags, done: make(chan error, 1), logs: &lockedBuffer{}}
	addr := make(chan string, 1)
	log := slog.New(listenHandler{Handler: slog.NewTextHandler(s.logs, &slog.HandlerOptions{Level: slog.LevelInfo}), addr: addr})
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go func() { s.done <- runServer(ctx, cancel, cfg, log) }()
	t.Cleanup(func() {
		if !s.stopped {
			s.stop()
		}
		if t.Failed() {
			t.Logf("log of the %s server on %s:\n%s", storage, root, s.logs.String())
		}
	})
	select {
	case s.Addr = <-addr:
	case err := <-s.done:
		s.stopped = true
		t.Fatalf("the server stopped before listening: %v\n%s", err, s.logs.String())
	}

	tr, err := transport.NewStreamableHTTP("http://" + s.Addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	s.client = client.NewClient(tr)
	if err := s.client.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcpgo.Implementation{Name: "kg-integration-test", Version: "1"}
	if _, err := s.client.Initialize(context.Background(), init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return s
}

// stop shuts the server down as SIGTERM does (runServer's context ends):
// in-flight requests drain, the app is closed (pending writes and sessions
// saved), the storage closed and the lock released. It fails the test if
// the shutdown reports an error.
func (s *kgServer) stop() {
	s.t.Helper()
	if s.stopped {
		return
	}
	s.stopped = true
	if s.client != nil {
		_ = s.client.Close()
	}
	s.cancel()
	if err := <-s.done; err != nil {
		s.t.Errorf("shutdown of the %s server: %v", s.storage, err)
	}
	if !strings.Contains(s.logs.String(), "msg=stopped") {
		s.t.Errorf("the %s server did not log that it stopped:\n%s", s.storage, s.logs.String())
	}
}

// restart stops the server and starts a new one on the same root with the
// same flags.
func (s *kgServer) restart() *kgServer {
	s.t.Helper()
	s.stop()
	return startKG(s.t, s.storage, s.root, s.flags...)
}

// toolResult is a tool result as a test reads it.
type toolResult struct {
	text    string
	isError bool
}

// call calls a tool; a JSON-RPC error fails the test, and so does a
// result with structuredContent, which Claude Code and Codex hand the model
// in place of the text (decision 0091).
func (s *kgServer) call(name string, args map[string]any) toolResult {
	s.t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := s.client.CallTool(context.Background(), req)
	if err != nil {
		s.t.Fatalf("%s %v: JSON-RPC error: %v", name, args, err)
	}
	var r toolResult
	r.isError = res.IsError
	for _, c := range res.Content {
		if tc, ok := c.(mcpgo.TextContent); ok {
			r.text += tc.Text
		}
	}
	if res.StructuredContent != nil {
		s.t.Errorf("%s: the result carries structuredContent, which Claude Code and Codex hand the model in place of the text", name)
	}
	return r
}

// sessionOf is the session id a kg_read's text ends with ("Session: <id>");
// "" for none.
func sessionOf(text string) string {
	_, id, ok := strings.Cut(text, "\nSession: ")
	if !ok || strings.Contains(id, "\n") {
		return ""
	}
	return id
}

// graphRead is GET /api/graph/read for the session: every node of both
// graphs with its tier, the project's path and the counts of each tier
// (docs/api.md). The tools' texts give the model the active part; programs
// get the rest from REST.
func (s *kgServer) graphRead(sid string) map[string]any {
	s.t.Helper()
	status, raw := post(s.t, http.MethodGet, "http://"+s.Addr+"/api/graph/read?session_id="+url.QueryEscape(sid), "", nil)
	var out map[string]any
	if err := json.Unmarshal([]byte(raw), &out); status != http.StatusOK || err != nil {
		s.t.Fatalf("GET /api/graph/read: %d %s (%v)", status, raw, err)
	}
	return out
}

// tierIDs are the ids of the nodes of graph ("user", "project") of a
// graphRead at tier, sorted.
func tierIDs(read map[string]any, graph, tier string) []string {
	var out []string
	for _, n := range field(read, graph, "nodes").([]any) {
		if field(n, "tier") == tier {
			out = append(out, field(n, "id").(string))
		}
	}
	slices.Sort(out)
	return out
}

// progressState is the state a kg_progress text shows: the JSON object
// after its first line.
func progressState(t *testing.T, text string) map[string]any {
	t.Helper()
	_, state, _ := strings.Cut(text, "\n")
	var out map[string]any
	if err := json.Unmarshal([]byte(state), &out); err != nil {
		t.Fatalf("kg_progress shows no JSON state (%v):\n%s", err, text)
	}
	return out
}

// ok calls a tool and fails the test on an isError result.
func (s *kgServer) ok(name string, args map[string]any) toolResult {
	s.t.Helper()
	r := s.call(name, args)
	if r.isError {
		s.t.Fatalf("%s %v: unexpected error: %s", name, args, r.text)
	}
	return r
}

// fails calls a tool and fails the test unless the result is an error
// whose text contains want.
func (s *kgServer) fails(name string, args map[string]any, want string) toolResult {
	s.t.Helper()
	r := s.call(name, args)
	if !r.isError || !strings.Contains(r.text, want) {
		s.t.Errorf("%s %v: got isError=%v %q, want an error containing %q", name, args, r.isError, r.text, want)
	}
	return r
}

// session starts a session for the project at cwd and returns its id.
func (s *kgServer) session(cwd string) string {
	s.t.Helper()
	r := s.ok("kg_read", map[string]any{"cwd": cwd})
	id := sessionOf(r.text)
	if id == "" {
		s.t.Fatalf("kg_read with cwd started no session:\n%s", r.text)
	}
	return id
}

// putNode writes a node and checks the first line of the result.
func (s *kgServer) putNode(sid, level, id, gist string, extra map[string]any) toolResult {
	s.t.Helper()
	args := map[string]any{"session_id": sid, "level": level, "id": id, "gist": gist}
	for k, v := range extra {
		args[k] = v
	}
	r := s.ok("kg_put_node", args)
	if want := `Node "` + id + `" saved to ` + level + ` graph (v`; !strings.HasPrefix(r.text, want) {
		s.t.Errorf("kg_put_node %s: %q, want it to start with %q", id, r.text, want)
	}
	return r
}

// putEdge writes an edge and checks the result's text.
func (s *kgServer) putEdge(sid, level, from, rel, to string) {
	s.t.Helper()
	r := s.ok("kg_put_edge", map[string]any{"session_id": sid, "level": level, "from": from, "to": to, "rel": rel})
	if want := "Edge " + from + " --" + rel + "--> " + to + " saved to " + level + " graph"; !strings.HasPrefix(r.text, want) {
		s.t.Errorf("kg_put_edge: %q, want it to start with %q", r.text, want)
	}
}

func mustContain(t *testing.T, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
}

func mustNotContain(t *testing.T, text string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(text, w) {
			t.Errorf("text has %q:\n%s", w, text)
		}
	}
}

// field walks a decoded JSON value along keys (object keys, or indexes as
// ints) and returns what it finds, or nil.
func field(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// strs returns the strings of a decoded JSON list.
func strs(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// ids returns the id field of each object of a decoded JSON list.
func ids(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		s, _ := field(x, "id").(string)
		out = append(out, s)
	}
	return out
}

// projectDir makes a folder for a project under a temporary folder and returns
// its canonical path (docs/design/model.md#levels-and-graphs), which is the
// project's key.
func projectDir(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{t.TempDir()}, parts...)...)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// readJSONFile decodes a JSON file of the root.
func readJSONFile(t *testing.T, path string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// copyDir copies the files of src into dst, recursively.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// searchHits are the ids of the hits a kg_search text lists, in its order:
// each hit is a line "  [where] id (tier, score …".
func searchHits(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, "  ["); ok {
			_, hit, _ := strings.Cut(rest, "] ")
			id, _, _ := strings.Cut(hit, " ")
			out = append(out, id)
		}
	}
	return out
}
