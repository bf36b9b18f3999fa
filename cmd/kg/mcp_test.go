package main

// kg mcp driven by a real stdio MCP client (mcp-go's) against the built
// binary: it starts a server when none answers, forwards to the one that
// holds the root, and writes nothing on stdout but JSON-RPC answers.

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/kg-memory/kg/adapters/rootdir"
	"github.com/kg-memory/kg/cmd/kg/internal/apiclient"
)

// stdioClient starts `kg mcp args...` under mcp-go's stdio client, with the
// child environment of these tests plus env, initializes it, and wraps it
// so that call, ok and fails apply.
func stdioClient(t *testing.T, env []string, args ...string) *kgServer {
	t.Helper()
	var stderr lockedBuffer
	c, err := client.NewStdioMCPClientWithOptions(kgBin(t), nil, append([]string{"mcp"}, args...),
		transport.WithCommandFunc(func(ctx context.Context, command string, _ []string, args []string) (*exec.Cmd, error) {
			cmd := exec.CommandContext(ctx, command, args...)
			cmd.Env = childEnv(t, env...)
			return cmd, nil
		}),
		transport.WithCommandStderrWriter(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Close()
		if t.Failed() {
			t.Logf("kg mcp stderr:\n%s", stderr.String())
		}
	})
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcpgo.Implementation{Name: "kg-mcp-test", Version: "1"}
	res, err := c.Initialize(context.Background(), init)
	if err != nil {
		t.Fatalf("initialize through kg mcp: %v\n%s", err, stderr.String())
	}
	if res.ServerInfo.Name != "kg" {
		t.Errorf("server name %q, want kg", res.ServerInfo.Name)
	}
	return &kgServer{t: t, client: c, stopped: true}
}

// httpMCPClient is an initialized MCP client of the server at addr, over
// Streamable HTTP.
func httpMCPClient(t *testing.T, addr string) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	t.Cleanup(func() { _ = c.Close() })
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcpgo.Implementation{Name: "kg-mcp-test", Version: "1"}
	if _, err := c.Initialize(context.Background(), init); err != nil {
		t.Fatalf("initialize %s: %v", addr, err)
	}
	return c
}

// toolNames is the sorted names of the tools c lists.
func toolNames(t *testing.T, c *client.Client) []string {
	t.Helper()
	tools, err := c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if len(names) == 0 {
		t.Fatal("tools/list lists no tool")
	}
	return names
}

// stopRootServer stops the server that holds root (one that kg mcp started
// in the background, so not this test's child) and waits until the lock is
// free.
func stopRootServer(t *testing.T, root string) {
	t.Helper()
	h := rootdir.ReadHolder(root)
	if !h.Running() {
		return
	}
	if err := syscall.Kill(h.PID, syscall.SIGTERM); err != nil {
		t.Fatalf("stop the server (pid %d): %v", h.PID, err)
	}
	for range 600 { // a bound against a hang, not a timing check
		if l, err := rootdir.Acquire(root, ""); err == nil {
			_ = l.Release()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the server (pid %d) did not release %s", h.PID, root)
}

func TestMCPStdioStartsAServerAndForwards(t *testing.T) {
	t.Parallel()
	for _, storage := range []string{"json", "bolt"} {
		t.Run(storage, func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(t.TempDir(), "root")
			t.Cleanup(func() { stopRootServer(t, root) })
			a := stdioClient(t, nil, "--port", "0", "--storage-root", root, "--storage", storage)

			h := rootdir.ReadHolder(root)
			if !h.Running() || h.Addr == "" {
				t.Fatalf("no server holds the root after kg mcp started: %+v", h)
			}
			// kg mcp offers what the server offers: its tools/list, forwarded.
			if d := cmp.Diff(toolNames(t, httpMCPClient(t, h.Addr)), toolNames(t, a.client)); d != "" {
				t.Errorf("tools through kg mcp (-the server's +kg mcp's):\n%s", d)
			}
			project := t.TempDir()
			sid := a.session(project)
			a.putNode(sid, "project", "stdio-proof", "written through kg mcp", nil)

			// The server outlives the client that started it, logs to
			// kg.log under the root, and serves the next client.
			_ = a.client.Close()
			b := stdioClient(t, nil, "--no-start", "--storage-root", root, "--storage", storage)
			got := b.ok("kg_read", map[string]any{"session_id": sid, "id": "stdio-proof"})
			mustContain(t, got.text, "written through kg mcp")
			if now := rootdir.ReadHolder(root); now.PID != h.PID {
				t.Errorf("the second client started another server: pid %d, then %d", h.PID, now.PID)
			}
			log, err := os.ReadFile(filepath.Join(root, serverLogName))
			if err != nil || !bytes.Contains(log, []byte("msg=listening")) {
				t.Errorf("%s: %v\n%s", serverLogName, err, log)
			}
		})
	}
}

// On the wire: a notification gets nothing back, a request one line, a
// line that is not JSON a parse error; stdin's end ends kg mcp with 0.
func TestMCPStdioWire(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	p := start(t, "--port", "0", "--storage-root", root)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`not json`,
	}, "\n") + "\n"
	cmd := exec.Command(kgBin(t), "mcp", "--no-start", "--storage-root", root, "--log-level", "error")
	cmd.Env = childEnv(t)
	cmd.Stdin = strings.NewReader(in)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("kg mcp: %v\n%s", err, errb.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	slices.Sort(lines)
	if len(lines) != 3 {
		t.Fatalf("stdout has %d lines, want 3 (initialize, ping, parse error):\n%s", len(lines), out.String())
	}
	for i, want := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{`,
		`{"jsonrpc":"2.0","id":2,"result":{}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"the message is not valid JSON`,
	} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("line %d = %s\nwant it to start with %s", i, lines[i], want)
		}
	}
	if errb.Len() != 0 {
		t.Errorf("stderr at --log-level error: %q", errb.String())
	}
	if code := p.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("server exit %d", code)
	}
}

