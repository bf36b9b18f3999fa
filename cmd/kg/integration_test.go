package main

// Integration tests: the server as `kg serve` builds it (runServer and the
// injectors of wire_gen.go, on a real root), driven by mcp-go's Streamable
// HTTP client, on both storage backends. The MCP adapter's own tests run on
// the memory adapter; these prove the same stories survive the real
// storage and a restart. Helpers: integration_helpers_test.go.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// tierFlags give a graph tiers after a few dozen writes: a budget of 200
// tokens (target 160, 12 archived ids) and no grace.
var tierFlags = []string{"--max-tokens", "200", "--grace-days", "0"}

// writeFillers writes n unconnected nodes f01, f02… with the one-letter
// gist "g" (20 tokens each), oldest first. With tierFlags and n = 29 the
// project graph ends, after the run of the 29th write, with f22…f29 active
// (8 × 20 = 160 tokens), f10…f21 archived (12 ids, the archived budget) and
// f01…f09 orphaned: each run archives the oldest actives (connectedness is
// 0 for all, so recency decides), resurrects nothing (every node archived
// before is older than those archived now) and orphans the oldest archived.
func writeFillers(s *kgServer, sid, level string, n int) {
	s.t.Helper()
	for i := 1; i <= n; i++ {
		s.putNode(sid, level, fmt.Sprintf("f%02d", i), "g", nil)
	}
}

// fillerIDs returns "f<from>" … "f<to>".
func fillerIDs(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprintf("f%02d", i))
	}
	return out
}

// snapshot is what a session can read of the server, to compare across a
// restart. Reads by id go only to active nodes, so taking it changes no
// tier.
type snapshot struct {
	full     string
	graph    map[string]any // GET /api/graph/read before any read by id
	byID     map[string]string
	search   string
	progress map[string]string
}

func takeSnapshot(s *kgServer, sid string, activeIDs map[string]string, tasks map[string]string) snapshot {
	s.t.Helper()
	full := s.ok("kg_read", map[string]any{"session_id": sid})
	snap := snapshot{full: full.text, graph: s.graphRead(sid), byID: map[string]string{}, progress: map[string]string{}}
	for id, level := range activeIDs {
		snap.byID[id] = s.ok("kg_read", map[string]any{"session_id": sid, "id": id, "level": level}).text
	}
	snap.search = s.ok("kg_search", map[string]any{"session_id": sid, "query": "g", "limit": 100}).text
	for task, level := range tasks {
		snap.progress[task] = s.ok("kg_progress", map[string]any{"session_id": sid, "task_id": task, "level": level}).text
	}
	return snap
}

