package clients

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	runClients = flag.Bool("clients", false, "run the real-client harness (make e2e sets it; needs e2e/clients/install.sh)")
	kgFlag     = flag.String("kg", "", "the kg binary to run; empty: build ./cmd/kg once per run")
)

// here is this package's folder: node_modules and ../node22 are found from it.
func here(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller")
	}
	return filepath.Dir(file)
}

// needClients skips unless -clients is set, and fails when it is set but
// the CLIs are not installed: a harness asked for never passes by not running.
func needClients(t testing.TB) {
	t.Helper()
	if !*runClients {
		t.Skip("the real-client harness runs with -clients (make e2e)")
	}
	for _, p := range []string{claudeBin(t), nodeBin(t), codexJS(t), geminiJS(t)} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%v: run e2e/clients/install.sh first", err)
		}
	}
}

func nodeBin(t testing.TB) string {
	return filepath.Join(here(t), "..", "node22", "node_modules", ".bin", "node")
}

func claudeBin(t testing.TB) string {
	return filepath.Join(here(t), "node_modules", "@anthropic-ai", "claude-code-"+runtime.GOOS+"-"+npmArch(), "claude")
}

func codexJS(t testing.TB) string {
	return filepath.Join(here(t), "node_modules", "@openai", "codex", "bin", "codex.js")
}

func geminiJS(t testing.TB) string {
	return filepath.Join(here(t), "node_modules", "@google", "gemini-cli", "bundle", "gemini.js")
}

func npmArch() string {
	if runtime.GOARCH == "amd64" {
		return "x64"
	}
	return runtime.GOARCH
}

var (
	buildOnce sync.Once
	builtKG   string
	buildErr  error
)

// kgBinary is the binary -kg names, else ./cmd/kg built once.
func kgBinary(t testing.TB) string {
	t.Helper()
	if *kgFlag != "" {
		return *kgFlag
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kg-clients-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtKG = filepath.Join(dir, "kg")
		out, err := exec.Command("go", "build", "-o", builtKG, filepath.Join(here(t), "..", "..", "cmd", "kg")).CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtKG
}

// freePort is a loopback port nothing listens on now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// world is one test's machine: a temporary HOME, a project folder, kg's
// port, and the environment every process of the test gets. Outbound
// traffic other than loopback goes to a proxy that refuses it (and
// records where it was going), so that no request of a CLI leaves the
// machine.
type world struct {
	t       testing.TB
	home    string
	project string
	port    int
	env     []string
}

func newWorld(t testing.TB) *world {
	t.Helper()
	w := &world{t: t, home: t.TempDir(), port: freePort(t)}
	w.project = filepath.Join(w.home, "work", "shop")
	if err := os.MkdirAll(w.project, 0o755); err != nil {
		t.Fatal(err)
	}
	dead := newOutboundTrap(t).URL
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "KG_"), strings.HasPrefix(k, "ANTHROPIC_"), strings.HasPrefix(k, "OPENAI_"),
			strings.HasPrefix(k, "GEMINI_"), strings.HasPrefix(k, "GOOGLE_"), strings.HasPrefix(k, "CODEX_"),
			strings.HasPrefix(k, "CLAUDE"), k == "HOME", strings.HasSuffix(strings.ToUpper(k), "_PROXY"):
			continue
		}
		w.env = append(w.env, kv)
	}
	w.env = append(w.env,
		"HOME="+w.home,
		"KG_HTTP_PORT="+strconv.Itoa(w.port),
		"HTTP_PROXY="+dead, "HTTPS_PROXY="+dead, "http_proxy="+dead, "https_proxy="+dead,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "NO_UPDATE_NOTIFIER=1",
	)
	return w
}

// kgURL is where kg serves MCP in this world.
func (w *world) kgURL() string { return "http://127.0.0.1:" + strconv.Itoa(w.port) + "/" }

// kg runs the kg binary to its end and returns its output; it fails the
// test on a non-zero exit.
func (w *world) kg(args ...string) string {
	w.t.Helper()
	return w.kgAs(kgBinary(w.t), args...)
}

