package team

// The harness of the multi-instance tests: several kg servers (the app, its
// event hub and the HTTP side, each with a pool of its own) on one
// PostgreSQL database, served on real HTTP by httptest, driven through the
// REST API and the WebSocket as a client would.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/jackc/pgx/v5"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/adapters/events"
	"github.com/kg-memory/kg/adapters/filehash"
	khttp "github.com/kg-memory/kg/adapters/http"
	"github.com/kg-memory/kg/adapters/metrics"
	"github.com/kg-memory/kg/adapters/paths"
	"github.com/kg-memory/kg/adapters/storage/postgres"
	"github.com/kg-memory/kg/adapters/storage/postgres/pgtest"
	"github.com/kg-memory/kg/adapters/transcript"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/app/hooks"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/ports"
)

// TestMain runs the tests on a throwaway cluster (pgtest.Main) and removes
// the binary kgBinary built, which would otherwise stay behind in the
// temporary folder after every run.
func TestMain(m *testing.M) {
	code := pgtest.Main(m)
	if kgPath != "" {
		_ = os.RemoveAll(filepath.Dir(kgPath))
	}
	os.Exit(code)
}

// instance is one kg server of a team.
type instance struct {
	t     testing.TB
	name  string
	store *postgres.Store
	svc   *app.Service
	stats *metrics.Metrics // what it serves at /metrics
	hub   *events.Hub
	srv   *httptest.Server
	url   string // where it serves
	token string // the bearer token its requests carry
	stop  context.CancelFunc
	done  chan struct{}
}

// options tune the instances a test starts.
type options struct {
	lockTimeout time.Duration
	poll        time.Duration
	maintenance time.Duration
	policy      *compaction.Policy // nil: the default
	// loads, when set, counts the graphs the instance's app reads from the
	// database (its repository's Load and LoadAt).
	loads *atomic.Int64
}

// countedLoads is the postgres store, counting the graphs read through it;
// its other methods, and the interfaces they make, are the store's.
type countedLoads struct {
	*postgres.Store
	n *atomic.Int64
}

func (c countedLoads) Load(ctx context.Context, key domain.GraphKey) (domain.GraphData, error) {
	c.n.Add(1)
	return c.Store.Load(ctx, key)
}

func (c countedLoads) LoadAt(ctx context.Context, key domain.GraphKey) (domain.GraphData, uint64, error) {
	c.n.Add(1)
	return c.Store.LoadAt(ctx, key)
}

// team starts n instances on a database of the test's own, whose requests
// carry the token of principal "tester".
func team(t testing.TB, n int, opt options) (string, []*instance) {
	t.Helper()
	url := pgtest.Database(t)
	var out []*instance
	for i := range n {
		out = append(out, start(t, url, fmt.Sprintf("i%d", i), opt))
	}
	token := out[0].newToken("tester", "write")
	for _, in := range out {
		in.token = token
	}
	return url, out
}

// newToken makes a token for principal with scope.
func (in *instance) newToken(principal, scope string) string {
	in.t.Helper()
	token, _, err := in.store.CreateToken(context.Background(), principal, scope)
	if err != nil {
		in.t.Fatalf("create a token for %s: %v", principal, err)
	}
	return token
}

// as returns a copy of in whose requests carry token.
func (in *instance) as(token string) *instance {
	c := *in
	c.token = token
	return &c
}

var quiet = slog.New(slog.DiscardHandler)