// --no-start refuses when nothing answers, and a server that wants a token
// is reached only with it.
func TestMCPStdioRefusals(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	code, out, stderr := runKG(t, nil, "mcp", "--no-start", "--storage-root", root, "--port", freePort(t))
	if code != 1 || out != "" || !strings.Contains(stderr, "no kg server answers") || !strings.Contains(stderr, "--no-start is set") {
		t.Errorf("--no-start without a server: exit %d, stdout %q, stderr %q", code, out, stderr)
	}

	p := start(t, "--port", "0", "--storage-root", root, "--auth-token", "s3cret")
	code, out, stderr = runKG(t, nil, "mcp", "--no-start", "--storage-root", root)
	if code != 1 || out != "" || !strings.Contains(stderr, "wants a token") {
		t.Errorf("without the token: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	c := stdioClient(t, []string{"KG_AUTH_TOKEN=s3cret"}, "--no-start", "--storage-root", root)
	c.session(t.TempDir())

	// Settings for the server it would start, which the server that runs
	// does not run with: refused, not ignored. What kg mcp uses itself (the
	// root, the token, its log) is no difference.
	code, out, stderr = runKG(t, []string{"KG_AUTH_TOKEN=s3cret", "KG_IDLE_UNLOAD=0"}, "mcp", "--no-start", "--storage-root", root,
		"--max-tokens", "8000", "--log-level", "debug")
	if code != 1 || out != "" || !strings.Contains(stderr, "runs with other settings than those given: --max-tokens 8000 (it runs with 4000), KG_IDLE_UNLOAD=0 (it runs with 1800);") {
		t.Errorf("kg mcp with other settings: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	_ = c.client.Close()
	if code := p.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("server exit %d", code)
	}
}

// A server killed with -9 whose parent has not reaped it yet (a zombie, as
// under an init that does not reap the server kg mcp started) holds no
// lock and answers nothing: kg mcp says at once that no server answers,
// instead of waiting out apiclient.StartingWait for it to finish starting.
func TestMCPStdioAfterTheServerIsKilled(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	p := start(t, "--port", "0", "--storage-root", root)
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done // its stderr is closed: it has exited; nothing reaps it until the test ends
	if h := rootdir.ReadHolder(root); h.PID != p.cmd.Process.Pid || h.Addr != p.Addr {
		t.Fatalf("lock holder = %+v, want the killed server", h)
	}
	began := time.Now()
	code, out, stderr := runKG(t, nil, "mcp", "--no-start", "--storage-root", root, "--port", freePort(t))
	if code != 1 || out != "" || !strings.Contains(stderr, "no kg server answers") {
		t.Errorf("kg mcp after the kill: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	// Not a speed check: the old behaviour was to wait apiclient.StartingWait in
	// full before giving up on a server that could never answer.
	if waited := time.Since(began); waited >= apiclient.StartingWait {
		t.Errorf("kg mcp took %s, the whole wait for a starting server (%s): it waited for a dead one", waited, apiclient.StartingWait)
	}
}
