package metrics_test

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/adapters/metrics"
	"github.com/kg-memory/kg/adapters/metrics/metricstest"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/ports"
)

// scrape serves m's handler and parses what it answers.
func scrape(t *testing.T, m *metrics.Metrics) metricstest.Scrape {
	t.Helper()
	srv := httptest.NewServer(m.Handler(slog.New(slog.NewTextHandler(io.Discard, nil))))
	t.Cleanup(srv.Close)
	return metricstest.Get(t, srv.URL)
}

func TestBatches(t *testing.T) {
	m := metrics.New()
	m.BatchCommitted(ports.Batch{Level: domain.LevelUser, Writes: 1, Saved: true, SaveTime: 2 * time.Millisecond})
	m.BatchCommitted(ports.Batch{Level: domain.LevelProject, Writes: 5, Saved: true, SaveTime: 3 * time.Millisecond})
	m.BatchCommitted(ports.Batch{Level: domain.LevelProject, Writes: 2, Saved: true, SaveTime: time.Millisecond, Err: errors.New("disk full")})
	// Every write refused; then one that failed before its save.
	m.BatchCommitted(ports.Batch{Level: domain.LevelProject, Writes: 3})
	m.BatchCommitted(ports.Batch{Level: domain.LevelUser, Writes: 2, Err: errors.New("panic: boom")})
	s := scrape(t, m)

	for _, tc := range []struct {
		name  string
		got   float64
		wantV float64
	}{
		{"user saved", s.Value("kg_write_batches_total", "level", "user", "outcome", "saved"), 1},
		{"project saved", s.Value("kg_write_batches_total", "level", "project", "outcome", "saved"), 1},
		{"project failed", s.Value("kg_write_batches_total", "level", "project", "outcome", "failed"), 1},
		{"project unchanged", s.Value("kg_write_batches_total", "level", "project", "outcome", "unchanged"), 1},
		{"user failed", s.Value("kg_write_batches_total", "level", "user", "outcome", "failed"), 1},
		{"user saves failed", s.Value("kg_save_duration_seconds", "level", "user", "outcome", "error"), 0},
		{"user saves ok", s.Value("kg_save_duration_seconds", "level", "user", "outcome", "ok"), 1},
		{"project batches", s.Value("kg_write_batch_writes", "level", "project"), 3},
		{"project writes", s.Sum("kg_write_batch_writes", "level", "project"), 10},
		{"user writes", s.Sum("kg_write_batch_writes", "level", "user"), 3},
		{"project saves ok", s.Value("kg_save_duration_seconds", "level", "project", "outcome", "ok"), 1},
		{"project saves failed", s.Value("kg_save_duration_seconds", "level", "project", "outcome", "error"), 1},
		{"project save time", s.Sum("kg_save_duration_seconds", "level", "project"), 0.004},
	} {
		if diff := tc.got - tc.wantV; diff > 1e-9 || diff < -1e-9 {
			t.Errorf("%s: %v, want %v", tc.name, tc.got, tc.wantV)
		}
	}
}

