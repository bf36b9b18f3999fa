package mcp

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const (
	projA = "/work/kg-test/proj-a"
	projB = "/work/kg-test/proj-b"
)

func TestReadStartsAndReusesSessions(t *testing.T) {
	e := newEnv(t)
	r := e.ok(t, "kg_read", map[string]any{"cwd": projA, "unknown_extra": 42})
	sid := sessionOf(r.text)
	if len(sid) != 16 {
		t.Errorf("session %q, want 16 hex chars", sid)
	}
	want := "=== USER GRAPH — 0 active, 0 archived ===\n" +
		"HEALTH: 0 nodes, 0 edges, 0 unconnected (0%), avg 0 edges/node, ~0/4000 tokens\n" +
		"=== PROJECT GRAPH (proj-a) — 0 active, 0 archived ===\n" +
		"HEALTH: 0 nodes, 0 edges, 0 unconnected (0%), avg 0 edges/node, ~0/4000 tokens\n" +
		"\nSession: " + sid
	if r.text != want {
		t.Errorf("empty full read:\n%s\nwant:\n%s", r.text, want)
	}

	again := e.ok(t, "kg_read", map[string]any{"session_id": sid})
	if got := sessionOf(again.text); got != sid {
		t.Errorf("reuse gave session %q, want %q", got, sid)
	}
	same := e.ok(t, "kg_read", map[string]any{"session_id": sid, "cwd": projA + "/"})
	if got := sessionOf(same.text); got != sid {
		t.Errorf("same project through cwd gave session %q, want %q", got, sid)
	}

	bound := e.call(t, "kg_read", map[string]any{"session_id": sid, "cwd": projB})
	if !bound.isError || !strings.HasPrefix(bound.text, "Error: cwd: ") || !strings.Contains(bound.text, "another project") {
		t.Errorf("cwd of another project: %+v", bound)
	}
}

func TestErrorsNameTheFieldAndWhatToDo(t *testing.T) {
	e := newEnv(t)
	sid := e.session(t, projA)
	long := strings.Repeat("x", 1001)
	tests := []struct {
		tool string
		args map[string]any
		want string // the whole text, or its prefix when it ends in "…"
	}{
		{"kg_read", map[string]any{}, "Error: cwd: …"},
		{"kg_read", map[string]any{"cwd": "relative/path"}, "Error: cwd: must be an absolute path…"},
		{"kg_read", map[string]any{"session_id": "3fa29c0d1e7b4a55"}, `Error: unknown session "3fa29c0d1e7b4a55"; call kg_read with cwd to start one`},
		{"kg_read", map[string]any{"session_id": sid, "id": "nope"}, `Error: node "nope" not found in user or project graph`},
		{"kg_read", map[string]any{"session_id": sid, "level": "bogus"}, `Error: level: "bogus" is not one of user, project`},
		{"kg_read", map[string]any{"session_id": sid, "ids": "a"}, "Error: ids: must be a list of strings"},
		{"kg_search", map[string]any{}, "Error: query: is required"},
		{"kg_search", map[string]any{"query": "x", "limit": 101}, "Error: limit: 101 is not between 1 and 100"},
		{"kg_search", map[string]any{"query": "x", "limit": 2.5}, "Error: limit: must be a whole number"},
		{"kg_put_node", map[string]any{"level": "user", "id": "a", "gist": "g"}, "Error: session_id: is required"},
		{"kg_put_node", map[string]any{"session_id": sid, "id": "a", "gist": "g"}, "Error: level: is required: user or project"},
		{"kg_put_node", map[string]any{"session_id": sid, "level": "bogus", "id": "a", "gist": "g"}, `Error: level: "bogus" is not one of user, project`},
		{"kg_put_node", map[string]any{"session_id": sid, "level": "user", "gist": "g"}, "Error: id: is required"},
		{"kg_put_node", map[string]any{"session_id": sid, "level": "user", "id": "a/b", "gist": "g"}, `Error: id: "a/b" must start…`},
		{"kg_put_node", map[string]any{"session_id": sid, "level": "user", "id": "a", "gist": long}, "Error: gist: 1001 chars, limit 1000"},
		{"kg_put_node", map[string]any{"session_id": sid, "level": "user", "id": "a", "gist": "two\nlines"}, "Error: gist: must be one line; put details in notes"},
		{"kg_put_node", map[string]any{"session_id": sid, "level": "user", "id": "a", "gist": "g", "notes": "n"}, "Error: notes: must be a list of strings"},
		{"kg_put_node", map[string]any{"session_id": sid, "level": "user", "id": "a", "gist": "g", "expected_version": -1}, "Error: expected_version: -1 is negative…"},
		{"kg_put_node", map[string]any{"session_id": sid, "level": "user", "id": "a", "gist": "g", "expected_version": 3}, `Error: expected_version: node "a" is at version 0, not 3; read it and retry`},
		{"kg_put_node", map[string]any{"session_id": "ffffffffffffffff", "level": "user", "id": "a", "gist": "g"}, `Error: …unknown session "ffffffffffffffff"…`},
		{"kg_put_edge", map[string]any{"session_id": sid, "level": "user", "from": "a", "to": "b"}, "Error: rel: is required"},
		{"kg_put_edge", map[string]any{"session_id": sid, "level": "user", "from": "a", "to": "b", "rel": "has space"}, `Error: rel: "has space" must start…`},
		{"kg_delete_node", map[string]any{"session_id": sid, "id": "ghost"}, `Error: node "ghost" not found in user or project graph`},
		{"kg_delete_edge", map[string]any{"session_id": sid, "from": "a", "rel": "r"}, "Error: to: is required"},
		{"kg_sync", map[string]any{}, "Error: session_id: is required"},
		{"kg_progress", map[string]any{"session_id": sid}, "Error: task_id: is required"},
		{"kg_progress", map[string]any{"session_id": sid, "task_id": "t", "state": []any{1}}, "Error: state: must be a JSON object"},
		{"kg_progress", map[string]any{"session_id": sid, "task_id": "t", "state": map[string]any{"big": strings.Repeat("x", 70_000)}}, "Error: state: …limit 65536"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s %v", tc.tool, keys(tc.args)), func(t *testing.T) {
			r := e.call(t, tc.tool, tc.args)
			if !r.isError {
				t.Fatalf("want an error, got: %s", r.text)
			}
			if strings.Contains(r.text, "\n") {
				t.Errorf("error is not one line: %q", r.text)
			}
			if !matches(r.text, tc.want) {
				t.Errorf("error %q, want %q", r.text, tc.want)
			}
		})
	}
}

