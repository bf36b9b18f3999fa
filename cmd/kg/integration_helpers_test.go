package main

// Helpers of integration_test.go: a kg server run in this process by
// runServer, the function `kg serve` runs (the injectors of wire_gen.go, a
// real root, a real listener on 127.0.0.1:0, the same shutdown), driven by
// mcp-go's Streamable HTTP client.

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// forEachBackend runs f as one subtest per registered storage backend that
// keeps its data in the root (team mode's postgres is tested by e2e/team).
func forEachBackend(t *testing.T, f func(t *testing.T, storage string)) {
	t.Helper()
	for _, b := range backends() {
		if !b.inRoot {
			continue
		}
		t.Run(b.name, func(t *testing.T) { f(t, b.name) })
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
	text       string
	isError    bool
	structured map[string]any
}

// call calls a tool; a JSON-RPC error fails the test, and so does a
// successful result without structuredContent.
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
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			s.t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &r.structured); err != nil {
			s.t.Fatalf("%s: structuredContent is not an object: %s", name, raw)
		}
	}
	if !r.isError && r.structured == nil {
		s.t.Errorf("%s: a successful result without structuredContent: %q", name, r.text)
	}
	return r
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
	id, _ := r.structured["session_id"].(string)
	if id == "" || r.structured["new_session"] != true {
		s.t.Fatalf("kg_read with cwd started no session: %v\n%s", r.structured, r.text)
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
