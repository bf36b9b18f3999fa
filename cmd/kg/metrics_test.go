package main

// /metrics of a real server (runServer, the wiring of wire_gen.go, a real
// root on each backend), scraped after real MCP and REST calls: each
// series says exactly what the calls did.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"

	"github.com/kg-memory/kg/adapters/metrics/metricstest"
)

// restJSON sends a REST request and decodes the JSON answer; a status
// other than want fails the test.
func restJSON(t *testing.T, addr, method, path string, body any, want int) map[string]any {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, "http://"+addr+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, want, raw)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: %v: %s", method, path, err, raw)
	}
	return out
}

// moveCounts adds up the moves a tool or REST result reports.
type moveCounts map[string]int

func (m moveCounts) add(moves any) {
	for _, kind := range []string{"archived", "restored", "orphaned", "pruned"} {
		m[kind] += len(strs(field(moves, kind)))
	}
}

// addText counts the moves a tool's text names on its "Compaction:" line,
// "Compaction: archived a, b; orphaned c".
func (m moveCounts) addText(text string) {
	_, line, ok := strings.Cut(text, "\nCompaction: ")
	if !ok {
		return
	}
	line, _, _ = strings.Cut(line, "\n")
	for _, part := range strings.Split(line, "; ") {
		kind, ids, _ := strings.Cut(part, " ")
		m[kind] += len(strings.Split(ids, ", "))
	}
}

// delta is what a series grew by between two scrapes.
func delta(before, after metricstest.Scrape, name string, pairs ...string) float64 {
	return after.Value(name, pairs...) - before.Value(name, pairs...)
}