// matches compares text with a pattern in which "…" stands for any run of
// characters.
func matches(text, pattern string) bool {
	parts := strings.Split(pattern, "…")
	if !strings.HasPrefix(text, parts[0]) {
		return false
	}
	text = text[len(parts[0]):]
	for i, p := range parts[1:] {
		last := i == len(parts)-2
		j := strings.Index(text, p)
		if j < 0 || (last && p != "" && !strings.HasSuffix(text, p)) {
			return false
		}
		text = text[j+len(p):]
	}
	return len(parts) > 1 || text == ""
}

func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func TestPutNodeNotesAndTouches(t *testing.T) {
	e := newEnv(t)
	sid := e.session(t, projA)
	put := func(args map[string]any) result {
		args["session_id"], args["level"], args["id"] = sid, "project", "n1"
		return e.ok(t, "kg_put_node", args)
	}
	r := put(map[string]any{"gist": "first", "notes": []any{"why"}, "touches": []any{"src/a.go"}})
	if r.text != `Node "n1" saved to project graph (v1)` {
		t.Errorf("text %q", r.text)
	}
	// The node as a read by id shows it: the graph, gist, notes, touches
	// and version.
	node := func() string {
		text := e.ok(t, "kg_read", map[string]any{"session_id": sid, "id": "n1"}).text
		head, _, _ := strings.Cut(text, "\nuse: ")
		return head
	}
	if n := node(); !strings.HasPrefix(n, "=== NODE n1 — project graph (proj-a), active ===\ngist: first\nnotes:\n  - why\ntouches:\n  - src/a.go\nversion: 1, ") {
		t.Errorf("after the first put:\n%s", n)
	}

	put(map[string]any{"gist": "second"}) // notes and touches omitted: kept
	if n := node(); !strings.Contains(n, "gist: second\nnotes:\n  - why\ntouches:\n  - src/a.go\nversion: 2, ") {
		t.Errorf("after omitting notes and touches:\n%s", n)
	}
	put(map[string]any{"gist": "third", "notes": nil}) // null is omitted too
	if n := node(); !strings.Contains(n, "gist: third\nnotes:\n  - why\n") {
		t.Errorf("null notes cleared them:\n%s", n)
	}
	put(map[string]any{"gist": "fourth", "notes": []any{}, "touches": []any{}}) // empty lists clear
	if n := node(); !strings.Contains(n, "gist: fourth\nversion: 4, ") {
		t.Errorf("empty lists did not clear:\n%s", n)
	}

	r = put(map[string]any{"gist": "fifth", "expected_version": 4})
	if r.text != `Node "n1" saved to project graph (v5)` {
		t.Errorf("with the right expected_version: %q", r.text)
	}
	c := e.call(t, "kg_put_node", map[string]any{"session_id": sid, "level": "project", "id": "n1", "gist": "x", "expected_version": 4})
	if !c.isError || c.text != `Error: expected_version: node "n1" is at version 5, not 4; read it and retry` {
		t.Errorf("conflict: %+v", c)
	}
	// Some clients send numbers as strings.
	if r := put(map[string]any{"gist": "sixth", "expected_version": "5"}); r.text != `Node "n1" saved to project graph (v6)` {
		t.Errorf("expected_version as a string: %q", r.text)
	}

	// A deleted node is at version 0: "create only" re-creates it, and its
	// version continues from the tombstone's; the old version is stale.
	e.ok(t, "kg_delete_node", map[string]any{"session_id": sid, "level": "project", "id": "n1"})
	c = e.call(t, "kg_put_node", map[string]any{"session_id": sid, "level": "project", "id": "n1", "gist": "x", "expected_version": 6})
	if !c.isError || c.text != `Error: expected_version: node "n1" was deleted (its last version was 6): it is at version 0, not 6; send 0 to re-create it` {
		t.Errorf("the version of the deleted node: %+v", c)
	}
	if r := put(map[string]any{"gist": "reborn", "expected_version": 0}); r.text != `Node "n1" saved to project graph (v7)` {
		t.Errorf("re-creating with expected_version 0: %q", r.text)
	}
	c = e.call(t, "kg_put_node", map[string]any{"session_id": sid, "level": "project", "id": "n1", "gist": "x", "expected_version": 0})
	if !c.isError || c.text != `Error: expected_version: node "n1" is at version 7, not 0; read it and retry` {
		t.Errorf("create only, once re-created: %+v", c)
	}
}

