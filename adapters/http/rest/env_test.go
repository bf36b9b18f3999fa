package rest_test

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

// env is the whole HTTP side on a loopback port (the real router and
// middleware), over a real app on the memory adapter with a manual clock.
type env struct {
	t     *testing.T
	url   string
	clock *clock.Manual
	store *memory.Store
	svc   *app.Service
	proj  string // an existing absolute project folder
}

// setup is what options change before the server starts.
type setup struct {
	http  khttp.Config
	app   app.Config
	store *memory.Store
}

type option func(*testing.T, *setup)

// withUser stores data as the user graph before the app starts.
func withUser(data domain.GraphData) option {
	return func(t *testing.T, s *setup) {
		t.Helper()
		g, _ := domain.Restore(domain.UserGraph, data, domain.RestoreOptions{})
		if err := s.store.Commit(context.Background(), domain.UserGraph, g, g.Pending()); err != nil {
			t.Fatal(err)
		}
	}
}

func newEnv(t *testing.T, opts ...option) *env {
	t.Helper()
	proj, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, clock: clock.NewManual(t0), store: memory.New(), proj: proj}
	s := setup{http: khttp.Config{Version: "test", Storage: "json"}, app: app.DefaultConfig(), store: e.store}
	for _, o := range opts {
		o(t, &s)
	}
	e.start(s.http, s.app)
	return e
}

// start opens the app on the env's store and serves it.
func (e *env) start(cfg khttp.Config, acfg app.Config) {
	e.t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	hub := events.New()
	svc, err := app.New(acfg, app.Deps{Graphs: e.store, Sessions: e.store, Clock: e.clock, Events: hub, Paths: paths.OS{}, Log: log})
	if err != nil {
		e.t.Fatal(err)
	}
	cfg.Clock, cfg.Started = e.clock, e.clock.Now()
	srv := httptest.NewServer(khttp.NewServer(cfg, svc, hooks.New(svc), hub, log))
	e.t.Cleanup(func() {
		hub.Close()
		srv.Close()
		_ = svc.Close(context.Background())
	})
	e.url, e.svc = srv.URL, svc
}

// reply is a response: status, headers and the body, raw and decoded.
type reply struct {
	status int
	header http.Header
	raw    string
	body   map[string]any
}

// do sends a request; a body that is not a string or []byte is sent as
// JSON with Content-Type application/json.
func (e *env) do(method, path string, body any, header ...string) reply {
	e.t.Helper()
	var rd io.Reader
	ct := ""
	switch b := body.(type) {
	case nil:
	case string:
		rd, ct = strings.NewReader(b), "application/json"
	case []byte:
		rd, ct = bytes.NewReader(b), "application/json"
	default:
		js, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd, ct = bytes.NewReader(js), "application/json"
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
			continue
		}
		if header[i+1] == "" {
			req.Header.Del(header[i])
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode, header: resp.Header, raw: string(raw)}
	_ = json.Unmarshal(raw, &r.body)
	return r
}

// ok fails the test unless the reply is a 200 with a JSON body.
func (r reply) ok(t *testing.T) reply {
	t.Helper()
	if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Fatalf("status %d (%s): %.400s", r.status, r.header.Get("Content-Type"), r.raw)
	}
	return r
}

// fails checks an error reply: its status, kind, field and a part of its
// detail.
func (r reply) fails(t *testing.T, status int, kind, field, detail string) {
	t.Helper()
	if r.status != status || r.body["kind"] != kind || r.body["field"] != field ||
		!strings.Contains(r.body["detail"].(string), detail) {
		t.Errorf("got %d %s, want %d kind %q field %q detail containing %q", r.status, r.raw, status, kind, field, detail)
	}
}

// get returns the value at a path of keys and list indexes in a decoded body.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// session registers a session bound to project (or none).
func (e *env) session(project string) string {
	e.t.Helper()
	r := e.do("POST", "/api/sessions/register?project_path="+project, nil).ok(e.t)
	return r.body["session_id"].(string)
}

// put writes a node through the API.
func (e *env) put(level, sid, id, gist string, extra ...any) reply {
	e.t.Helper()
	b := map[string]any{"level": level, "id": id, "gist": gist, "session_id": sid}
	for i := 0; i+1 < len(extra); i += 2 {
		b[extra[i].(string)] = extra[i+1]
	}
	return e.do("POST", "/api/nodes", b).ok(e.t)
}

// stored returns node id of the committed user or project graph.
func (e *env) stored(key domain.GraphKey, id string) (domain.Node, bool) {
	e.t.Helper()
	d, err := e.store.Load(context.Background(), key)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, n := range d.Nodes {
		if n.ID == id {
			return n, true
		}
	}
	return domain.Node{}, false
}

// storedEdge reports whether the committed graph holds edge k.
func (e *env) storedEdge(key domain.GraphKey, k domain.EdgeKey) bool {
	e.t.Helper()
	d, err := e.store.Load(context.Background(), key)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, ed := range d.Edges {
		if ed.Key() == k {
			return true
		}
	}
	return false
}
