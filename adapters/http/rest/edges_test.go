package rest_test

import (
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
)

func TestPutEdge(t *testing.T) {
	e := newEnv(t)
	sid := e.session("")
	r := e.do("POST", "/api/edges", map[string]any{"level": "user", "session_id": sid, "from": "auth",
		"to": "src/auth/refresh.py", "rel": "touches", "notes": []string{"the refresh path"}}).ok(t)
	ed := r.body["edge"]
	if get(ed, "from") != "auth" || get(ed, "to") != "src/auth/refresh.py" || get(ed, "notes", 0) != "the refresh path" ||
		get(ed, "version") != 1.0 || r.body["level"] != "user" || r.body["project"] != nil {
		t.Errorf("put edge = %s", r.raw)
	}
	tests := []struct {
		name, field, detail string
		body                map[string]any
	}{
		{"bad rel", "rel", "must start with", map[string]any{"from": "a", "to": "b", "rel": "has space"}},
		{"no to", "to", "must not be empty", map[string]any{"from": "a", "rel": "r"}},
		{"end with a newline", "from", "control characters", map[string]any{"from": "src/a\n.go", "to": "b", "rel": "r"}},
		{"long rel", "rel", "65 chars, limit 64", map[string]any{"from": "a", "to": "b", "rel": strings.Repeat("r", 65)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.body["level"], tc.body["session_id"] = "user", sid
			e.do("POST", "/api/edges", tc.body).fails(t, http.StatusBadRequest, "invalid", tc.field, tc.detail)
		})
	}
}

func TestDeleteEdgeEndsWithSlashes(t *testing.T) {
	e := newEnv(t)
	sid := e.session(e.proj)
	edges := []domain.EdgeKey{
		{From: "auth", To: "src/auth/refresh.py", Rel: "touches"},
		{From: "auth", To: "https://x/y", Rel: "cites"},
		{From: "src/a b/c.go", To: "50%/done?x=1#y", Rel: "odd"},
	}
	put := func() {
		for _, k := range edges {
			e.do("POST", "/api/edges", map[string]any{"level": "project", "session_id": sid, "from": k.From, "to": k.To, "rel": k.Rel}).ok(t)
		}
	}
	key := domain.ProjectGraph(e.proj)

	t.Run("path form", func(t *testing.T) {
		put()
		for _, k := range edges {
			path := "/api/edges/project/" + url.PathEscape(k.From) + "/" + url.PathEscape(k.To) + "/" + k.Rel + "?session_id=" + sid
			r := e.do("DELETE", path, nil).ok(t)
			if r.body["deleted"] != true || r.body["level"] != "project" || r.body["to"] != k.To || r.body["from"] != k.From {
				t.Errorf("%s: %s", path, r.raw)
			}
			if e.storedEdge(key, k) {
				t.Errorf("%s is still stored", k)
			}
		}
	})
	t.Run("query form", func(t *testing.T) {
		put()
		for _, k := range edges {
			q := url.Values{"level": {"project"}, "session_id": {sid}, "from": {k.From}, "to": {k.To}, "rel": {k.Rel}}
			r := e.do("DELETE", "/api/edges?"+q.Encode(), nil).ok(t)
			if r.body["deleted"] != true {
				t.Errorf("%s: %s", k, r.raw)
			}
			if e.storedEdge(key, k) {
				t.Errorf("%s is still stored", k)
			}
		}
	})
	t.Run("without a level, the graph that holds it", func(t *testing.T) {
		put()
		q := url.Values{"session_id": {sid}, "from": {"auth"}, "to": {"https://x/y"}, "rel": {"cites"}}
		if r := e.do("DELETE", "/api/edges?"+q.Encode(), nil).ok(t); r.body["deleted"] != true || r.body["level"] != "project" {
			t.Errorf("%s", r.raw)
		}
	})
	t.Run("missing edge is not an error", func(t *testing.T) {
		q := url.Values{"session_id": {sid}, "from": {"no"}, "to": {"such"}, "rel": {"edge"}}
		if r := e.do("DELETE", "/api/edges?"+q.Encode(), nil).ok(t); r.body["deleted"] != false || r.body["level"] != nil {
			t.Errorf("%s", r.raw)
		}
		if r := e.do("DELETE", "/api/edges/user/no/such/edge", nil).ok(t); r.body["deleted"] != false || r.body["level"] != "user" {
			t.Errorf("%s", r.raw)
		}
	})
	t.Run("errors", func(t *testing.T) {
		e.do("DELETE", "/api/edges?level=user&to=b&rel=r", nil).fails(t, http.StatusBadRequest, "invalid", "from", "required")
		e.do("DELETE", "/api/edges/team/a/b/r", nil).fails(t, http.StatusBadRequest, "invalid", "level", "not one of user, project")
		e.do("DELETE", "/api/edges/project/a/b/r?session_id=0123456789abcdef", nil).fails(t, http.StatusNotFound, "not_found", "session_id", "unknown session")
	})
}

