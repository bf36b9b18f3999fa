package mcpstdio

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// seen is one request the fake server got.
type seen struct {
	Method, Version, Auth, Body string
}

// fakeServer answers each JSON-RPC method as answer says, and records what
// it got.
type fakeServer struct {
	mu   sync.Mutex
	got  []seen
	srv  *httptest.Server
	hits map[string]int
}

func newFakeServer(t *testing.T, answer func(w http.ResponseWriter, method string, id json.RawMessage)) *fakeServer {
	t.Helper()
	f := &fakeServer{hits: map[string]int{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &m)
		f.mu.Lock()
		f.got = append(f.got, seen{Method: m.Method, Version: r.Header.Get("MCP-Protocol-Version"),
			Auth: r.Header.Get("Authorization"), Body: string(body)})
		f.mu.Unlock()
		if r.Header.Get("Content-Type") != "application/json" || !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
			http.Error(w, "bad headers", http.StatusBadRequest)
			return
		}
		answer(w, m.Method, m.ID)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := append([]seen(nil), f.got...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Body < out[j].Body })
	return out
}

// kgLike answers as kg's server does: one JSON body for a request (pretty
// printed here, to prove the bridge makes it one line), 202 for a
// notification.
func kgLike(w http.ResponseWriter, method string, id json.RawMessage) {
	if len(id) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	result := `{"ok":"` + method + `"}`
	if method == "initialize" {
		result = `{"protocolVersion":"2025-06-18","serverInfo":{"name":"kg"}}`
	}
	io.WriteString(w, "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": "+string(id)+",\n  \"result\": "+result+"\n}\n")
}

// run feeds lines to a bridge on url and returns what it wrote, line by
// line, sorted (answers may come in any order).
func run(t *testing.T, b *Bridge, lines ...string) []string {
	t.Helper()
	var out bytes.Buffer
	if err := b.Run(context.Background(), strings.NewReader(strings.Join(lines, "\n")+"\n"), &out); err != nil {
		t.Fatalf("Run: %v", err)
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if out.Len() == 0 {
		got = nil
	}
	sort.Strings(got)
	return got
}

func at(url string) func(context.Context) (string, error) {
	return func(context.Context) (string, error) { return url, nil }
}

func TestForwardsRequestsAndNotifications(t *testing.T) {
	f := newFakeServer(t, kgLike)
	b := &Bridge{Connect: at(f.srv.URL + "/"), Token: "s3cret"}
	got := run(t, b,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		``,
		`{"jsonrpc":"2.0","id":"b","method":"tools/list"}`,
	)
	want := []string{
		`{"jsonrpc":"2.0","id":"b","result":{"ok":"tools/list"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","serverInfo":{"name":"kg"}}}`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("stdout (-want +got):\n%s", d)
	}
	for _, r := range f.requests() {
		if r.Auth != "Bearer s3cret" {
			t.Errorf("%s: Authorization %q", r.Method, r.Auth)
		}
		if r.Method == "initialize" && r.Version != "" {
			t.Errorf("initialize carries MCP-Protocol-Version %q", r.Version)
		}
	}
}

// After initialize, requests carry the version it agreed on; a message that
// states its own version in _meta carries that one.
func TestProtocolVersionHeader(t *testing.T) {
	f := newFakeServer(t, kgLike)
	b := &Bridge{Connect: at(f.srv.URL)}
	run(t, b, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	run(t, b,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
	)
	versions := map[string]string{}
	for _, r := range f.requests() {
		versions[r.Method] = r.Version
	}
	want := map[string]string{"initialize": "", "tools/list": "2025-06-18", "tools/call": "2026-07-28"}
	if d := cmp.Diff(want, versions); d != "" {
		t.Errorf("MCP-Protocol-Version by method (-want +got):\n%s", d)
	}
}

func TestAnswersTheBridgeMakes(t *testing.T) {
	tests := []struct {
		name   string
		answer func(w http.ResponseWriter, method string, id json.RawMessage)
		in     string
		want   []string
	}{
		{"not JSON", kgLike, `{"jsonrpc":`,
			[]string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"the message is not valid JSON: unexpected end of JSON input"}}`}},
		{"an HTTP error with kg's JSON body", func(w http.ResponseWriter, _ string, _ json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"detail":"missing or wrong bearer token","kind":"invalid","field":"Authorization"}`)
		}, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`,
			[]string{`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"kg server: 401 Unauthorized: missing or wrong bearer token"}}`}},
		{"a JSON-RPC error with an error status is passed on", func(w http.ResponseWriter, _ string, id json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"error":{"code":-32602,"message":"bad params"}}`)
		}, `{"jsonrpc":"2.0","id":"x","method":"tools/call"}`,
			[]string{`{"jsonrpc":"2.0","id":"x","error":{"code":-32602,"message":"bad params"}}`}},
		{"an event stream", func(w http.ResponseWriter, _ string, id json.RawMessage) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\r\n\r\n"+
				"event: message\ndata: {\"jsonrpc\":\"2.0\",\ndata: \"id\":"+string(id)+",\"result\":{}}\n\n")
		}, `{"jsonrpc":"2.0","id":3,"method":"tools/call"}`,
			[]string{`{"jsonrpc":"2.0","id":3,"result":{}}`, `{"jsonrpc":"2.0","method":"notifications/progress"}`}},
		{"a notification gets nothing back, even an error", func(w http.ResponseWriter, _ string, _ json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no"}}`)
		}, `{"jsonrpc":"2.0","method":"notifications/cancelled"}`, nil},
		{"a batch is the server's to answer", func(w http.ResponseWriter, _ string, _ json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batches are not supported"}}`)
		}, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
			[]string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batches are not supported"}}`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeServer(t, tc.answer)
			got := run(t, &Bridge{Connect: at(f.srv.URL)}, tc.in)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("stdout (-want +got):\n%s", d)
			}
		})
	}
}

// A server that stops answering is looked for again (Connect may start a
// new one) and the request is sent there.
func TestReconnects(t *testing.T) {
	gone := httptest.NewServer(http.NotFoundHandler())
	goneURL := gone.URL
	gone.Close()
	f := newFakeServer(t, kgLike)
	var calls []string
	b := &Bridge{Connect: func(context.Context) (string, error) {
		url := goneURL
		if len(calls) > 0 {
			url = f.srv.URL
		}
		calls = append(calls, url)
		return url, nil
	}}
	got := run(t, b, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if d := cmp.Diff([]string{`{"jsonrpc":"2.0","id":1,"result":{"ok":"ping"}}`}, got); d != "" {
		t.Errorf("stdout (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{goneURL, f.srv.URL}, calls); d != "" {
		t.Errorf("Connect calls (-want +got):\n%s", d)
	}
}

// When the server cannot be reached even after looking again, a request
// gets an error answer and a notification nothing.
func TestUnreachable(t *testing.T) {
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	got := run(t, &Bridge{Connect: at(gone.URL)},
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if len(got) != 1 || !strings.HasPrefix(got[0], `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"kg server: Post `) {
		t.Errorf("stdout = %q", got)
	}
}

func TestConnectFailureStopsRun(t *testing.T) {
	b := &Bridge{Connect: func(context.Context) (string, error) { return "", io.ErrUnexpectedEOF }}
	var out bytes.Buffer
	if err := b.Run(context.Background(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"), &out); err != io.ErrUnexpectedEOF {
		t.Errorf("Run = %v", err)
	}
	if out.Len() != 0 {
		t.Errorf("stdout = %q", out.String())
	}
}