// kgAs is kg run as the binary at path (a copy named otherwise).
func (w *world) kgAs(path string, args ...string) string {
	w.t.Helper()
	cmd := exec.Command(path, args...)
	cmd.Env = w.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("kg %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// serve starts `kg serve args` on the world's port and waits until it
// answers; the server is stopped (SIGTERM) when the test ends.
func (w *world) serve(args ...string) {
	w.t.Helper()
	if err := w.tryServe(args...); err != nil {
		w.t.Fatal(err)
	}
}

// tryServe is serve that returns kg's refusal (its output) instead of
// failing the test.
func (w *world) tryServe(args ...string) error {
	cmd := exec.Command(kgBinary(w.t), append([]string{"serve"}, args...)...)
	cmd.Env = w.env
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(w.kgURL() + "health")
		if err == nil {
			resp.Body.Close()
			w.t.Cleanup(stop)
			return nil
		}
		select {
		case <-done: // the log is complete once Wait has returned
			return fmt.Errorf("kg serve %s exited:\n%s", strings.Join(args, " "), log.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	stop()
	return fmt.Errorf("kg serve %s did not answer in 30 s:\n%s", strings.Join(args, " "), log.String())
}

// stopStartedServers ends a kg server a hook or `kg mcp` started in the
// background for this world's root, found by the pid its lock file holds
// (adapters/rootdir: "PID ADDR").
func (w *world) stopStartedServers() {
	data, err := os.ReadFile(filepath.Join(w.home, ".knowledge-graph", ".lock"))
	if err != nil {
		return
	}
	pidText, _, _ := strings.Cut(strings.TrimSpace(string(data)), " ")
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 {
		return
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return
	}
	_ = p.Signal(syscall.SIGTERM)
	for i := 0; i < 100; i++ {
		if p.Signal(syscall.Signal(0)) != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	w.t.Errorf("kg server %d (started in the background) still runs 5 s after SIGTERM; killed", pid)
	_ = p.Kill()
}

// kgCall is one tools/call kg answered, as kg sent it (through the proxy).
type kgCall struct {
	Tool       string
	Text       string // content[].text, joined
	Structured string // structuredContent as JSON, "" when absent
}

// mcpProxy sits between a CLI and kg: it forwards everything and records
// kg's answer to each tools/call, so that a test can hold what reached the
// model against what kg sent.
type mcpProxy struct {
	URL   string
	mu    sync.Mutex
	calls []kgCall
}

func newMCPProxy(t testing.TB, target string) *mcpProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &mcpProxy{}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &req) != nil || req.Method != "tools/call" {
			rp.ServeHTTP(rw, r)
			return
		}
		rec := httptest.NewRecorder()
		rp.ServeHTTP(rec, r)
		p.record(req.Params.Name, rec.Body.Bytes())
		for k, v := range rec.Header() {
			rw.Header()[k] = v
		}
		rw.WriteHeader(rec.Code)
		_, _ = rw.Write(rec.Body.Bytes())
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL + "/"
	return p
}

// record keeps kg's answer to a tools/call.
func (p *mcpProxy) record(tool string, body []byte) {
	text, structured, ok := parseToolResult(body)
	if !ok {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, kgCall{Tool: tool, Text: text, Structured: structured})
}

// parseToolResult reads a tools/call answer, plain JSON or one SSE event:
// its content's text, joined, and its structuredContent as JSON.
func parseToolResult(body []byte) (text, structured string, ok bool) {
	payload := body
	if bytes.HasPrefix(bytes.TrimSpace(body), []byte("event:")) || bytes.Contains(body, []byte("\ndata:")) || bytes.HasPrefix(body, []byte("data:")) {
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				payload = []byte(strings.TrimSpace(d))
			}
		}
	}
	var msg struct {
		Result *struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			Structured json.RawMessage `json:"structuredContent"`
		} `json:"result"`
	}
	if json.Unmarshal(payload, &msg) != nil || msg.Result == nil {
		return "", "", false
	}
	var texts []string
	for _, c := range msg.Result.Content {
		if c.Type == "text" {
			texts = append(texts, c.Text)
		}
	}
	return strings.Join(texts, "\n"), string(msg.Result.Structured), true
}

// callTool calls a kg tool over MCP (kg is stateless: one POST) and
// returns its text; the test fails on an error result.
func (w *world) callTool(name string, args map[string]any) string {
	w.t.Helper()
	body := mustJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	req, err := http.NewRequest(http.MethodPost, w.kgURL(), strings.NewReader(body))
	if err != nil {
		w.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatalf("%s: %v", name, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	text, _, ok := parseToolResult(data)
	if !ok || strings.HasPrefix(text, "Error") {
		w.t.Fatalf("%s %v: %s", name, args, data)
	}
	return text
}

func (p *mcpProxy) Calls() []kgCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]kgCall(nil), p.calls...)
}

// run runs a CLI to its end (at most limit) in dir with the world's
// environment plus extra, and returns its combined output.
func (w *world) run(ctx context.Context, limit time.Duration, dir string, extra []string, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(append([]string(nil), w.env...), extra...)
	cmd.Stdin = strings.NewReader("")
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return string(out), fmt.Errorf("%s did not finish in %v: %w", filepath.Base(name), limit, ctx.Err())
	}
	if err != nil {
		return string(out), fmt.Errorf("%s: %w", filepath.Base(name), err)
	}
	return string(out), nil
}

// newOutboundTrap is the HTTP(S) proxy of a world: it refuses every
// request (403) and logs the host each was for, so that a CLI's attempt to
// reach the network shows in the test's log rather than reaching it.
func newOutboundTrap(t testing.TB) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	hosts := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hosts[r.Host]++
		mu.Unlock()
		http.Error(w, "kg e2e: no network", http.StatusForbidden)
	}))
	t.Cleanup(func() {
		srv.Close()
		mu.Lock()
		defer mu.Unlock()
		if len(hosts) > 0 {
			t.Logf("outbound requests refused (host: count): %v", hosts)
		}
	})
	return srv
}