func TestSearch(t *testing.T) {
	e := newEnv(t, seedTiers())
	sid := e.session(e.proj)
	e.put("project", sid, "jwt-refresh", "JWT refresh uses a sliding window", "notes", []string{"silent failure if expired"})
	r := e.do("GET", "/api/search?q=refresh+window&session_id="+sid, nil).ok(t)
	if r.body["query"] != "refresh window" || get(r.body, "hits", 0, "id") != "jwt-refresh" || get(r.body, "hits", 0, "level") != "project" ||
		get(r.body, "hits", 0, "project") != e.proj || get(r.body, "hits", 0, "notes", 0) != "silent failure if expired" {
		t.Errorf("search = %s", r.raw)
	}
	if m := get(r.body, "hits", 0, "matched"); !reflect.DeepEqual(m, []any{"refresh", "window"}) {
		t.Errorf("matched = %v", m)
	}
	if _, ok := r.body["corrections"]; ok {
		t.Errorf("corrections without one: %s", r.raw)
	}
	// A typo is corrected, and the result says so.
	r = e.do("GET", "/api/search?q=slidng&session_id="+sid, nil).ok(t)
	if get(r.body, "hits", 0, "id") != "jwt-refresh" || get(r.body, "corrections", 0, "term") != "slidng" ||
		get(r.body, "corrections", 0, "used") != "sliding" || get(r.body, "hits", 0, "matched", 0) != "sliding" {
		t.Errorf("search with a typo = %s", r.raw)
	}
	r = e.do("GET", "/api/search?q=jwr&session_id="+sid, nil).ok(t)
	if hits := r.body["hits"].([]any); len(hits) != 0 || get(r.body, "nearest", 0, "nearest") != "jwt" {
		t.Errorf("no hits, nearest spelling = %s", r.raw)
	}
	// Every tier, and no promotion.
	r = e.do("GET", "/api/search?q=one&level=user&limit=2", nil).ok(t)
	if hits := r.body["hits"].([]any); len(hits) != 2 {
		t.Errorf("limit 2 gave %d hits: %s", len(hits), r.raw)
	}
	r = e.do("GET", "/api/search?q=orphaned&level=user", nil).ok(t)
	if get(r.body, "hits", 0, "id") != "b" || get(r.body, "hits", 0, "tier") != "orphaned" {
		t.Errorf("orphaned hit = %s", r.raw)
	}
	if n, _ := e.stored(domain.UserGraph, "b"); n.Tier != domain.Orphaned {
		t.Error("search promoted a node")
	}
	e.do("GET", "/api/search", nil).fails(t, http.StatusBadRequest, "invalid", "q", "required")
	e.do("GET", "/api/search?q=x&limit=0", nil).fails(t, http.StatusBadRequest, "invalid", "limit", "between 1 and 100")
	e.do("GET", "/api/search?q=x&limit=many", nil).fails(t, http.StatusBadRequest, "invalid", "limit", "between 1 and 100")
	e.do("GET", "/api/search?q="+strings.Repeat("q", 1001), nil).fails(t, http.StatusBadRequest, "invalid", "q", "1001 chars, limit 1000")
	e.do("GET", "/api/search?q=x&level=project", nil).fails(t, http.StatusBadRequest, "invalid", "project_path", "session_id or project_path")
	e.do("GET", "/api/search?q=%3F%21", nil).fails(t, http.StatusBadRequest, "invalid", "q", "no word to search for")
}