// logger is what an instance logs to: nothing, unless KG_TEST_LOG is set.
func logger() *slog.Logger {
	if os.Getenv("KG_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return quiet
}

// start starts one instance on url; it is stopped when the test ends.
func start(t testing.TB, url, name string, opt options) *instance {
	t.Helper()
	ctx := context.Background()
	store, err := postgres.Open(ctx, url, postgres.Options{Logger: logger(), Instance: name,
		LockTimeout: opt.lockTimeout, PollInterval: opt.poll})
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	hub := events.New()
	cfg := app.DefaultConfig()
	if opt.maintenance > 0 {
		cfg.MaintenanceInterval = opt.maintenance
	}
	if opt.policy != nil {
		cfg.Policy = *opt.policy
	}
	var graphs ports.GraphRepository = store
	if opt.loads != nil {
		graphs = countedLoads{Store: store, n: opt.loads}
	}
	stats := metrics.New()
	svc, err := app.Open(ctx, cfg, app.Deps{Graphs: graphs, Sessions: store, Clock: clock.System{}, Events: hub, Metrics: stats,
		Paths: paths.OS{}, ProjectKeys: paths.OS{}, Transcripts: transcript.Home{Dir: os.TempDir()}, Log: logger(),
		Files: filehash.OS{}})
	if err != nil {
		store.Close()
		t.Fatalf("app %s: %v", name, err)
	}
	c := clock.System{}
	h := khttp.NewServer(khttp.Config{Version: "test", Storage: "postgres", Clock: c, Started: c.Now(), Principals: store, Metrics: stats}, svc, hooks.New(svc), hub, logger())
	in := &instance{t: t, name: name, store: store, svc: svc, stats: stats, hub: hub, srv: httptest.NewServer(h), done: make(chan struct{})}
	in.url = in.srv.URL
	rctx, cancel := context.WithCancel(context.Background())
	in.stop = cancel
	go func() {
		defer close(in.done)
		svc.Run(rctx)
	}()
	t.Cleanup(in.close)
	waitListening(t, in)
	return in
}

// waitListening waits until the instance's listener is up, so that a test's
// first write is heard.
func waitListening(t testing.TB, in *instance) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !in.store.Listener().Up {
		if time.Now().After(deadline) {
			t.Fatalf("%s: the listener did not come up", in.name)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (in *instance) close() {
	if in.stop == nil {
		return
	}
	in.stop()
	<-in.done
	in.stop = nil
	in.srv.Close()
	in.hub.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = in.svc.Close(ctx)
	in.store.Close()
}

// call sends a REST request and decodes the JSON answer into out (when not
// nil); it returns the status.
func (in *instance) call(method, path string, body any, out any) int {
	in.t.Helper()
	code, err := in.do(method, path, body, out)
	if err != nil {
		in.t.Errorf("%s %s on %s: %v", method, path, in.name, err)
	}
	return code
}

// do is call without failing the test: a dead server is an error.
func (in *instance) do(method, path string, body any, out any) (int, error) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, in.url+path, r)
	if err != nil {
		return 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if in.token != "" {
		req.Header.Set("Authorization", "Bearer "+in.token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if out != nil && res.StatusCode < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			return res.StatusCode, fmt.Errorf("%v in %s", err, b)
		}
	}
	return res.StatusCode, nil
}

// putNode writes a node through POST /api/nodes and returns the status and
// the stored node.
func (in *instance) putNode(body map[string]any) (int, map[string]any) {
	in.t.Helper()
	var out struct {
		Node map[string]any `json:"node"`
	}
	code := in.call("POST", "/api/nodes", body, &out)
	return code, out.Node
}

// putNodeQuiet is putNode for a server that may be dead: a failed request
// is status 0.
func (in *instance) putNodeQuiet(body map[string]any) (int, map[string]any) {
	var out struct {
		Node map[string]any `json:"node"`
	}
	code, err := in.do("POST", "/api/nodes", body, &out)
	if err != nil {
		return 0, nil
	}
	return code, out.Node
}

// register starts a session bound to project.
func (in *instance) register(project string) string {
	in.t.Helper()
	var out struct {
		SessionID string `json:"session_id"`
	}
	if code := in.call("POST", "/api/sessions/register?project_path="+url.QueryEscape(project), nil, &out); code != 200 {
		in.t.Fatalf("register on %s: %d", in.name, code)
	}
	return out.SessionID
}

// syncResult is the part of POST /api/sync the tests read.
type syncResult map[string]any

func (in *instance) sync(session string) syncResult {
	in.t.Helper()
	var out syncResult
	if code := in.call("POST", "/api/sync", map[string]any{"session_id": session}, &out); code != 200 {
		in.t.Fatalf("sync on %s: %d", in.name, code)
	}
	return out
}

// graph is GET /api/graph/read's project part, nodes by id.
func (in *instance) graph(project string) map[string]map[string]any {
	in.t.Helper()
	var out struct {
		Project struct {
			Nodes []map[string]any `json:"nodes"`
		} `json:"project"`
	}
	if code := in.call("GET", "/api/graph/read?project_path="+url.QueryEscape(project), nil, &out); code != 200 {
		in.t.Fatalf("graph read on %s: %d", in.name, code)
	}
	nodes := map[string]map[string]any{}
	for _, n := range out.Project.Nodes {
		nodes[n["id"].(string)] = n
	}
	return nodes
}

// socket is a /ws client that collects the frames it receives.
type socket struct {
	t      testing.TB
	c      *websocket.Conn
	mu     sync.Mutex
	frames []map[string]any
	at     []time.Time // when each frame arrived
	got    chan struct{}
	ended  chan struct{} // closed when the socket can be read no more
	err    error         // why, once ended is closed
}

// dial opens /ws on in with query q and waits for its first frame.
func (in *instance) dial(q string) *socket {
	in.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(in.url, "http")+"/ws?"+q,
		&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + in.token}}})
	if err != nil {
		in.t.Fatalf("dial /ws on %s: %v", in.name, err)
	}
	c.SetReadLimit(1 << 22)
	s := &socket{t: in.t, c: c, got: make(chan struct{}, 1), ended: make(chan struct{})}
	go s.read()
	in.t.Cleanup(func() { c.CloseNow() })
	s.waitFor(10*time.Second, func(fs []map[string]any) bool { return len(fs) >= 1 })
	return s
}

func (s *socket) read() {
	defer close(s.ended)
	for {
		_, b, err := s.c.Read(context.Background())
		if err != nil {
			s.err = err
			return
		}
		var f map[string]any
		if json.Unmarshal(b, &f) != nil {
			continue
		}
		s.mu.Lock()
		s.frames = append(s.frames, f)
		s.at = append(s.at, time.Now())
		s.mu.Unlock()
		select {
		case s.got <- struct{}{}:
		default:
		}
	}
}

// events returns the event frames received so far (not "connected").
func (s *socket) events() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return eventFrames(s.frames)
}

func eventFrames(frames []map[string]any) []map[string]any {
	var out []map[string]any
	for _, f := range frames {
		if f["type"] != "connected" && f["type"] != "pong" {
			out = append(out, f)
		}
	}
	return out
}

// waitFor waits until done holds of the frames received, at most d; it
// reports whether it did.
func (s *socket) waitFor(d time.Duration, done func([]map[string]any) bool) bool {
	deadline := time.After(d)
	for {
		s.mu.Lock()
		ok := done(s.frames)
		s.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-s.got:
		case <-deadline:
			return false
		}
	}
}

// db connects to the team's database for the statements a test runs
// itself.
func db(t testing.TB, url string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}