// 1. A restart keeps everything: nodes with their notes and touches, edges
// to file paths, a cross-level edge, progress, the session with its
// project binding, and the tiers.
func TestIntegrationRestartKeepsEverything(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, storage string) {
		root := filepath.Join(t.TempDir(), "root")
		proj := projectDir(t, "shop")
		other := projectDir(t, "elsewhere")
		s := startKG(t, storage, root, tierFlags...)
		if h := getHealth(t, s.Addr); h["status"] != "ok" || h["storage"] != storage {
			t.Errorf("/health = %v", h)
		}
		sid := s.session(proj)

		s.putNode(sid, "user", "tabs-over-spaces", "Prefer tabs in Go", map[string]any{"notes": []string{"gofmt decides"}})
		writeFillers(s, sid, "project", 29)
		s.putNode(sid, "project", "auth-flow", "Login goes through the auth middleware", map[string]any{
			"notes": []string{"see ADR 7", "tokens rotate hourly"}, "touches": []string{"src/auth.go", "src/mw.go"}})
		s.putEdge(sid, "project", "auth-flow", "touches", "src/auth.go")
		s.putEdge(sid, "project", "auth-flow", "follows", "tabs-over-spaces") // a user node: cross-level
		s.putEdge(sid, "project", "src/a.go", "imports", "src/b.go")
		s.ok("kg_progress", map[string]any{"session_id": sid, "task_id": "migrate", "state": map[string]any{"step": 3, "done": []string{"a", "b"}}})
		r := s.ok("kg_progress", map[string]any{"session_id": sid, "task_id": "release", "level": "project", "state": map[string]any{"phase": "rc1"}})
		if r.text != `Progress of task "release" saved to project graph` {
			t.Errorf("kg_progress save: %q", r.text)
		}

		active := map[string]string{"auth-flow": "project", "tabs-over-spaces": "user"}
		tasks := map[string]string{"migrate": "user", "release": "project"}
		before := takeSnapshot(s, sid, active, tasks)

		// What the first instance shows, checked line by line.
		mustContain(t, before.full,
			"=== USER GRAPH — 1 active, 0 archived ===\nACTIVE:\n  tabs-over-spaces: Prefer tabs in Go\n",
			"=== PROJECT GRAPH (shop) — ",
			"  auth-flow: Login goes through the auth middleware\n",
			"ARCHIVED (kg_read with id restores one):\n",
			"  auth-flow --follows--> tabs-over-spaces\n",
			"  auth-flow --touches--> src/auth.go\n",
			"  src/a.go --imports--> src/b.go\n",
			"\n\nSession: "+sid)
		mustNotContain(t, before.full, "  f01\n") // the oldest filler is orphaned: invisible
		ps := field(before.graph, "project", "stats")
		if n, _ := field(ps, "archived").(float64); n == 0 {
			t.Errorf("no archived node in the project graph: %v", ps)
		}
		if n, _ := field(ps, "orphaned").(float64); n == 0 {
			t.Errorf("no orphaned node in the project graph: %v", ps)
		}
		if p := field(before.graph, "project", "project"); p != proj {
			t.Errorf("the session's project = %v, want %s", p, proj)
		}
		mustContain(t, before.byID["auth-flow"],
			"=== NODE auth-flow — project graph (shop), active ===\n",
			"gist: Login goes through the auth middleware\n",
			"notes:\n  - see ADR 7\n  - tokens rotate hourly\n",
			"touches:\n  - src/auth.go\n  - src/mw.go\n",
			"version: 1, created ",
			"  auth-flow --follows--> tabs-over-spaces [active, user graph]\n",
			"  auth-flow --touches--> src/auth.go\n")
		mustContain(t, before.search, "  [project shop] f01 (orphaned, ", "  [project shop] f29 (active, ")
		mustContain(t, before.progress["release"], "Progress of task \"release\" (project graph):\n{\n  \"phase\": \"rc1\"\n}")
		mustContain(t, before.progress["migrate"], "Progress of task \"migrate\" (user graph):\n")

		// The session's first sync: its own writes are not reported, only the
		// count of what compaction moved in the meantime
		// (docs/design/sync.md#kg_sync).
		r = s.ok("kg_sync", map[string]any{"session_id": sid})
		for _, g := range []string{"user", "project"} {
			if strings.Contains(r.text, "\n  node ") || strings.Contains(r.text, "\n  edge ") {
				t.Errorf("the session's own writes came back in its %s sync: %s", g, r.text)
			}
		}
		mustContain(t, r.text, "PROJECT GRAPH (shop): 0 nodes and 0 edges updated, 0 nodes and 0 edges deleted\n  compaction: ")

		s = s.restart()
		after := takeSnapshot(s, sid, active, tasks)
		if after.full != before.full {
			t.Errorf("full read changed across the restart:\nbefore:\n%s\nafter:\n%s", before.full, after.full)
		}
		for _, g := range []string{"user", "project"} {
			for _, tier := range []string{"active", "archived", "orphaned"} {
				if b, a := tierIDs(before.graph, g, tier), tierIDs(after.graph, g, tier); !slices.Equal(a, b) {
					t.Errorf("the %s nodes of the %s graph changed across the restart: %v, then %v", tier, g, b, a)
				}
			}
		}
		for id, text := range before.byID {
			if after.byID[id] != text {
				t.Errorf("kg_read id %s changed across the restart:\nbefore:\n%s\nafter:\n%s", id, text, after.byID[id])
			}
		}
		if after.search != before.search {
			t.Errorf("kg_search changed across the restart (tiers?):\nbefore:\n%s\nafter:\n%s", before.search, after.search)
		}
		for task, text := range before.progress {
			if after.progress[task] != text {
				t.Errorf("kg_progress %s changed across the restart: %q, then %q", task, text, after.progress[task])
			}
		}
		pr := s.ok("kg_progress", map[string]any{"session_id": sid, "task_id": "migrate"})
		if st := progressState(t, pr.text); !reflect.DeepEqual(st, map[string]any{"step": 3.0, "done": []any{"a", "b"}}) {
			t.Errorf("user progress after restart: %v", st)
		}

		// The session is the same one, still bound to its project.
		r = s.ok("kg_read", map[string]any{"session_id": sid, "cwd": proj})
		if got := sessionOf(r.text); got != sid {
			t.Errorf("kg_read with the old session and its cwd gave session %q, want %q", got, sid)
		}
		s.fails("kg_read", map[string]any{"session_id": sid, "cwd": other},
			fmt.Sprintf("is another project than the one session %q is bound to (%s)", sid, proj))
		// Its watermarks survived: what its first sync (before the restart)
		// reported is not reported again.
		if r := s.ok("kg_sync", map[string]any{"session_id": sid}); r.text != "No updates from other sessions" {
			t.Errorf("the first sync after the restart: %q, want nothing new", r.text)
		}
		r = s.putNode(sid, "project", "after-restart", "written by the old session", nil)
		if r := s.ok("kg_sync", map[string]any{"session_id": sid}); strings.Contains(r.text, "after-restart") {
			t.Errorf("the session's own write came back in its sync after a restart: %q", r.text)
		}
		r = s.ok("kg_read", map[string]any{"session_id": sid, "id": "after-restart"})
		if !slices.Contains(tierIDs(s.graphRead(sid), "project", "active"), "after-restart") {
			t.Errorf("a write of the old session did not go to its project %s:\n%s", proj, r.text)
		}
	})
}

