package rest_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
)

func TestRegisterSessionAndStats(t *testing.T) {
	e := newEnv(t)
	r := e.do("POST", "/api/sessions/register?project_path="+e.proj, nil).ok(t)
	sid, _ := r.body["session_id"].(string)
	if len(sid) != 16 || r.body["start_ts"] != float64(t0.Unix()) || r.body["project_path"] != e.proj {
		t.Errorf("register = %s", r.raw)
	}
	// The project may come in the body too; none at all is a session
	// without a project.
	if r := e.do("POST", "/api/sessions/register", map[string]any{"project_path": e.proj}).ok(t); r.body["project_path"] != e.proj {
		t.Errorf("register with a body = %s", r.raw)
	}
	if r := e.do("POST", "/api/sessions/register", nil).ok(t); r.body["project_path"] != nil {
		t.Errorf("register without a project = %s", r.raw)
	}

	e.put("user", sid, "u", "user node")
	e.put("project", sid, "p", "project node")
	st := e.do("GET", "/api/sessions/"+sid+"/stats", nil).ok(t)
	if st.body["session_id"] != sid || st.body["op_count"] != 2.0 || get(st.body, "graphs", "user", "active") != 1.0 ||
		get(st.body, "graphs", "project", "active") != 1.0 || st.body["project_path"] != e.proj {
		t.Errorf("stats = %s", st.raw)
	}

	e.do("POST", "/api/sessions/register?project_path=rel/p", nil).
		fails(t, http.StatusBadRequest, "invalid", "project_path", "absolute")
	e.do("GET", "/api/sessions/0123456789abcdef/stats", nil).
		fails(t, http.StatusNotFound, "not_found", "session_id", `unknown session "0123456789abcdef"`)
	e.do("GET", "/api/sessions/register", nil).fails(t, http.StatusMethodNotAllowed, "invalid", "method", "GET is not allowed")
}

func TestPutNode(t *testing.T) {
	e := newEnv(t)
	sid := e.session(e.proj)
	r := e.put("project", sid, "auth", "  JWT refresh  ", "notes", []string{"why"}, "touches", []string{"src/auth.py"})
	n := r.body["node"]
	if get(n, "id") != "auth" || get(n, "gist") != "JWT refresh" || get(n, "version") != 1.0 || get(n, "tier") != "active" ||
		get(n, "notes", 0) != "why" || get(n, "touches", 0) != "src/auth.py" || get(n, "seq") == 0.0 ||
		r.body["level"] != "project" || r.body["project"] != e.proj || r.body["compaction"] != nil {
		t.Errorf("put = %s", r.raw)
	}
	// Omitted notes are kept; [] clears.
	r = e.put("project", sid, "auth", "second", "expected_version", 1)
	if get(r.body, "node", "version") != 2.0 || get(r.body, "node", "notes", 0) != "why" {
		t.Errorf("update keeping notes = %s", r.raw)
	}
	r = e.put("project", sid, "auth", "third", "notes", []string{})
	if notes := get(r.body, "node", "notes").([]any); len(notes) != 0 {
		t.Errorf("notes not cleared: %s", r.raw)
	}
	if n, ok := e.stored(domain.ProjectGraph(e.proj), "auth"); !ok || n.Gist != "third" || n.Version.Session != sid {
		t.Errorf("stored = %+v", n)
	}
	// Without a session: a project named by path.
	r = e.do("POST", "/api/nodes", map[string]any{"level": "project", "project_path": e.proj, "id": "x", "gist": "by path"}).ok(t)
	if r.body["project"] != e.proj {
		t.Errorf("put by path = %s", r.raw)
	}
}