func TestFullReadAndReadByID(t *testing.T) {
	e := newEnv(t)
	sid := e.session(t, projA)
	e.ok(t, "kg_put_node", map[string]any{"session_id": sid, "level": "user", "id": "auth-token-refresh",
		"gist": "JWT refresh uses sliding window", "notes": []any{"silent failure if expired"}, "touches": []any{"src/auth/refresh.py"}})
	e.clock.Advance(time.Second)
	e.ok(t, "kg_put_node", map[string]any{"session_id": sid, "level": "user", "id": "session-handler", "gist": "owns the cookie"})
	e.ok(t, "kg_put_node", map[string]any{"session_id": sid, "level": "project", "id": "build", "gist": "make all"})
	r := e.ok(t, "kg_put_edge", map[string]any{"session_id": sid, "level": "user", "from": "auth-token-refresh",
		"to": "session-handler", "rel": "requires-init", "notes": []any{"order matters"}})
	if r.text != "Edge auth-token-refresh --requires-init--> session-handler saved to user graph" {
		t.Errorf("put edge text %q", r.text)
	}
	e.ok(t, "kg_put_edge", map[string]any{"session_id": sid, "level": "user", "from": "auth-token-refresh",
		"to": "src/auth/refresh.py", "rel": "touches"})

	full := e.ok(t, "kg_read", map[string]any{"session_id": sid})
	want := "=== USER GRAPH — 2 active, 0 archived ===\n" +
		"ACTIVE:\n" +
		"  auth-token-refresh: JWT refresh uses sliding window\n" +
		"  session-handler: owns the cookie\n" +
		"EDGES:\n" +
		"  auth-token-refresh --requires-init--> session-handler (+1 note)\n" +
		"  auth-token-refresh --touches--> src/auth/refresh.py\n"
	if !strings.HasPrefix(full.text, want) {
		t.Errorf("full read:\n%s\nwant it to start with:\n%s", full.text, want)
	}
	mustContain(t, full.text, "=== PROJECT GRAPH (proj-a) — 1 active, 0 archived ===\nACTIVE:\n  build: make all\n", "\n\nSession: "+sid)
	mustNotContain(t, full.text, "order matters")

	byID := e.ok(t, "kg_read", map[string]any{"session_id": sid, "id": "auth-token-refresh"})
	mustContain(t, byID.text,
		"=== NODE auth-token-refresh — user graph, active ===",
		"gist: JWT refresh uses sliding window",
		"notes:\n  - silent failure if expired",
		"touches:\n  - src/auth/refresh.py",
		"version: 1, created 2025-03-01T12:00:00Z, last written 2025-03-01T12:00:00Z",
		"EDGES OUT:\n  auth-token-refresh --requires-init--> session-handler [active]\n    - order matters\n  auth-token-refresh --touches--> src/auth/refresh.py\n",
	)
	in := e.ok(t, "kg_read", map[string]any{"session_id": sid, "id": "session-handler"})
	mustContain(t, in.text, "EDGES IN:\n  auth-token-refresh --requires-init--> session-handler [active]\n    - order matters\n")
	mustNotContain(t, byID.text, "(was ", "restored")

	// One id in both graphs: both nodes, user first, each with its level.
	e.ok(t, "kg_put_node", map[string]any{"session_id": sid, "level": "project", "id": "session-handler", "gist": "project copy"})
	both := e.ok(t, "kg_read", map[string]any{"session_id": sid, "ids": []any{"session-handler"}})
	u := strings.Index(both.text, "=== NODE session-handler — user graph")
	p := strings.Index(both.text, "=== NODE session-handler — project graph (proj-a)")
	if u < 0 || p < u {
		t.Errorf("an id in both graphs:\n%s", both.text)
	}
	only := e.ok(t, "kg_read", map[string]any{"session_id": sid, "id": "session-handler", "level": "project"})
	if strings.Count(only.text, "=== NODE ") != 1 || !strings.HasPrefix(only.text, "=== NODE session-handler — project graph (proj-a), active ===") {
		t.Errorf("level restricts the lookup:\n%s", only.text)
	}
}