// 2. Two projects whose folders have the same name stay apart, also after
// a restart; on json, in two folders: projects/api and projects/api-<hash>
// (docs/design/storage.md#folder-lookup).
func TestIntegrationSameFolderNameProjectsStayApart(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, storage string) {
		root := filepath.Join(t.TempDir(), "root")
		base := t.TempDir()
		var pa, pb string
		for _, p := range []*string{&pa, &pb} {
			*p = filepath.Join(base, "x", map[*string]string{&pa: "a", &pb: "b"}[p], "api")
			if err := os.MkdirAll(*p, 0o755); err != nil {
				t.Fatal(err)
			}
			real, err := filepath.EvalSymlinks(*p)
			if err != nil {
				t.Fatal(err)
			}
			*p = real
		}
		s := startKG(t, storage, root)
		sa, sb := s.session(pa), s.session(pb)
		s.putNode(sa, "project", "a-note", "only in project a", nil)
		s.putNode(sb, "project", "b-note", "only in project b", nil)
		s.putEdge(sb, "project", "b-note", "touches", "main.go")

		check := func(s *kgServer) {
			t.Helper()
			for _, c := range []struct {
				sid, proj, mine, theirs string
			}{{sa, pa, "a-note", "b-note"}, {sb, pb, "b-note", "a-note"}} {
				r := s.ok("kg_read", map[string]any{"session_id": c.sid})
				mustContain(t, r.text, "=== PROJECT GRAPH (api) — 1 active, 0 archived ===\nACTIVE:\n  "+c.mine+": ")
				mustNotContain(t, r.text, c.theirs)
				g := s.graphRead(c.sid)
				if got := field(g, "project", "project"); got != c.proj {
					t.Errorf("session %s reads project %v, want %s", c.sid, got, c.proj)
				}
				if got := tierIDs(g, "project", "active"); !slices.Equal(got, []string{c.mine}) {
					t.Errorf("session %s: project active = %v, want [%s]", c.sid, got, c.mine)
				}
				sr := s.ok("kg_search", map[string]any{"session_id": c.sid, "query": "only in project"})
				if got := searchHits(sr.text); !slices.Equal(got, []string{c.mine}) {
					t.Errorf("session %s: kg_search hits %v, want [%s]\n%s", c.sid, got, c.mine, sr.text)
				}
				s.fails("kg_read", map[string]any{"session_id": c.sid, "id": c.theirs},
					`node "`+c.theirs+`" not found in user or project graph`)
			}
		}
		check(s)
		s = s.restart()
		check(s)
		s.stop()

		if storage != "json" {
			return
		}
		sum := sha256.Sum256([]byte(pb))
		dirB := "api-" + hex.EncodeToString(sum[:])[:8]
		entries, err := os.ReadDir(filepath.Join(root, "projects"))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if !slices.Equal(names, []string{"api", dirB}) {
			t.Fatalf("projects/ holds %v, want [api %s]", names, dirB)
		}
		for dir, want := range map[string]struct{ path, node string }{"api": {pa, "a-note"}, dirB: {pb, "b-note"}} {
			g := readJSONFile(t, filepath.Join(root, "projects", dir, "graph.json"))
			if got := field(g, "_meta", "project_path"); got != want.path {
				t.Errorf("projects/%s belongs to %v, want %s", dir, got, want.path)
			}
			nodes, _ := field(g, "nodes").(map[string]any)
			if len(nodes) != 1 || nodes[want.node] == nil {
				t.Errorf("projects/%s holds nodes %v, want only %s", dir, nodes, want.node)
			}
		}
	})
}

