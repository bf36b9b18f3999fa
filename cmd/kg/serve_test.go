package main

// These tests build the kg binary once and run it as a child process: the
// start-up order, the lock, the signals and the exit statuses are only real
// in a real process. None of them waits for a time to pass: each reads the
// child's log until the line it needs, or waits for the child to exit.

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/kg-memory/kg/adapters/rootdir"
)

func getHealth(t *testing.T, addr string) map[string]any {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/health")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/health: %s", resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return body
}

// callTool makes one stateless MCP tools/call and returns its text; a tool
// error, or a result with structuredContent (decision 0091), fails the
// test.
func callTool(t *testing.T, addr, tool string, args map[string]any) string {
	t.Helper()
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	hreq, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/", bytes.NewReader(req))
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(hreq)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out struct {
		Result struct {
			IsError           bool            `json:"isError"`
			Content           []mcpText       `json:"content"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		}
		Error any
	}
	if err := json.Unmarshal(raw, &out); err != nil || out.Error != nil || out.Result.IsError || len(out.Result.Content) != 1 {
		t.Fatalf("%s: %s (%v)", tool, raw, err)
	}
	if out.Result.StructuredContent != nil {
		t.Errorf("%s: the result carries structuredContent, which Claude Code and Codex hand the model in place of the text", tool)
	}
	return out.Result.Content[0].Text
}

// mcpText is a text content of a tool result.
type mcpText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// The life of a server on each backend: it starts on a free port, answers
// /health and MCP, exits 0 on SIGTERM or SIGINT with what it acknowledged
// saved and the lock released, and a restart finds the data.
func TestServeLifecycle(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		storage string
		sig     os.Signal
	}{{"json", syscall.SIGTERM}, {"bolt", syscall.SIGTERM}, {"json", os.Interrupt}} {
		t.Run(tc.storage+"/"+tc.sig.String(), func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(t.TempDir(), "root")
			args := []string{"--port", "0", "--storage-root", root, "--storage", tc.storage}
			p := start(t, args...)
			h := getHealth(t, p.Addr)
			if h["status"] != "ok" || h["storage"] != tc.storage || h["transport"] != "streamable-http" {
				t.Errorf("/health = %v", h)
			}
			if holder := rootdir.ReadHolder(root); holder.PID != p.cmd.Process.Pid || holder.Addr != p.Addr {
				t.Errorf("lock holder = %+v, want pid %d at %s", holder, p.cmd.Process.Pid, p.Addr)
			}

			sid := sessionOf(callTool(t, p.Addr, "kg_read", map[string]any{"cwd": t.TempDir()}))
			callTool(t, p.Addr, "kg_put_node", map[string]any{"session_id": sid, "level": "user",
				"id": "restart-proof", "gist": "written before the signal"})

			if code := p.stop(tc.sig); code != 0 {
				t.Fatalf("exit status %d after %v, want 0\n%s", code, tc.sig, p.log())
			}
			for _, want := range []string{`"msg":"shutting down"`, `"msg":"stopped"`} {
				if !strings.Contains(p.log(), want) {
					t.Errorf("log lacks %s:\n%s", want, p.log())
				}
			}
			if b, _ := os.ReadFile(filepath.Join(root, rootdir.BackendName)); strings.TrimSpace(string(b)) != tc.storage {
				t.Errorf(".backend = %q, want %s", b, tc.storage)
			}
			l, err := rootdir.Acquire(root, "test")
			if err != nil {
				t.Fatalf("lock not released: %v", err)
			}
			_ = l.Release()

			// The write and the session outlive the process.
			p = start(t, args...)
			got := callTool(t, p.Addr, "kg_read", map[string]any{"session_id": sid, "id": "restart-proof"})
			if !strings.Contains(got, "=== NODE restart-proof — user graph, active ===\ngist: written before the signal\n") {
				t.Errorf("after restart kg_read by id =\n%s", got)
			}
			if code := p.stop(syscall.SIGTERM); code != 0 {
				t.Fatalf("second run exit status %d\n%s", code, p.log())
			}
		})
	}
}

// A second server on a held root fails at once, naming the holder, and the
// first one keeps serving.
func TestSecondServerOnSameRoot(t *testing.T) {
	t.Parallel()
	for _, storage := range []string{"json", "bolt"} {
		t.Run(storage, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			p := start(t, "--port", "0", "--storage-root", root, "--storage", storage)
			code, _, stderr := runKG(t, nil, "serve", "--port", "0", "--storage-root", root, "--storage", storage)
			if code != 1 {
				t.Errorf("second server exit status %d, want 1", code)
			}
			for _, want := range []string{"another kg server holds", "pid " + strconv.Itoa(p.cmd.Process.Pid), p.Addr} {
				if !strings.Contains(stderr, want) {
					t.Errorf("second server's message lacks %q:\n%s", want, stderr)
				}
			}
			if h := getHealth(t, p.Addr); h["status"] != "ok" {
				t.Errorf("first server after the second's attempt: %v", h)
			}
			if code := p.stop(syscall.SIGTERM); code != 0 {
				t.Errorf("exit status %d", code)
			}
		})
	}
}

// A port in use is a one-line error naming the port, and the root's lock is
// given back.
func TestPortInUse(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	root := t.TempDir()
	code, _, stderr := runKG(t, nil, "serve", "--port", port, "--storage-root", root, "--log-level", "error")
	want := "kg serve: port " + port + " on 127.0.0.1 is already in use: stop what holds it or pick another with --port or KG_HTTP_PORT\n"
	if code != 1 || stderr != want {
		t.Errorf("exit %d, stderr %q\nwant exit 1, %q", code, stderr, want)
	}
	l, err := rootdir.Acquire(root, "test")
	if err != nil {
		t.Fatalf("lock kept after a failed start: %v", err)
	}
	_ = l.Release()
}

// A root that holds another backend than the one named is refused with the
// way out, whether --storage or KG_STORAGE names it; named by neither, the
// backend is the one the root holds.
func TestBackendMismatch(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, rootdir.BackendName), []byte("bolt\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env  []string
		args []string
	}{{nil, []string{"--storage", "json"}}, {[]string{"KG_STORAGE=json"}, nil}} {
		code, _, stderr := runKG(t, tc.env, append([]string{"serve", "--port", "0", "--storage-root", root}, tc.args...)...)
		if code != 1 || !strings.Contains(stderr, "holds the bolt backend, not json: run `kg migrate --to json`") {
			t.Errorf("%v %v: exit %d, stderr:\n%s", tc.env, tc.args, code, stderr)
		}
	}
	p := start(t, "--port", "0", "--storage-root", root)
	if h := getHealth(t, p.Addr); h["storage"] != "bolt" {
		t.Errorf("without --storage, a root marked bolt is served as %v", h["storage"])
	}
	if code := p.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("server exit %d", code)
	}
}

// Bad usage exits 2 with a message that names the setting, before anything
// is touched.
func TestBadUsageExits2(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"bad port flag", nil, []string{"serve", "--port", "eighty"}, `kg serve: invalid --port "eighty": want a port number from 0 to 65535`},
		{"bad port env", []string{"KG_HTTP_PORT=99999"}, []string{"serve"}, `invalid KG_HTTP_PORT "99999"`},
		{"plain kg takes serve flags", nil, []string{"--storage", "mongo"}, `kg: invalid --storage "mongo": want json, bolt or postgres (see kg --help)`},
		{"open host without token", nil, []string{"--host", "0.0.0.0"}, "--host 0.0.0.0 is not a loopback address"},
		{"unknown flag", nil, []string{"serve", "--verbose"}, "kg serve: unknown flag: --verbose (see kg serve --help)"},
		{"missing value", nil, []string{"serve", "--port"}, "kg serve: flag needs an argument: --port"},
		{"extra argument", nil, []string{"serve", "now"}, `kg serve: unexpected argument "now" (see kg serve --help)`},
		{"unknown command", nil, []string{"frobnicate"}, `kg: unknown command "frobnicate"; commands: `},
		{"misspelt command", nil, []string{"serv"}, `did you mean serve?`},
		{"version takes no argument", nil, []string{"version", "x"}, `kg version: unexpected argument "x"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(t.TempDir(), "untouched")
			code, _, stderr := runKG(t, append(tc.env, "KG_STORAGE_ROOT="+root), tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q\nwant exit 2 and %q", code, stderr, tc.want)
			}
			if _, err := os.Stat(root); !os.IsNotExist(err) {
				t.Errorf("bad usage created the storage root (%v)", err)
			}
		})
	}
}

func TestVersionAndHelp(t *testing.T) {
	t.Parallel()
	code, out, _ := runKG(t, nil, "version")
	if code != 0 || !strings.HasPrefix(out, "kg ") || !strings.Contains(out, "platform ") {
		t.Errorf("kg version: exit %d, %q", code, out)
	}
	code, out, _ = runKG(t, nil, "--help")
	if code != 0 || !strings.Contains(out, "serve") || !strings.Contains(out, "version") {
		t.Errorf("kg --help: exit %d, %q", code, out)
	}
	code, out, _ = runKG(t, nil, "serve", "--help")
	if code != 0 || !strings.Contains(out, "KG_STORAGE_ROOT") {
		t.Errorf("kg serve --help: exit %d, %q", code, out)
	}
}
