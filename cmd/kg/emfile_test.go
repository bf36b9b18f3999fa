package main

// A json server run under `ulimit -n`: serving many projects holds no file
// descriptor per project (issue 15: each loaded project kept its journal
// open, so under `ulimit -n 128` the 117th project's write failed and new
// connections were never accepted again), and a write that does meet EMFILE
// fails alone: the server keeps answering, and the write succeeds once
// descriptors are free again (docs/design/storage.md#unloading).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// emfileLimit is the child's open-file limit: the server starts with about a
// dozen descriptors open, so a descriptor per project runs out near the 50th.
const emfileLimit = 64

// emfileProjects is more projects than the limit has descriptors.
const emfileProjects = 2 * emfileLimit

// startUnderOpenFileLimit runs `kg serve --log-format json args...` through
// bash with `ulimit -n n` (soft and hard, so that Go cannot raise it).
func startUnderOpenFileLimit(t *testing.T, n int, args ...string) *proc {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("no bash to set an open-file limit: %v", err)
	}
	script := `ulimit -n ` + strconv.Itoa(n) + ` || exit 97; exec "$0" serve --log-format json "$@"`
	return startCmd(t, exec.Command(bash, append([]string{"-c", script, kgBin(t)}, args...)...))
}

// putProjectNode writes one node into the project at path through REST on
// client and returns the status and body.
func putProjectNode(t *testing.T, client *http.Client, addr, path, id string) (int, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"level": "project", "project_path": path, "id": id, "gist": "a node of " + path})
	resp, err := client.Post("http://"+addr+"/api/nodes", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("POST /api/nodes for %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// rawHealth sends GET /health on an open connection and reports whether an
// answer came within wait.
func rawHealth(c net.Conn, r *bufio.Reader, wait time.Duration) bool {
	_ = c.SetDeadline(time.Now().Add(wait))
	if _, err := io.WriteString(c, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		return false
	}
	return rawHealthAnswer(r)
}

// rawHealthAnswer reads the answer to a /health already sent.
func rawHealthAnswer(r *bufio.Reader) bool {
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func TestManyProjectsUnderAnOpenFileLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the kg binary; skipped under -short")
	}
	if out, err := exec.Command("bash", "-c", "ulimit -n "+strconv.Itoa(emfileLimit)+" && ulimit -n").CombinedOutput(); err != nil ||
		strings.TrimSpace(string(out)) != strconv.Itoa(emfileLimit) {
		t.Skipf("`ulimit -n %d` is not available here: %v %q", emfileLimit, err, out)
	}
	root := filepath.Join(t.TempDir(), "root")
	p := startUnderOpenFileLimit(t, emfileLimit, "--port", "0", "--storage-root", root, "--storage", "json",
		"--maintenance-interval", "86400")
	base := t.TempDir()
	client := &http.Client{Timeout: 10 * time.Second}

	// Every project's writes are acknowledged — the first writes its
	// graph file whole, the second appends to its journal — though there
	// are more projects than descriptors, and each stays loaded.
	for i := range emfileProjects {
		path := filepath.Join(base, fmt.Sprintf("p%03d", i))
		for _, id := range []string{"first", "second"} {
			if code, body := putProjectNode(t, client, p.Addr, path, id); code != http.StatusOK {
				t.Fatalf("project %d of %d, write %s: %d %s\n%s", i+1, emfileProjects, id, code, body, p.log())
			}
		}
	}
	fresh := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := fresh.Get("http://" + p.Addr + "/health")
	if err != nil {
		t.Fatalf("/health on a new connection after %d projects: %v\n%s", emfileProjects, err, p.log())
	}
	var h map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if h["status"] != "ok" || h["loaded_graphs"] != float64(emfileProjects+1) {
		t.Errorf("/health after %d projects = %v", emfileProjects, h)
	}

	// Now take every descriptor with idle connections, each shown to be
	// accepted by an answer, until one is not answered: the server is out
	// of descriptors.
	type conn struct {
		c net.Conn
		r *bufio.Reader
	}
	var held []conn
	defer func() {
		for _, c := range held {
			_ = c.c.Close()
		}
	}()
	for len(held) < 2*emfileLimit {
		c, err := net.Dial("tcp", p.Addr)
		if err != nil {
			t.Fatal(err)
		}
		cn := conn{c, bufio.NewReader(c)}
		held = append(held, cn)
		if !rawHealth(c, cn.r, 2*time.Second) {
			break
		}
	}
	if len(held) < 2 || len(held) == 2*emfileLimit {
		t.Fatalf("%d connections held; the limit did not apply", len(held))
	}
	t.Logf("the server ran out of descriptors after %d more connections", len(held)-1)

	// A write on an accepted connection needs a descriptor it cannot get:
	// it is refused as unavailable, and answered.
	last := held[len(held)-2]
	body, _ := json.Marshal(map[string]any{"level": "project", "project_path": filepath.Join(base, "one-too-many"), "id": "n", "gist": "g"})
	_ = last.c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(last.c, "POST /api/nodes HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	wr, err := http.ReadResponse(last.r, nil)
	if err != nil {
		t.Fatalf("the write that met EMFILE was not answered: %v\n%s", err, p.log())
	}
	wb, _ := io.ReadAll(wr.Body)
	wr.Body.Close()
	if wr.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(wb), "too many open files") {
		t.Errorf("the write that met EMFILE: %d %s; want 503 naming the cause", wr.StatusCode, wb)
	}

	// Descriptors come back: the server answers again, the one waiting
	// connection included, and the refused write now succeeds.
	for _, c := range held[:len(held)-1] {
		_ = c.c.Close()
	}
	waiting := held[len(held)-1]
	held = held[len(held)-1:]
	_ = waiting.c.SetDeadline(time.Now().Add(10 * time.Second))
	if !rawHealthAnswer(waiting.r) {
		t.Fatalf("the connection that waited for a descriptor was never answered\n%s", p.log())
	}
	if h := getHealth(t, p.Addr); h["status"] != "degraded" || !strings.Contains(fmt.Sprint(h["problems"]), "too many open files") {
		t.Errorf("/health after the refused write = %v; want degraded naming the cause", h)
	}
	if code, body := putProjectNode(t, fresh, p.Addr, filepath.Join(base, "one-too-many"), "n"); code != http.StatusOK {
		t.Errorf("the write after descriptors came back: %d %s", code, body)
	}
	if h := getHealth(t, p.Addr); h["status"] != "ok" {
		t.Errorf("/health once writes succeed again = %v", h)
	}
	if code := p.stop(syscall.SIGTERM); code != 0 {
		t.Fatalf("exit status %d after SIGTERM, want 0\n%s", code, p.log())
	}
}