func TestSearch(t *testing.T) {
	e := newEnv(t)
	sid := e.session(t, projA)
	e.ok(t, "kg_put_node", map[string]any{"session_id": sid, "level": "user", "id": "auth-tokens", "gist": "refresh tokens slide", "notes": []any{"see rfc"}})
	e.ok(t, "kg_put_node", map[string]any{"session_id": sid, "level": "project", "id": "deploy", "gist": "tokens rotate on deploy"})

	r := e.ok(t, "kg_search", map[string]any{"query": "tokens", "session_id": sid})
	mustContain(t, r.text, `2 nodes found for "tokens"`, "[user] auth-tokens (active, score ", "): refresh tokens slide\n    - see rfc", "[project proj-a] deploy (active, score ")
	if hits := hitIDs(r.text); !cmp.Equal(hits, []string{"auth-tokens", "deploy"}) && !cmp.Equal(hits, []string{"deploy", "auth-tokens"}) {
		t.Fatalf("hits %v:\n%s", hits, r.text)
	}
	if !regexp.MustCompile(`\(active, score \d+\.\d{4}, matched tokens\)`).MatchString(r.text) {
		t.Errorf("no score with 4 decimals in:\n%s", r.text)
	}
	one := e.ok(t, "kg_search", map[string]any{"query": "tokens", "session_id": sid, "limit": 1, "level": "project"})
	if hits := hitIDs(one.text); !cmp.Equal(hits, []string{"deploy"}) {
		t.Errorf("level and limit: %v\n%s", hits, one.text)
	}
	none := e.ok(t, "kg_search", map[string]any{"query": "zebra"})
	if none.text != `No nodes match "zebra"` {
		t.Errorf("no hits: %q", none.text)
	}
}

// TestSearchCorrectionsAndMatched: each hit says which terms matched it,
// a term that matches nothing is corrected and the result says so, and
// with no hits the nearest spelling is given (docs/design/mcp.md#kg_search).
// hitIDs are the ids of the hits a kg_search text lists, in its order:
// each hit is a line "  [where] id (tier, score …".
func hitIDs(text string) []string {
	var ids []string
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, "  ["); ok {
			_, hit, _ := strings.Cut(rest, "] ")
			id, _, _ := strings.Cut(hit, " ")
			ids = append(ids, id)
		}
	}
	return ids
}