func TestSync(t *testing.T) {
	e := newEnv(t)
	me := e.session(e.proj)
	other := e.session(e.proj)
	e.put("project", other, "theirs", "made by another session")
	e.put("project", other, "gone", "deleted by it")
	e.put("project", me, "mine", "made by me")
	e.do("POST", "/api/edges", map[string]any{"level": "user", "from": "x", "to": "y", "rel": "r"}).ok(t) // no session
	e.do("DELETE", "/api/nodes/project/gone?session_id="+other, nil).ok(t)

	r := e.do("POST", "/api/sync", map[string]any{"session_id": me}).ok(t)
	if r.body["empty"] != false || get(r.body, "user", "changes", 0, "kind") != "edge" || get(r.body, "user", "changes", 0, "edge", "to") != "y" {
		t.Errorf("sync user = %s", r.raw)
	}
	changes := get(r.body, "project", "changes").([]any)
	if len(changes) != 2 || get(changes, 0, "kind") != "node" || get(changes, 0, "node", "id") != "theirs" ||
		get(changes, 1, "kind") != "deleted_node" || get(changes, 1, "id") != "gone" || get(r.body, "project", "project") != e.proj {
		t.Errorf("sync project changes = %v; want theirs, then gone's deletion, never mine", changes)
	}
	// Each change says who made it and when, as a live event does.
	if get(changes, 0, "source_session") != other || get(changes, 1, "source_session") != other ||
		get(changes, 1, "ts") != float64(t0.Unix()) || get(r.body, "user", "changes", 0, "source_session") != nil {
		t.Errorf("sync changes do not name their sessions and times: %s", r.raw)
	}
	if r := e.do("POST", "/api/sync", map[string]any{"session_id": me}).ok(t); r.body["empty"] != true {
		t.Errorf("second sync = %s", r.raw)
	}
	e.do("POST", "/api/sync", map[string]any{"session_id": "0123456789abcdef"}).fails(t, http.StatusNotFound, "not_found", "session_id", "unknown session")
	e.do("POST", "/api/sync", map[string]any{}).fails(t, http.StatusBadRequest, "invalid", "session_id", "required")
	e.do("GET", "/api/sync?session_id="+me, nil).fails(t, http.StatusMethodNotAllowed, "invalid", "method", "GET is not allowed")
}

func TestProgress(t *testing.T) {
	e := newEnv(t)
	sid := e.session(e.proj)
	r := e.do("POST", "/api/progress", `{"session_id":"`+sid+`","task_id":"t1","state":{"step":2,"big":12345678901234567890}}`).ok(t)
	if r.body["task_id"] != "t1" || r.body["stored"] != true || r.body["level"] != "user" {
		t.Errorf("save = %s", r.raw)
	}
	r = e.do("GET", "/api/progress/t1?session_id="+sid, nil).ok(t)
	if strings.TrimSpace(r.raw) != `{"step":2,"big":12345678901234567890}` {
		t.Errorf("load = %s, want the state itself, numbers exactly as stored", r.raw)
	}
	e.do("POST", "/api/progress", map[string]any{"session_id": sid, "task_id": "t2", "level": "project", "state": map[string]any{"in": "project"}}).ok(t)
	if r := e.do("GET", "/api/progress/t2?level=project&project_path="+e.proj, nil).ok(t); r.body["in"] != "project" {
		t.Errorf("load of the project's = %s", r.raw)
	}
	// None stored (t2 is the project's): {}, as the replaced server answers.
	if r := e.do("GET", "/api/progress/t2", nil).ok(t); strings.TrimSpace(r.raw) != "{}" {
		t.Errorf("load of a task with no state = %s, want {}", r.raw)
	}
	e.do("POST", "/api/progress", map[string]any{"task_id": "t3", "state": []int{1}}).fails(t, http.StatusBadRequest, "invalid", "state", "JSON object")
	e.do("POST", "/api/progress", map[string]any{"task_id": "t3"}).fails(t, http.StatusBadRequest, "invalid", "state", "required")
	e.do("POST", "/api/progress", map[string]any{"task_id": "no way", "state": map[string]any{}}).fails(t, http.StatusBadRequest, "invalid", "task_id", "must start with")
	big := map[string]any{"task_id": "t4", "state": map[string]any{"x": strings.Repeat("x", 64<<10)}}
	e.do("POST", "/api/progress", big).fails(t, http.StatusBadRequest, "invalid", "state", "limit 65536")
}