func TestMetricsCountWhatTheServerDid(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, storage string) {
		root := filepath.Join(t.TempDir(), "root")
		proj := projectDir(t, "shop")
		s := startKG(t, storage, root, tierFlags...)
		url := "http://" + s.Addr + "/metrics"
		start := metricstest.Get(t, url)
		if got := start.Value("kg_compaction_runs_total", "trigger", "load"); got != 1 {
			t.Errorf("%v runs at load after start, want 1 (the user graph)", got)
		}
		if got := start.Value("kg_graphs_loaded"); got != 1 {
			t.Errorf("kg_graphs_loaded = %v at start, want 1", got)
		}

		// MCP: a session, 29 project writes that compact, a user write,
		// a refused write and a read of a missing node.
		sid := s.session(proj)
		moved := moveCounts{}
		for i := 1; i <= 29; i++ {
			moved.addText(s.putNode(sid, "project", fmt.Sprintf("f%02d", i), "g", nil).text)
		}
		moved.addText(s.putNode(sid, "user", "tabs", "Prefer tabs in Go", nil).text)
		s.fails("kg_put_node", map[string]any{"session_id": sid, "level": "nowhere", "id": "x", "gist": "y"}, "level")
		s.fails("kg_read", map[string]any{"session_id": sid, "id": "missing", "level": "user"}, "missing")
		if moved["archived"] == 0 || moved["orphaned"] == 0 {
			t.Fatalf("the writes moved %v; the test needs archives and orphans", moved)
		}

		// REST: a session, writes at once (they share saves), reads of a
		// node that exists and of one that does not, a compaction run.
		restJSON(t, s.Addr, "POST", "/api/sessions/register?project_path="+proj, nil, 200)
		const concurrent = 16
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i := range concurrent {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := restJSON(t, s.Addr, "POST", "/api/nodes", map[string]any{"level": "user", "id": fmt.Sprintf("r%02d", i), "gist": "from REST"}, 200)
				mu.Lock()
				moved.add(r["compaction"])
				mu.Unlock()
			}()
		}
		wg.Wait()
		// A read by id that brings an archived node back is a write too.
		userWrites := 1 + concurrent
		if read := restJSON(t, s.Addr, "GET", "/api/nodes/user/r00", nil, 200); read["was_archived"] == true {
			userWrites++
		}
		restJSON(t, s.Addr, "GET", "/api/nodes/user/nope", nil, 404)
		run := restJSON(t, s.Addr, "POST", "/api/compaction/run?level=project&session_id="+sid, nil, 200)
		moved.add(run)
		runSaved := 0.0 // a run that moved nothing has nothing to save
		if len(strs(run["archived"]))+len(strs(run["restored"]))+len(strs(run["orphaned"])) > 0 {
			runSaved = 1
		}

		ws, _, err := websocket.Dial(t.Context(), "ws://"+s.Addr+"/ws?session_id="+sid, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.CloseNow()
		stats := restJSON(t, s.Addr, "GET", "/api/sessions/"+sid+"/stats", nil, 200)
		health := getHealth(t, s.Addr)
		sc := metricstest.Get(t, url)

		d := func(name string, pairs ...string) float64 { return delta(start, sc, name, pairs...) }
		type check struct {
			name      string
			got, want float64
		}
		checks := []check{
			{"kg_put_node ok calls", d("kg_mcp_tool_call_duration_seconds", "tool", "kg_put_node", "outcome", "ok"), 30},
			{"kg_put_node invalid calls", d("kg_mcp_tool_call_duration_seconds", "tool", "kg_put_node", "outcome", "invalid"), 1},
			{"kg_read ok calls", d("kg_mcp_tool_call_duration_seconds", "tool", "kg_read", "outcome", "ok"), 1},
			{"kg_read not_found calls", d("kg_mcp_tool_call_duration_seconds", "tool", "kg_read", "outcome", "not_found"), 1},
			{"tool calls in all", d("kg_mcp_tool_call_duration_seconds"), 33},
			{"POST /api/nodes", d("kg_http_request_duration_seconds", "method", "POST", "route", "/api/nodes", "status_class", "2xx"), concurrent},
			{"GET a node", d("kg_http_request_duration_seconds", "method", "GET", "route", "/api/nodes/{level}/{id}", "status_class", "2xx"), 1},
			{"GET a missing node", d("kg_http_request_duration_seconds", "method", "GET", "route", "/api/nodes/{level}/{id}", "status_class", "4xx"), 1},
			{"compaction run request", d("kg_http_request_duration_seconds", "route", "/api/compaction/run"), 1},
			// Every project write, and the run, was alone in its batch; the
			// user writes shared saves.
			{"project batches", d("kg_write_batches_total", "level", "project"), 29 + 1},
			{"project batches saved", d("kg_write_batches_total", "level", "project", "outcome", "saved"), 29 + runSaved},
			{"project batch sizes", d("kg_write_batch_writes", "level", "project"), 30},
			{"project writes in batches", sc.Sum("kg_write_batch_writes", "level", "project") - start.Sum("kg_write_batch_writes", "level", "project"), 30},
			{"user writes in batches", sc.Sum("kg_write_batch_writes", "level", "user") - start.Sum("kg_write_batch_writes", "level", "user"), float64(userWrites)},
			{"user batches = batch sizes observed", d("kg_write_batches_total", "level", "user"), d("kg_write_batch_writes", "level", "user")},
			{"user saves = saved user batches", d("kg_save_duration_seconds", "level", "user", "outcome", "ok"), d("kg_write_batches_total", "level", "user", "outcome", "saved")},
			{"failed batches", d("kg_write_batches_total", "outcome", "failed"), 0},
			{"runs on write", d("kg_compaction_runs_total", "trigger", "write"), 30 + concurrent},
			{"runs at load", d("kg_compaction_runs_total", "trigger", "load"), 1},
			{"runs by request", d("kg_compaction_runs_total", "trigger", "manual"), 1},
			{"archived", d("kg_compaction_moves_total", "kind", "archived"), float64(moved["archived"])},
			{"restored", d("kg_compaction_moves_total", "kind", "restored"), float64(moved["restored"])},
			{"orphaned", d("kg_compaction_moves_total", "kind", "orphaned"), float64(moved["orphaned"])},
			{"pruned", d("kg_compaction_moves_total", "kind", "pruned"), float64(moved["pruned"])},
			{"sessions started", d("kg_sessions_started_total"), 2},
			{"sessions active", sc.Value("kg_sessions_active"), health["active_sessions"].(float64)},
			{"graphs loaded", sc.Value("kg_graphs_loaded"), health["loaded_graphs"].(float64)},
			{"websocket clients", sc.Value("kg_websocket_clients"), 1},
		}
		for _, tier := range []string{"active", "archived", "orphaned"} {
			checks = append(checks,
				check{"project " + tier, sc.Value("kg_graph_nodes", "level", "project", "graph", proj, "tier", tier), field(stats, "graphs", "project", tier).(float64)},
				check{"user " + tier, sc.Value("kg_graph_nodes", "level", "user", "graph", "user", "tier", tier), field(stats, "graphs", "user", tier).(float64)})
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
			}
		}
		if n := sc.Value("kg_sessions_active"); n != 2 {
			t.Errorf("kg_sessions_active = %v, want 2", n)
		}

		// The storage's own series, from real files.
		switch storage {
		case "json":
			saves := d("kg_save_duration_seconds", "outcome", "ok")
			if got := d("kg_storage_fsync_duration_seconds", "target", "file"); got < saves {
				t.Errorf("%v file fsyncs for %v saves; each save fsyncs its file", got, saves)
			}
			if sc.Has("kg_bolt_write_seconds_total") {
				t.Error("the json backend exports bolt's write time")
			}
		case "bolt":
			if sc.Value("kg_bolt_write_seconds_total") <= start.Value("kg_bolt_write_seconds_total") {
				t.Error("kg_bolt_write_seconds_total did not grow over 47 commits")
			}
			if sc.Has("kg_storage_fsync_duration_seconds") {
				t.Error("the bolt backend exports the json fsync histogram")
			}
		}
		if sc.Sum("kg_save_duration_seconds") <= 0 {
			t.Error("the saves took no time at all")
		}
	})
}