func TestCompactionAndSessions(t *testing.T) {
	m := metrics.New()
	m.CompactionRan(ports.CompactionOnWrite)
	m.CompactionRan(ports.CompactionOnWrite)
	m.CompactionRan(ports.CompactionOnLoad)
	m.CompactionRan(ports.CompactionOnRequest)
	m.CompactionRan("future") // a trigger this package does not know yet still counts
	m.NodesMoved(compaction.Moves{Archived: []string{"a", "b"}, Orphaned: []string{"c"}})
	m.NodesMoved(compaction.Moves{Archived: []string{"d"}, Restored: []string{"a"}, Pruned: []string{"c"}})
	m.SessionStarted()
	m.SessionStarted()
	s := scrape(t, m)

	got := map[string]float64{}
	for _, tr := range []string{"write", "load", "maintenance", "manual", "future"} {
		got["runs "+tr] = s.Value("kg_compaction_runs_total", "trigger", tr)
	}
	for _, k := range []string{"archived", "restored", "orphaned", "pruned"} {
		got["moves "+k] = s.Value("kg_compaction_moves_total", "kind", k)
	}
	got["sessions started"] = s.Value("kg_sessions_started_total")
	want := map[string]float64{
		"runs write": 2, "runs load": 1, "runs maintenance": 0, "runs manual": 1, "runs future": 1,
		"moves archived": 3, "moves restored": 1, "moves orphaned": 1, "moves pruned": 1,
		"sessions started": 2,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestState(t *testing.T) {
	m := metrics.New()
	state := metrics.State{Sessions: 3, WebSockets: 2, Graphs: []metrics.GraphState{
		{Key: domain.UserGraph, Stats: domain.Stats{Active: 4, Archived: 1, Edges: 6}},
		{Key: domain.ProjectGraph("/src/shop"), Stats: domain.Stats{Active: 8, Archived: 12, Orphaned: 9, Edges: 2}},
	}}
	if err := m.ReadState(func() metrics.State { return state }); err != nil {
		t.Fatal(err)
	}
	s := scrape(t, m)
	got := map[string]float64{
		"sessions":         s.Value("kg_sessions_active"),
		"sockets":          s.Value("kg_websocket_clients"),
		"graphs":           s.Value("kg_graphs_loaded"),
		"user active":      s.Value("kg_graph_nodes", "level", "user", "graph", "user", "tier", "active"),
		"user archived":    s.Value("kg_graph_nodes", "graph", "user", "tier", "archived"),
		"user orphaned":    s.Value("kg_graph_nodes", "graph", "user", "tier", "orphaned"),
		"user edges":       s.Value("kg_graph_edges", "graph", "user"),
		"shop active":      s.Value("kg_graph_nodes", "level", "project", "graph", "/src/shop", "tier", "active"),
		"shop archived":    s.Value("kg_graph_nodes", "graph", "/src/shop", "tier", "archived"),
		"shop orphaned":    s.Value("kg_graph_nodes", "graph", "/src/shop", "tier", "orphaned"),
		"shop edges":       s.Value("kg_graph_edges", "level", "project", "graph", "/src/shop"),
		"node series":      float64(len(s.Labels("kg_graph_nodes"))),
		"all nodes, tiers": s.Value("kg_graph_nodes"),
	}
	want := map[string]float64{
		"sessions": 3, "sockets": 2, "graphs": 2,
		"user active": 4, "user archived": 1, "user orphaned": 0, "user edges": 6,
		"shop active": 8, "shop archived": 12, "shop orphaned": 9, "shop edges": 2,
		"node series": 6, "all nodes, tiers": 34,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// Read at each scrape: a graph unloaded since has no series left.
	state = metrics.State{Sessions: 1, Graphs: state.Graphs[:1]}
	s = scrape(t, m)
	if s.Value("kg_sessions_active") != 1 || len(s.Labels("kg_graph_nodes")) != 3 || s.Value("kg_graph_nodes", "graph", "/src/shop") != 0 {
		t.Errorf("the second scrape did not read the new state: sessions %v, node series %v",
			s.Value("kg_sessions_active"), s.Labels("kg_graph_nodes"))
	}
	if err := m.ReadState(func() metrics.State { return state }); err == nil {
		t.Error("a second ReadState on the same Metrics was accepted")
	}
}

func TestRequests(t *testing.T) {
	m := metrics.New()
	m.Request(http.MethodGet, "/api/nodes/{level}/{id}", 200, time.Millisecond)
	m.Request(http.MethodGet, "/api/nodes/{level}/{id}", 404, time.Millisecond)
	m.Request(http.MethodGet, "/api/nodes/{level}/{id}", 404, time.Millisecond)
	m.Request(http.MethodDelete, "/api/nodes/{level}/{id}", 204, time.Millisecond)
	m.Request("BREW", "unmatched", 405, time.Millisecond)
	m.Request(http.MethodGet, "/ws", 101, time.Second)
	m.Request(http.MethodPost, "/", 999, time.Millisecond)
	s := scrape(t, m)
	got := map[string]float64{}
	for _, l := range s.Labels("kg_http_request_duration_seconds") {
		got[l["method"]+" "+l["route"]+" "+l["status_class"]] = s.Value("kg_http_request_duration_seconds",
			"method", l["method"], "route", l["route"], "status_class", l["status_class"])
	}
	want := map[string]float64{
		"GET /api/nodes/{level}/{id} 2xx":    1,
		"GET /api/nodes/{level}/{id} 4xx":    2,
		"DELETE /api/nodes/{level}/{id} 2xx": 1,
		"other unmatched 4xx":                1,
		"GET /ws 1xx":                        1,
		"POST / other":                       1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestToolCalls(t *testing.T) {
	m := metrics.New()
	put := m.Tool("kg_put_node")
	read := m.Tool("kg_read")
	put.Observe(metrics.ToolOK, time.Millisecond)
	put.Observe(metrics.ToolOK, time.Millisecond)
	put.Observe(metrics.ToolInvalid, time.Millisecond)
	read.Observe(metrics.ToolNotFound, time.Millisecond)
	read.Observe(metrics.ToolProtocolError, time.Millisecond)
	s := scrape(t, m)
	// Every outcome of a resolved tool has a series from the start.
	if n := len(s.Labels("kg_mcp_tool_call_duration_seconds")); n != 12 {
		t.Errorf("%d tool series, want 2 tools × 6 outcomes", n)
	}
	got := map[string]float64{}
	for _, tool := range []string{"kg_put_node", "kg_read"} {
		for _, o := range []metrics.ToolOutcome{metrics.ToolOK, metrics.ToolInvalid, metrics.ToolNotFound,
			metrics.ToolConflict, metrics.ToolUnavailable, metrics.ToolProtocolError} {
			if v := s.Value("kg_mcp_tool_call_duration_seconds", "tool", tool, "outcome", o.String()); v != 0 {
				got[tool+" "+o.String()] = v
			}
		}
	}
	want := map[string]float64{"kg_put_node ok": 2, "kg_put_node invalid": 1, "kg_read not_found": 1, "kg_read protocol_error": 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestNilRecordsNothing: the HTTP side's handlers built without metrics
// (nil) record nothing and do not fail.
func TestNilRecordsNothing(t *testing.T) {
	var m *metrics.Metrics
	m.Request(http.MethodGet, "/health", 200, time.Millisecond)
	m.Tool("kg_read").Observe(metrics.ToolOK, time.Millisecond)
}

func TestStorageCollectors(t *testing.T) {
	m := metrics.New()
	fsync := metrics.NewFsync()
	var written time.Duration
	if err := m.Register(fsync, metrics.NewBoltWrites(func() time.Duration { return written })); err != nil {
		t.Fatal(err)
	}
	fsync.FileSynced(2 * time.Millisecond)
	fsync.FileSynced(4 * time.Millisecond)
	fsync.DirSynced(time.Millisecond)
	written = 1500 * time.Millisecond
	s := scrape(t, m)
	got := map[string]float64{
		"file syncs":   s.Value("kg_storage_fsync_duration_seconds", "target", "file"),
		"file time":    s.Sum("kg_storage_fsync_duration_seconds", "target", "file"),
		"dir syncs":    s.Value("kg_storage_fsync_duration_seconds", "target", "dir"),
		"bolt written": s.Value("kg_bolt_write_seconds_total"),
	}
	want := map[string]float64{"file syncs": 2, "file time": 0.006, "dir syncs": 1, "bolt written": 1.5}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 })); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestRuntimeCollectors(t *testing.T) {
	s := scrape(t, metrics.New())
	for _, name := range []string{"go_goroutines", "go_memstats_alloc_bytes", "process_cpu_seconds_total", "process_resident_memory_bytes"} {
		if !s.Has(name) {
			t.Errorf("no %s", name)
		}
	}
}

// TestRecordingAllocatesNothing: what the request path and a tool call
// record, once their series exist, costs no allocation.
func TestRecordingAllocatesNothing(t *testing.T) {
	m := metrics.New()
	tool := m.Tool("kg_put_node")
	m.Request(http.MethodPost, "/", 200, time.Millisecond) // resolves the series
	for name, f := range map[string]func(){
		"request": func() { m.Request(http.MethodPost, "/", 200, time.Millisecond) },
		"tool":    func() { tool.Observe(metrics.ToolOK, time.Millisecond) },
		"batch": func() {
			m.BatchCommitted(ports.Batch{Level: domain.LevelProject, Writes: 3, Saved: true, SaveTime: time.Millisecond})
		},
		"run":   func() { m.CompactionRan(ports.CompactionOnWrite) },
		"moves": func() { m.NodesMoved(compaction.Moves{Archived: []string{"a"}}) },
	} {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s: %v allocations per call, want 0", name, n)
		}
	}
}