// 3. A root written by the replaced server (schema 1) is served as it is:
// its nodes, edges, tiers, progress and an old session; the first writes
// turn its graph files into schema 2, keeping what kg does not know.
func TestIntegrationServesSchema1Root(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "root")
	copyDir(t, filepath.Join("..", "..", "adapters", "storage", "jsonfile", "testdata", "schema1"), root)
	// The fixture's session was last active in May 2024, so it would have
	// expired by any TTL the server accepts (365 days at most): make it
	// recent, and leave everything else as the replaced server wrote it.
	sessions := readJSONFile(t, filepath.Join(root, "sessions.json"))
	old, _ := sessions["a1b2c3d4"].(map[string]any)
	if old == nil {
		t.Fatalf("the fixture has no session a1b2c3d4: %v", sessions)
	}
	old["last_activity"] = float64(time.Now().UnixMicro()) / 1e6
	raw, err := json.Marshal(sessions)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "sessions.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}

	const sid = "a1b2c3d4"
	const projectPath = "/home/dev/api" // the fixture's; not a folder here, so its key is the clean path
	const userRead = "=== USER GRAPH — 1 active, 1 archived ===\n" +
		"ACTIVE:\n  prefers-tabs: User prefers tabs in Go, spaces elsewhere\n" +
		"ARCHIVED (kg_read with id restores one):\n  old-lesson\n" +
		"EDGES:\n  prefers-tabs --refines--> old-lesson\n  ~/.config/editor.toml --configures--> prefers-tabs\n" +
		"HEALTH: "
	const projectRead = "=== PROJECT GRAPH (api) — 1 active, 0 archived ===\nACTIVE:\n  router: chi router in server.go\nHEALTH: "

	s := startKG(t, "json", root)
	r := s.ok("kg_read", map[string]any{"session_id": sid})
	mustContain(t, r.text, userRead, projectRead, "\n\nSession: "+sid)
	mustNotContain(t, r.text, "faded") // orphaned: _orphaned_ts wins over "_archived": false
	if got := field(s.graphRead(sid), "project", "project"); got != projectPath || sessionOf(r.text) != sid {
		t.Errorf("the old session reads project %v as session %q", got, sessionOf(r.text))
	}
	// A new session for the fixture's project path reads the same graph.
	r = s.ok("kg_read", map[string]any{"cwd": projectPath})
	mustContain(t, r.text, projectRead)

	r = s.ok("kg_read", map[string]any{"session_id": sid, "id": "prefers-tabs", "level": "user"})
	mustContain(t, r.text, "=== NODE prefers-tabs — user graph, active ===\n",
		"notes:\n  - gofmt decides for Go\n", "version: 3, created 2024-05-22T17:46:40Z, last written 2024-05-22T17:53:20Z\n",
		"EDGES OUT:\n  prefers-tabs --refines--> old-lesson [archived]\n",
		"EDGES IN:\n  ~/.config/editor.toml --configures--> prefers-tabs\n")
	r = s.ok("kg_search", map[string]any{"session_id": sid, "query": "faded lesson"})
	mustContain(t, r.text, "] faded (orphaned, ", "] old-lesson (archived, ")
	r = s.ok("kg_progress", map[string]any{"session_id": sid, "task_id": "refactor"})
	if st := progressState(t, r.text); !reflect.DeepEqual(st, map[string]any{"step": 2.0, "of": 5.0}) {
		t.Errorf("progress of the fixture: %v (%q)", st, r.text)
	}

	// The first writes: the tombstone's version continues; both files
	// become schema 2.
	r = s.putNode(sid, "user", "gone", "came back", nil)
	if !strings.HasPrefix(r.text, `Node "gone" saved to user graph (v3)`) {
		t.Errorf("re-creating the tombstoned node: %q, want v3", r.text)
	}
	s.putNode(sid, "project", "handler", "HTTP handlers in handlers.go", nil)

	user := readJSONFile(t, filepath.Join(root, "user.json"))
	graph := readJSONFile(t, filepath.Join(root, "projects", "api", "graph.json"))
	for name, g := range map[string]map[string]any{"user.json": user, "projects/api/graph.json": graph} {
		if v := field(g, "_meta", "schema"); v != 2.0 {
			t.Errorf("%s: _meta.schema = %v after a write, want 2", name, v)
		}
		if v, _ := field(g, "_meta", "seq").(float64); v < 1 {
			t.Errorf("%s: _meta.seq = %v after a write", name, field(g, "_meta", "seq"))
		}
	}
	if v := field(user, "_meta", "compaction_stats", "runs"); v != 12.0 {
		t.Errorf("user.json lost the unknown _meta key compaction_stats: %v", field(user, "_meta"))
	}
	if v := field(user, "nodes", "prefers-tabs", "_useful_ts"); v == nil {
		t.Errorf("user.json lost the unknown node field _useful_ts: %v", field(user, "nodes", "prefers-tabs"))
	}
	if v := field(graph, "_meta", "project_path"); v != projectPath {
		t.Errorf("projects/api/graph.json: project_path %v", v)
	}

	// Served again after the rewrite, the old session included.
	s = s.restart()
	r = s.ok("kg_read", map[string]any{"session_id": sid})
	mustContain(t, r.text,
		"=== USER GRAPH — 2 active, 1 archived ===\nACTIVE:\n  prefers-tabs: User prefers tabs in Go, spaces elsewhere\n  gone: came back\n",
		"=== PROJECT GRAPH (api) — 2 active, 0 archived ===\nACTIVE:\n  router: chi router in server.go\n  handler: HTTP handlers in handlers.go\n")
	s.stop()
	sess := readJSONFile(t, filepath.Join(root, "sessions.json"))
	if field(sess, sid, "project_path") != projectPath {
		t.Errorf("sessions.json after shutdown: %v", sess[sid])
	}
	if field(sess, sid, "synced_seq") == nil {
		t.Errorf("sessions.json after shutdown has no synced_seq for %s: %v", sid, sess[sid])
	}
}