func TestSearchCorrectionsAndMatched(t *testing.T) {
	e := newEnv(t)
	sid := e.session(t, projA)
	e.ok(t, "kg_put_node", map[string]any{"session_id": sid, "level": "project", "id": "login-flow", "gist": "the login flow calls authentication twice"})
	e.ok(t, "kg_put_node", map[string]any{"session_id": sid, "level": "project", "id": "token-store", "gist": "tokens live here", "touches": []any{"src/auth/tokenRefresh.ts"}})

	r := e.ok(t, "kg_search", map[string]any{"query": "authentcation flow", "session_id": sid})
	mustContain(t, r.text, `No exact match for "authentcation"; showing "authentication"`, "matched authentication flow): the login flow")
	if strings.Count(r.text, "No exact match") != 1 || !cmp.Equal(hitIDs(r.text), []string{"login-flow"}) {
		t.Errorf("one correction and one hit:\n%s", r.text)
	}
	ref := e.ok(t, "kg_search", map[string]any{"query": "refresh", "session_id": sid})
	if hits := hitIDs(ref.text); !cmp.Equal(hits, []string{"token-store"}) {
		t.Errorf("refresh in a touched path: %v\n%s", hits, ref.text)
	}
	mustNotContain(t, ref.text, "No exact match")
	none := e.ok(t, "kg_search", map[string]any{"query": "lgin", "session_id": sid})
	if none.text != "No nodes match \"lgin\"\nNearest spelling of \"lgin\" in memory: \"login\"" {
		t.Errorf("no hits: %q", none.text)
	}
	bad := e.call(t, "kg_search", map[string]any{"query": "?!", "session_id": sid})
	if !bad.isError || !strings.Contains(bad.text, "query") {
		t.Errorf("a query of punctuation: %+v", bad)
	}
}

func TestDeletes(t *testing.T) {
	e := newEnv(t)
	sid := e.session(t, projA)
	for _, lvl := range []string{"user", "project"} {
		e.ok(t, "kg_put_node", map[string]any{"session_id": sid, "level": lvl, "id": "dup", "gist": lvl})
	}
	e.ok(t, "kg_put_node", map[string]any{"session_id": sid, "level": "user", "id": "a", "gist": "a"})
	e.ok(t, "kg_put_edge", map[string]any{"session_id": sid, "level": "user", "from": "a", "to": "b", "rel": "r"})

	amb := e.call(t, "kg_delete_node", map[string]any{"session_id": sid, "id": "dup"})
	if !amb.isError || !strings.Contains(amb.text, "level") {
		t.Errorf("a node in both graphs without level: %+v", amb)
	}
	r := e.ok(t, "kg_delete_node", map[string]any{"session_id": sid, "id": "dup", "level": "project"})
	if r.text != `Node "dup" deleted from project graph, with 0 edges` {
		t.Errorf("delete node: %q", r.text)
	}
	r = e.ok(t, "kg_delete_node", map[string]any{"session_id": sid, "id": "a"})
	if r.text != `Node "a" deleted from user graph, with 1 edge` {
		t.Errorf("delete node with its edge: %q", r.text)
	}
	e.ok(t, "kg_put_edge", map[string]any{"session_id": sid, "level": "project", "from": "x", "to": "y", "rel": "r"})
	r = e.ok(t, "kg_delete_edge", map[string]any{"session_id": sid, "from": "x", "to": "y", "rel": "r"})
	if r.text != "Edge x --r--> y deleted from project graph" {
		t.Errorf("delete edge: %q", r.text)
	}
	r = e.ok(t, "kg_delete_edge", map[string]any{"session_id": sid, "from": "x", "to": "y", "rel": "r", "level": "project"})
	if r.text != "Edge not found: x --r--> y" {
		t.Errorf("missing edge: %q", r.text)
	}
}

func TestProgress(t *testing.T) {
	e := newEnv(t)
	sid := e.session(t, projA)
	r := e.ok(t, "kg_progress", map[string]any{"session_id": sid, "task_id": "t1"})
	if r.text != `No progress found for task "t1"` {
		t.Errorf("none yet: %q", r.text)
	}
	r = e.ok(t, "kg_progress", map[string]any{"session_id": sid, "task_id": "t1", "state": map[string]any{"step": 3, "big": 12345678901234567}})
	if r.text != `Progress of task "t1" saved to user graph` {
		t.Errorf("save: %q", r.text)
	}
	r = e.ok(t, "kg_progress", map[string]any{"session_id": sid, "task_id": "t1"})
	mustContain(t, r.text, `Progress of task "t1" (user graph):`, `"step": 3`, `"big": 12345678901234567`)
	// Project level is its own graph.
	r = e.ok(t, "kg_progress", map[string]any{"session_id": sid, "task_id": "t1", "level": "project"})
	if r.text != `No progress found for task "t1"` {
		t.Errorf("project level found the user state: %q", r.text)
	}
	e.ok(t, "kg_progress", map[string]any{"session_id": sid, "task_id": "t1", "level": "project", "state": map[string]any{"p": true}})
	r = e.ok(t, "kg_progress", map[string]any{"session_id": sid, "task_id": "t1", "level": "project"})
	mustContain(t, r.text, `(project graph):`, `"p": true`)
}