func TestPutNodeErrors(t *testing.T) {
	e := newEnv(t)
	sid := e.session(e.proj)
	e.put("user", sid, "n", "v1")
	e.put("user", sid, "n", "v2")
	body := func(kv ...any) map[string]any {
		b := map[string]any{"level": "user", "session_id": sid, "id": "n", "gist": "g"}
		for i := 0; i+1 < len(kv); i += 2 {
			b[kv[i].(string)] = kv[i+1]
		}
		return b
	}
	tests := []struct {
		name                string
		body                any
		status              int
		kind, field, detail string
	}{
		{"gist over its limit", body("gist", strings.Repeat("g", 1001)), 400, "invalid", "gist", "1001 chars, limit 1000"},
		{"two-line gist", body("gist", "a\nb"), 400, "invalid", "gist", "one line"},
		{"bad id", body("id", "a/b"), 400, "invalid", "id", "must start with a letter or digit"},
		{"bad level", body("level", "team"), 400, "invalid", "level", `"team" is not one of user, project`},
		{"no level", body("level", ""), 400, "invalid", "level", "required"},
		{"project without one", map[string]any{"level": "project", "id": "n", "gist": "g"}, 400, "invalid", "project_path", "session_id or project_path"},
		{"too many notes", body("notes", make([]string, 51)), 400, "invalid", "notes", "51 items, limit 50"},
		{"gist not a string", body("gist", 7), 400, "invalid", "gist", "must be a string, not a JSON number"},
		{"notes not a list", body("notes", "why"), 400, "invalid", "notes", "must be a list"},
		{"negative version", body("expected_version", -1), 400, "invalid", "expected_version", "whole number of at least 0"},
		{"not JSON", "{", 400, "invalid", "body", "not valid JSON"},
		{"a list, not an object", "[1]", 400, "invalid", "body", "JSON object"},
		{"two objects", `{"level":"user"} {}`, 400, "invalid", "body", "more than one JSON value"},
		{"a stray brace after the object", `{"level":"user"} }`, 400, "invalid", "body", "text after its object"},
		{"no body", nil, 400, "invalid", "body", "required"},
		{"stale version", body("expected_version", 1), 409, "conflict", "expected_version", "is at version 2, not 1"},
		{"create only, exists", body("expected_version", 0), 409, "conflict", "expected_version", "is at version 2, not 0"},
		{"unknown session", body("session_id", "0123456789abcdef"), 404, "not_found", "session_id", "call kg_read with cwd"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e.do("POST", "/api/nodes", tc.body).fails(t, tc.status, tc.kind, tc.field, tc.detail)
		})
	}
	if n, _ := e.stored(domain.UserGraph, "n"); n.Gist != "v2" || n.Version.V != 2 {
		t.Errorf("a rejected write changed the node: %+v", n)
	}
}

// A deleted node is at version 0 (docs/design/sync.md#tombstones): the
// page's "create" (expected_version 0) re-creates it, continuing the
// version its tombstone kept.
func TestRecreateDeletedNodeWithExpectedVersionZero(t *testing.T) {
	e := newEnv(t)
	sid := e.session(e.proj)
	e.put("user", sid, "n", "v1")
	e.put("user", sid, "n", "v2")
	e.do("DELETE", "/api/nodes/user/n", nil).ok(t)
	create := map[string]any{"level": "user", "id": "n", "gist": "again", "expected_version": 0}
	r := e.do("POST", "/api/nodes", create).ok(t)
	if get(r.body, "node", "version") != 3.0 || get(r.body, "node", "gist") != "again" {
		t.Errorf("re-create = %s", r.raw)
	}
	if n, ok := e.stored(domain.UserGraph, "n"); !ok || n.Version.V != 3 {
		t.Errorf("stored = %+v, %v", n, ok)
	}
	e.do("POST", "/api/nodes", create).fails(t, http.StatusConflict, "conflict", "expected_version", `node "n" is at version 3, not 0`)

	e.do("DELETE", "/api/nodes/user/n", nil).ok(t)
	stale := map[string]any{"level": "user", "id": "n", "gist": "stale", "expected_version": 3}
	e.do("POST", "/api/nodes", stale).fails(t, http.StatusConflict, "conflict", "expected_version",
		`node "n" was deleted (its last version was 3): it is at version 0, not 3`)
	if _, ok := e.stored(domain.UserGraph, "n"); ok {
		t.Error("a stale write re-created the node")
	}
}

func TestBodyNotJSONIs415(t *testing.T) {
	e := newEnv(t)
	sid := e.session("")
	js := `{"level":"user","session_id":"` + sid + `","id":"n","gist":"g"}`
	for _, ct := range []string{"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "json"} {
		t.Run(ct, func(t *testing.T) {
			r := e.do("POST", "/api/nodes", js, "Content-Type", ct)
			r.fails(t, http.StatusUnsupportedMediaType, "invalid", "Content-Type", "must be JSON")
		})
	}
	// JSON by any of its names, or a body with no Content-Type at all.
	for _, ct := range []string{"application/json; charset=utf-8", "application/merge-patch+json", ""} {
		if r := e.do("POST", "/api/nodes", js, "Content-Type", ct); r.status != 200 {
			t.Errorf("%s: %d %s", ct, r.status, r.raw)
		}
	}
	if _, ok := e.stored(domain.UserGraph, "n"); !ok {
		t.Error("the JSON put was not stored")
	}
}