// 4. Reading an archived node by id restores it and rescues its orphaned
// neighbour, durably (docs/design/compaction.md#reading-a-node-by-id).
func TestIntegrationPromotionAndChainRescue(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, storage string) {
		root := filepath.Join(t.TempDir(), "root")
		proj := projectDir(t, "tiers")
		s := startKG(t, storage, root, tierFlags...)
		sid := s.session(proj)
		writeFillers(s, sid, "project", 29)

		r := s.ok("kg_read", map[string]any{"session_id": sid})
		mustContain(t, r.text, "=== PROJECT GRAPH (tiers) — 8 active, 12 archived ===\n")
		g := s.graphRead(sid)
		if got := tierIDs(g, "project", "active"); !slices.Equal(got, fillerIDs(22, 29)) {
			t.Errorf("active %v, want f22…f29", got)
		}
		if got := tierIDs(g, "project", "archived"); !slices.Equal(got, fillerIDs(10, 21)) {
			t.Errorf("archived %v, want f10…f21", got)
		}
		if got := tierIDs(g, "project", "orphaned"); !slices.Equal(got, fillerIDs(1, 9)) {
			t.Errorf("orphaned %v, want f01…f09", got)
		}

		// An edge from an archived node to an orphaned one: hidden, free.
		s.putEdge(sid, "project", "f21", "explains", "f01")
		r = s.ok("kg_read", map[string]any{"session_id": sid})
		mustNotContain(t, r.text, "explains")

		r = s.ok("kg_read", map[string]any{"session_id": sid, "id": "f21"})
		mustContain(t, r.text,
			"=== NODE f21 — project graph (tiers), active (was archived; this read restored it) ===\n",
			"version: 2, ",
			"EDGES OUT:\n  f21 --explains--> f01 [archived]\n",
			"RESCUED (orphaned neighbours now archived): f01\n")

		wantActive := fillerIDs(21, 29)
		wantArchived := append([]string{"f01"}, fillerIDs(10, 20)...)
		checkTiers := func(s *kgServer, when string) {
			t.Helper()
			r := s.ok("kg_read", map[string]any{"session_id": sid})
			mustContain(t, r.text,
				"=== PROJECT GRAPH (tiers) — 9 active, 12 archived ===\n",
				"  f21: g\n",
				"ARCHIVED (kg_read with id restores one):\n  f01\n  f10\n",
				"EDGES:\n  f21 --explains--> f01\n")
			g := s.graphRead(sid)
			if got := tierIDs(g, "project", "active"); !slices.Equal(got, wantActive) {
				t.Errorf("%s: active %v, want %v", when, got, wantActive)
			}
			if got := tierIDs(g, "project", "archived"); !slices.Equal(got, wantArchived) {
				t.Errorf("%s: archived %v, want %v", when, got, wantArchived)
			}
			if got := tierIDs(g, "project", "orphaned"); !slices.Equal(got, fillerIDs(2, 9)) {
				t.Errorf("%s: orphaned %v, want f02…f09", when, got)
			}
		}
		checkTiers(s, "after the read")
		s = s.restart()
		checkTiers(s, "after a restart")
		// Read again by id, the node is active and restores nothing.
		r = s.ok("kg_read", map[string]any{"session_id": sid, "id": "f21", "level": "project"})
		mustContain(t, r.text, "=== NODE f21 — project graph (tiers), active ===\n", "version: 2, ")
		mustNotContain(t, r.text, "RESCUED")
	})
}

