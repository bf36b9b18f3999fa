package http

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// hangGuard bounds a test's own reads so that a server that never closes a
// connection fails the test with a message instead of hanging it; it is
// far beyond the short deadlines the tests configure, and no test checks
// how fast anything happened.
const hangGuard = time.Minute

// testBodyTimeout is the short body deadline the tests configure.
const testBodyTimeout = 50 * time.Millisecond

// A client that sends its headers and then stalls its body is cut off:
// the server answers (408 where the body is read) and closes the
// connection, whether the body was declared, chunked, or aimed at a route
// that never reads it.
func TestStalledBodyIsCut(t *testing.T) {
	s := newTestServer(t, Config{Version: "1", BodyReadTimeout: testBodyTimeout}, nil)
	addr := strings.TrimPrefix(s.url, "http://")
	cases := []struct {
		name, request string
		status        int // 0: any answer, as long as the connection is closed
	}{
		{"MCP, declared length, nothing sent", "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n", 408},
		{"MCP, declared length, part sent", "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\":", 408},
		{"MCP, chunked, stalled", "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"jso\r\n", 408},
		{"a route that does not read the body", "POST /nope HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\nxx", 0},
		{"a request refused before the body", "POST / HTTP/1.1\r\nHost: evil.example\r\nContent-Length: 100\r\n\r\n", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, c.request); err != nil {
				t.Fatal(err)
			}
			// The client now stalls: it sends nothing more.
			if err := conn.SetReadDeadline(time.Now().Add(hangGuard)); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("no answer: %v", err)
			}
			rest, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatalf("reading the answer: %v", err)
			}
			if c.status != 0 && resp.StatusCode != c.status {
				t.Errorf("status %d (%s), want %d", resp.StatusCode, rest, c.status)
			}
			// The server must close the connection: the next read ends
			// with EOF, not with our guard.
			if _, err := conn.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
				if errors.Is(err, os.ErrDeadlineExceeded) {
					t.Fatal("the server held the connection of a stalled body")
				}
				t.Fatalf("after the answer: %v, want the connection closed", err)
			}
		})
	}
}

// Once the body is in, the deadline no longer applies: a handler that
// takes longer than the body deadline (a slow save) keeps its context.
// net/http lifts the deadline at the end of the body; this holds that
// boundBody leaves it lifted.
func TestSlowHandlerAfterTheBodyKeepsItsContext(t *testing.T) {
	handlerDone := make(chan error, 1)
	h := boundBody(testBodyTimeout)(limitBody(1 << 20)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			handlerDone <- err
			return
		}
		// Outlast the body deadline, as a slow save does.
		time.Sleep(10 * testBodyTimeout)
		handlerDone <- r.Context().Err()
		w.WriteHeader(http.StatusNoContent)
	})))
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"ok":true}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := <-handlerDone; err != nil {
		t.Errorf("the handler's context: %v, want it alive after the body deadline passed", err)
	}
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("status %d, want 204", resp.StatusCode)
	}
}

// A request without a body gets no deadline, so a connection it hijacks (a
// WebSocket) is not cut by one.
func TestHijackedConnectionIsNotCut(t *testing.T) {
	h := boundBody(testBodyTimeout)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
		_ = rw.Flush()
		line, err := rw.ReadString('\n')
		if err != nil {
			return
		}
		_, _ = rw.WriteString(line)
		_ = rw.Flush()
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(hangGuard)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(conn, "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	// Stay silent past the body deadline, then talk.
	time.Sleep(10 * testBodyTimeout)
	if _, err := io.WriteString(conn, "ping\n"); err != nil {
		t.Fatal(err)
	}
	if got, err := br.ReadString('\n'); err != nil || got != "ping\n" {
		t.Errorf("echo = %q, %v; want the hijacked connection alive", got, err)
	}
}
