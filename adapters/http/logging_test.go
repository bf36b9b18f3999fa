package http

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/adapters/events"
	"github.com/kg-memory/kg/adapters/paths"
	"github.com/kg-memory/kg/adapters/storage/memory"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/app/hooks"
	"github.com/kg-memory/kg/domain"
)

func TestLogRequests(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	r := chi.NewRouter()
	r.Use(logRequests(log, nil))
	r.Post("/api/nodes/{level}", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusCreated) })

	req := httptest.NewRequest(http.MethodPost, "/api/nodes/user", strings.NewReader(`{"gist":"top secret content"}`))
	r.ServeHTTP(httptest.NewRecorder(), req)

	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("%v: %s", err, buf.Bytes())
	}
	for k, want := range map[string]any{"msg": "request", "method": "POST", "route": "/api/nodes/{level}", "status": float64(201)} {
		if line[k] != want {
			t.Errorf("%s = %v, want %v", k, line[k], want)
		}
	}
	if _, ok := line["duration"]; !ok {
		t.Error("no duration")
	}
	if strings.Contains(buf.String(), "secret") {
		t.Errorf("the body was logged: %s", buf.Bytes())
	}
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines to write
// while a test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestRefusalsAreLoggedWithPathHostAndOrigin sends the whole server, over
// real HTTP, every kind of request it turns away, and reads the log: each
// line says what was refused (method, path, status, Host, Origin), and no
// line holds a body, a query string or a token.
func TestRefusalsAreLoggedWithPathHostAndOrigin(t *testing.T) {
	var logBuf syncBuffer
	log := slog.New(slog.NewJSONHandler(&logBuf, nil))
	clk := clock.NewManual(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC))
	st := memory.New()
	hub := events.New()
	t.Cleanup(hub.Close)
	svc, err := app.New(app.DefaultConfig(), app.Deps{Graphs: st, Sessions: st, Clock: clk,
		Events: hub, Paths: paths.OS{}, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(context.Background()) })
	const token = "s3cret-token"
	srv := httptest.NewServer(NewServer(Config{AuthToken: token, Clock: clk, Started: clk.Now()}, svc, hooks.New(svc), hub, log))
	host := strings.TrimPrefix(srv.URL, "http://")

	secretBody := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"secret":"node contents"}}`
	tests := []struct {
		name, method, path, body string
		header                   map[string]string
		wantStatus               int
		wantHost, wantOrigin     string
	}{
		{"no token", "POST", "/", secretBody, map[string]string{"Content-Type": "application/json"}, 401, host, ""},
		{"foreign Host", "GET", "/health?token=query-secret", "", map[string]string{"Host": "evil.example:8765"}, 421, "evil.example:8765", ""},
		{"foreign Origin", "POST", "/", secretBody, map[string]string{"Origin": "https://evil.example", "Content-Type": "application/json"}, 403, host, "https://evil.example"},
		{"cross-site", "GET", "/health", "", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, host, ""},
		{"unknown path", "GET", "/no/such/route", "", nil, 404, host, ""},
		{"wrong method", "GET", "/", "", nil, 405, host, ""},
		{"body over the limit", "POST", "/", `{"pad":"` + strings.Repeat("x", domain.MaxBodyBytes) + `"}`, map[string]string{"Content-Type": "application/json"}, 413, host, ""},
		{"not JSON", "POST", "/", secretBody, map[string]string{"Content-Type": "text/plain"}, 415, host, ""},
	}
	for _, tc := range tests {
		req, err := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		if tc.wantStatus != 401 {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		for k, v := range tc.header {
			if k == "Host" {
				req.Host = v
				continue
			}
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != tc.wantStatus {
			t.Errorf("%s: status %d, want %d", tc.name, resp.StatusCode, tc.wantStatus)
		}
	}
	// Close waits for every handler, and so for every log line.
	srv.Close()

	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logBuf.String()), "\n") {
		var line map[string]any
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		if line["msg"] == "request" {
			lines = append(lines, line)
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path, _, _ := strings.Cut(tc.path, "?")
			var found map[string]any
			for _, l := range lines {
				if l["method"] == tc.method && l["status"] == float64(tc.wantStatus) && l["path"] == path {
					found = l
				}
			}
			if found == nil {
				t.Fatalf("no log line with method %s, status %d and path %s in:\n%s", tc.method, tc.wantStatus, path, logBuf.String())
			}
			if found["host"] != tc.wantHost {
				t.Errorf("host %v, want %s", found["host"], tc.wantHost)
			}
			if origin, _ := found["origin"].(string); origin != tc.wantOrigin {
				t.Errorf("origin %q, want %q", origin, tc.wantOrigin)
			}
		})
	}
	for _, secret := range []string{token, "query-secret", "node contents", "xxxxxxxxxx"} {
		if strings.Contains(logBuf.String(), secret) {
			t.Errorf("the log holds %q", secret)
		}
	}
	if !strings.Contains(logBuf.String(), `"fetch_site":"cross-site"`) {
		t.Errorf("the cross-site refusal does not say why:\n%s", logBuf.String())
	}
}

func TestServedRequestsLogNoPath(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	r := chi.NewRouter()
	r.Use(logRequests(log, nil))
	r.Get("/api/nodes/{level}/{id}", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNotFound) })
	r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/api/nodes/user/private-id", nil))
	if strings.Contains(buf.String(), "private-id") || !strings.Contains(buf.String(), `"route":"/api/nodes/{level}/{id}"`) {
		t.Errorf("a routed request logs its pattern, not its path: %s", buf.String())
	}
}