// 5. The two-session story of docs/design/sync.md#kg_sync on a real
// backend: each session hears of the other's writes and deletions, never of
// its own, and its own writes do not make it miss what the other did before.
func TestIntegrationTwoSessionSync(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, storage string) {
		root := filepath.Join(t.TempDir(), "root")
		proj := projectDir(t, "proj-sync")
		s := startKG(t, storage, root)
		a, b := s.session(proj), s.session(proj)

		if r := s.ok("kg_sync", map[string]any{"session_id": a}); r.text != "No updates from other sessions" {
			t.Errorf("fresh session: %q", r.text)
		}
		s.putNode(b, "project", "n1", "written by B", nil)
		s.putEdge(b, "user", "x", "r", "y")
		s.putNode(a, "project", "n2", "written by A", nil)

		r := s.ok("kg_sync", map[string]any{"session_id": a})
		want := "USER GRAPH: 0 nodes and 1 edge updated, 0 nodes and 0 edges deleted\n  edge x --r--> y\n" +
			"PROJECT GRAPH (proj-sync): 1 node and 0 edges updated, 0 nodes and 0 edges deleted\n  node n1 [active]: written by B"
		if r.text != want {
			t.Errorf("A's sync:\n%s\nwant:\n%s", r.text, want)
		}
		if r := s.ok("kg_sync", map[string]any{"session_id": a}); r.text != "No updates from other sessions" {
			t.Errorf("second sync repeats: %q", r.text)
		}

		r = s.ok("kg_delete_node", map[string]any{"session_id": b, "id": "n1"})
		if r.text != `Node "n1" deleted from project graph, with 0 edges` {
			t.Errorf("kg_delete_node: %q", r.text)
		}
		r = s.ok("kg_delete_edge", map[string]any{"session_id": b, "from": "x", "to": "y", "rel": "r"})
		if r.text != "Edge x --r--> y deleted from user graph" {
			t.Errorf("kg_delete_edge: %q", r.text)
		}
		r = s.ok("kg_sync", map[string]any{"session_id": a})
		want = "USER GRAPH: 0 nodes and 0 edges updated, 0 nodes and 1 edge deleted\n  deleted edge x --r--> y\n" +
			"PROJECT GRAPH (proj-sync): 0 nodes and 0 edges updated, 1 node and 0 edges deleted\n  deleted node n1"
		if r.text != want {
			t.Errorf("A's sync after B's deletions:\n%s\nwant:\n%s", r.text, want)
		}

		// B hears of A's n2 and nothing of its own.
		r = s.ok("kg_sync", map[string]any{"session_id": b})
		want = "PROJECT GRAPH (proj-sync): 1 node and 0 edges updated, 0 nodes and 0 edges deleted\n  node n2 [active]: written by A"
		if r.text != want {
			t.Errorf("B's sync:\n%s\nwant:\n%s", r.text, want)
		}

		// The deletions are durable: after a restart n1 and the edge are
		// gone, n2 is there, and neither session hears anything again.
		s = s.restart()
		r = s.ok("kg_read", map[string]any{"session_id": a})
		mustContain(t, r.text, "ACTIVE:\n  n2: written by A\n")
		mustNotContain(t, r.text, "n1", "x --r--> y")
		for _, sid := range []string{a, b} {
			if r := s.ok("kg_sync", map[string]any{"session_id": sid}); r.text != "No updates from other sessions" {
				t.Errorf("sync of %s after the restart: %q", sid, r.text)
			}
		}
	})
}