// TestMetricsTheDocsList scrapes a server on each backend and checks that
// every series docs/operations.md lists is served (those it marks for one
// backend, on that backend only), and that every kg_ series served is
// listed.
func TestMetricsTheDocsList(t *testing.T) {
	t.Parallel()
	listed := documentedSeries(t)
	if len(listed) < 15 {
		t.Fatalf("found %d series in docs/operations.md; the finder is broken", len(listed))
	}
	forEachBackend(t, func(t *testing.T, storage string) {
		s := startKG(t, storage, t.TempDir())
		s.session(projectDir(t, "p"))
		sc := metricstest.Get(t, "http://"+s.Addr+"/metrics")
		for name, only := range listed {
			prefix, wild := strings.CutSuffix(name, "*")
			served := sc.Has(name)
			if wild {
				served = false
				for fam := range sc {
					served = served || strings.HasPrefix(fam, prefix)
				}
			}
			switch {
			case (only == "" || only == storage) && !served:
				t.Errorf("docs/operations.md lists %s, which the %s server does not serve", name, storage)
			case only != "" && only != storage && served:
				t.Errorf("docs/operations.md lists %s for the %s backend only, but the %s server serves it", name, only, storage)
			}
		}
		for fam := range sc {
			if _, ok := listed[fam]; strings.HasPrefix(fam, "kg_") && !ok {
				t.Errorf("the server serves %s, which docs/operations.md does not list", fam)
			}
		}
	})
}

var seriesRow = regexp.MustCompile("^\\| `([a-z_*]+)`(?:, `([a-z_*]+)`)? \\|")

// documentedSeries reads the series table of docs/operations.md: each
// series name, with the backend it is for when its row says "<backend>
// backend only".
func documentedSeries(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	_, section, _ := strings.Cut(string(b), "\n## Metrics\n")
	section, _, _ = strings.Cut(section, "\n## ")
	for _, line := range strings.Split(section, "\n") {
		m := seriesRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		only := ""
		for _, b := range backends() {
			if strings.Contains(line, b.Name+" backend only") {
				only = b.Name
			}
		}
		for _, name := range m[1:] {
			if name != "" {
				out[name] = only
			}
		}
	}
	return out
}