func TestBodyOverOneMiBIs413(t *testing.T) {
	e := newEnv(t)
	sid := e.session("")
	big := `{"level":"user","session_id":"` + sid + `","id":"n","gist":"g","notes":["` + strings.Repeat("x", domain.MaxBodyBytes) + `"]}`
	for _, path := range []string{"/api/nodes", "/api/edges", "/api/sync", "/api/progress", "/api/sessions/register", "/api/compaction/run?level=user"} {
		e.do("POST", path, big).fails(t, http.StatusRequestEntityTooLarge, "invalid", "body", "over the limit of 1048576 bytes")
	}
	if _, ok := e.stored(domain.UserGraph, "n"); ok {
		t.Error("an over-long body was stored")
	}
}

func TestWriteWhileStorageFailsIs503(t *testing.T) {
	e := newEnv(t)
	sid := e.session("")
	e.store.InjectFault(func(op string) error {
		if op == "commit" {
			return errors.New("no space left on device")
		}
		return nil
	})
	e.do("POST", "/api/nodes", map[string]any{"level": "user", "session_id": sid, "id": "n", "gist": "g"}).
		fails(t, http.StatusServiceUnavailable, "unavailable", "", "could not be saved")
	e.store.InjectFault(nil)
	if r := e.do("GET", "/api/graph/read", nil).ok(t); len(get(r.body, "user", "nodes").([]any)) != 0 {
		t.Errorf("the failed write is still in memory: %s", r.raw)
	}
	e.put("user", sid, "n", "g") // and writes work again
}

func TestReadNodeRecalls(t *testing.T) {
	e := newEnv(t, seedTiers())
	sid := e.session("")
	r := e.do("GET", "/api/nodes/user/a?session_id="+sid, nil).ok(t)
	if r.body["was_archived"] != true || r.body["was_tier"] != "archived" || get(r.body, "node", "tier") != "active" ||
		get(r.body, "node", "version") != 3.0 || get(r.body, "node", "notes", 0) != "why a" || get(r.body, "rescued", 0) != "b" {
		t.Errorf("recall = %s", r.raw)
	}
	edges := r.body["edges"].([]any)
	if len(edges) != 2 {
		t.Fatalf("edges = %v", edges)
	}
	out, in := edges[0], edges[1]
	if get(out, "direction") != "out" || get(out, "to") != "b" || get(out, "notes", 0) != "edge note" || get(out, "other_tier") != "archived" {
		t.Errorf("edge out = %v", out)
	}
	if get(in, "direction") != "in" || get(in, "from") != "c" || get(in, "other") != "c" || get(in, "other_tier") != "active" {
		t.Errorf("edge in = %v", in)
	}
	if n, _ := e.stored(domain.UserGraph, "a"); n.Tier != domain.Active {
		t.Errorf("the recall was not saved: %s", n.Tier)
	}
	// An active node: read, no promotion.
	if r := e.do("GET", "/api/nodes/user/c", nil).ok(t); r.body["was_archived"] != false || len(r.body["rescued"].([]any)) != 0 {
		t.Errorf("active read = %s", r.raw)
	}

	e.do("GET", "/api/nodes/user/nope", nil).fails(t, http.StatusNotFound, "not_found", "id", `node "nope" not found in user graph`)
	e.do("GET", "/api/nodes/team/a", nil).fails(t, http.StatusBadRequest, "invalid", "level", `"team" is not one of user, project`)
	e.do("GET", "/api/nodes/project/a", nil).fails(t, http.StatusBadRequest, "invalid", "project_path", "session_id or project_path")
}

func TestDeleteNode(t *testing.T) {
	e := newEnv(t)
	sid := e.session(e.proj)
	e.put("project", sid, "a", "one")
	e.put("project", sid, "b", "two")
	e.do("POST", "/api/edges", map[string]any{"level": "project", "session_id": sid, "from": "a", "to": "b", "rel": "r"}).ok(t)

	r := e.do("DELETE", "/api/nodes/project/a?session_id="+sid, nil).ok(t)
	if r.body["deleted"] != "a" || r.body["level"] != "project" || r.body["edges_deleted"] != 1.0 || r.body["project"] != e.proj {
		t.Errorf("delete = %s", r.raw)
	}
	if _, ok := e.stored(domain.ProjectGraph(e.proj), "a"); ok {
		t.Error("the node is still stored")
	}
	e.do("DELETE", "/api/nodes/project/a?session_id="+sid, nil).
		fails(t, http.StatusNotFound, "not_found", "id", `node "a" not found in project graph`)
	e.do("DELETE", "/api/nodes/user/a?session_id=0123456789abcdef", nil).
		fails(t, http.StatusNotFound, "not_found", "session_id", "unknown session")
}
