package ws_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/adapters/events"
	khttp "github.com/kg-memory/kg/adapters/http"
	"github.com/kg-memory/kg/adapters/paths"
	"github.com/kg-memory/kg/adapters/storage/memory"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/app/hooks"
	"github.com/kg-memory/kg/domain"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// patience bounds every wait of these tests for something that must
// happen; it is never what a test asserts.
const patience = 20 * time.Second

// env is the whole HTTP side on a loopback port over a real app on the
// memory adapter, with the real events hub between them.
type env struct {
	t     *testing.T
	srv   *httptest.Server
	url   string
	hub   *events.Hub
	store *memory.Store
	clock *clock.Manual
	p1    string // two existing project folders
	p2    string
}

type setup struct {
	http khttp.Config
	app  app.Config
	user domain.GraphData // stored as the user graph before the app starts
}

func newEnv(t *testing.T, opts ...func(*setup)) *env {
	t.Helper()
	s := setup{http: khttp.Config{Version: "test", Storage: "json"}, app: app.DefaultConfig()}
	for _, o := range opts {
		o(&s)
	}
	e := &env{t: t, hub: events.New(), store: memory.New(), clock: clock.NewManual(t0)}
	if !s.user.Empty() {
		g, _ := domain.Restore(domain.UserGraph, s.user, domain.RestoreOptions{})
		if err := e.store.Commit(context.Background(), domain.UserGraph, g, g.Pending()); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []*string{&e.p1, &e.p2} {
		d, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		*p = d
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc, err := app.New(s.app, app.Deps{Graphs: e.store, Sessions: e.store, Clock: e.clock, Events: e.hub, Paths: paths.OS{}, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	s.http.Clock, s.http.Started = e.clock, e.clock.Now()
	e.srv = httptest.NewServer(khttp.NewServer(s.http, svc, hooks.New(svc), e.hub, log))
	e.url = e.srv.URL
	t.Cleanup(func() {
		e.hub.Close()
		e.srv.Close()
		_ = svc.Close(context.Background())
	})
	return e
}

// call sends a REST request and decodes its JSON answer; it fails the test
// unless the status is want.
func (e *env) call(method, path string, body any, want int) map[string]any {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(raw, &out)
	if resp.StatusCode != want {
		e.t.Fatalf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, want, raw)
	}
	return out
}

func (e *env) session(project string) string {
	e.t.Helper()
	return e.call("POST", "/api/sessions/register?project_path="+project, nil, 200)["session_id"].(string)
}

// put writes a node; session may be "" (a REST call without one), project
// names the project for the project level.
func (e *env) put(level, session, project, id string) {
	e.t.Helper()
	e.call("POST", "/api/nodes", map[string]any{"level": level, "session_id": session, "project_path": project,
		"id": id, "gist": "gist of " + id}, 200)
}

// socket is a test client of /ws.
type socket struct {
	t *testing.T
	c *websocket.Conn
}

// dial opens /ws with query q and reads its connected frame.
func (e *env) dial(q string, header ...string) *socket {
	e.t.Helper()
	c, resp, err := e.dialRaw(q, header...)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		e.t.Fatalf("dial /ws?%s: %v (status %d)", q, err, status)
	}
	s := &socket{t: e.t, c: c}
	e.t.Cleanup(func() { _ = c.CloseNow() })
	if f := s.next(); f["type"] != "connected" {
		e.t.Fatalf("first frame = %v, want connected", f)
	}
	return s
}

// dialRaw opens /ws with query q and the given header pairs.
func (e *env) dialRaw(q string, header ...string) (*websocket.Conn, *http.Response, error) {
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	return websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.url, "http")+"/ws?"+q, &websocket.DialOptions{HTTPHeader: h})
}

// next reads one frame as JSON.
func (s *socket) next() map[string]any {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	typ, b, err := s.c.Read(ctx)
	if err != nil {
		s.t.Fatalf("read: %v", err)
	}
	if typ != websocket.MessageText {
		s.t.Fatalf("frame of type %v, want text", typ)
	}
	var f map[string]any
	if err := json.Unmarshal(b, &f); err != nil {
		s.t.Fatalf("frame %q is not JSON: %v", b, err)
	}
	return f
}

// until reads frames until it has had a node_updated of each of the
// marker nodes, and returns the other frames, each as "type:id" (the node,
// the deleted node, or the edge's from).
func (s *socket) until(markers ...string) []string {
	s.t.Helper()
	left := map[string]bool{}
	for _, m := range markers {
		left["node_updated:"+m] = true
	}
	var seen []string
	for len(left) > 0 {
		name := frameName(s.next())
		if left[name] {
			delete(left, name)
			continue
		}
		seen = append(seen, name)
	}
	return seen
}

func frameName(f map[string]any) string {
	id := ""
	switch {
	case f["node"] != nil:
		id, _ = f["node"].(map[string]any)["id"].(string)
	case f["edge"] != nil:
		id, _ = f["edge"].(map[string]any)["from"].(string)
	case f["node_id"] != nil:
		id, _ = f["node_id"].(string)
	case f["from"] != nil:
		id, _ = f["from"].(string)
	}
	return f["type"].(string) + ":" + id
}

// waitFor polls cond until it holds, failing the test after patience.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// storedNode reports whether the committed graph key holds node id.
func (e *env) storedNode(key domain.GraphKey, id string) bool {
	d, err := e.store.Load(context.Background(), key)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, n := range d.Nodes {
		if n.ID == id {
			return true
		}
	}
	return false
}

// jsonDecode reads the JSON body of a refused handshake.
func jsonDecode(resp *http.Response, v any) error {
	return json.NewDecoder(resp.Body).Decode(v)
}
