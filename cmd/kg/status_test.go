package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// kg status finds the server of the root through its lock file (here on a
// port the system picked), reports it, and exits 1 when none answers.
func TestStatus(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "root")
	code, _, stderr := runKG(t, nil, "status", "--storage-root", root, "--port", freePort(t))
	if code != 1 || !strings.Contains(stderr, "no kg server answers: none holds "+root) {
		t.Errorf("without a server: exit %d, stderr %q", code, stderr)
	}

	p := start(t, "--port", "0", "--storage-root", root, "--storage", "bolt", "--auth-token", "s3cret")
	_, port, _ := net.SplitHostPort(p.Addr)

	code, _, stderr = runKG(t, nil, "status", "--storage-root", root)
	if code != 1 || !strings.Contains(stderr, "wants a token: set --auth-token or KG_AUTH_TOKEN") {
		t.Errorf("without the token: exit %d, stderr %q", code, stderr)
	}

	code, out, stderr := runKG(t, []string{"KG_AUTH_TOKEN=s3cret"}, "status", "--storage-root", root)
	pid := strconv.Itoa(p.cmd.Process.Pid)
	for _, want := range []string{"answers at http://" + p.Addr + "/", "status    ok", "root      " + root + " (pid " + pid + ")",
		"storage   bolt", "sessions  0 active", "graphs    1 loaded"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, stdout lacks %q:\n%s%s", code, want, out, stderr)
		}
	}

	code, out, _ = runKG(t, []string{"KG_AUTH_TOKEN=s3cret"}, "status", "--json", "--storage-root", root)
	var got struct {
		URL        string `json:"url"`
		ServesRoot bool   `json:"serves_root"`
		PID        int    `json:"pid"`
		Status     string `json:"status"`
		Storage    string `json:"storage"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 {
		t.Fatalf("--json: exit %d, %v:\n%s", code, err, out)
	}
	if got.URL != "http://"+p.Addr+"/" || !got.ServesRoot || got.PID != p.cmd.Process.Pid || got.Status != "ok" || got.Storage != "bolt" {
		t.Errorf("--json = %+v", got)
	}

	// Another root: the server at the configured address answers, and
	// status says it does not serve this root.
	code, out, _ = runKG(t, []string{"KG_AUTH_TOKEN=s3cret"}, "status", "--storage-root", t.TempDir(), "--port", port)
	if code != 0 || !strings.Contains(out, "root      another one: no server holds") {
		t.Errorf("another root: exit %d:\n%s", code, out)
	}

	if code := p.stop(syscall.SIGTERM); code != 0 {
		t.Fatalf("exit %d", code)
	}
	code, _, stderr = runKG(t, nil, "status", "--storage-root", root, "--port", port)
	if code != 1 || !strings.Contains(stderr, "no kg server answers") {
		t.Errorf("after the server stopped: exit %d, stderr %q", code, stderr)
	}
}

// freePort returns a port nothing listens on (it was free a moment ago).
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// A server that answers degraded (here its user graph does not load) makes
// kg status exit 1, its problems printed, with --json too: a monitor that
// reads the exit status learns of it.
func TestStatusDegradedExits1(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "user.json"), []byte(`{"nodes": {"a": {"id": `), 0o600); err != nil {
		t.Fatal(err)
	}
	p := start(t, "--port", "0", "--storage-root", root)
	code, out, stderr := runKG(t, nil, "status", "--storage-root", root)
	if code != 1 || !strings.Contains(out, "status    degraded") || !strings.Contains(out, "problem   ") ||
		!strings.HasPrefix(stderr, "kg status: the server is degraded: ") || !strings.Contains(stderr, "user graph") {
		t.Errorf("kg status: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	code, out, _ = runKG(t, nil, "status", "--json", "--storage-root", root)
	var got struct {
		Status   string   `json:"status"`
		Problems []string `json:"problems"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 1 || got.Status != "degraded" || len(got.Problems) == 0 {
		t.Errorf("kg status --json: exit %d, %v: %s", code, err, out)
	}
	if code := p.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("server exit %d", code)
	}
}
