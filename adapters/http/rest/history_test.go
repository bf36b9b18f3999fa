package rest_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/kg-memory/kg/domain"
)

// TestHistoryAndUndo: two sessions write, GET /api/history shows their
// changes newest first with before, after and a readable diff; an undo of
// one session puts back what nobody else changed since, as new writes of
// the undoer, and names what it skips; a dry run changes nothing.
func TestHistoryAndUndo(t *testing.T) {
	e := newEnv(t)
	s1, s2, s3 := e.session(""), e.session(""), e.session("")
	e.put("user", s2, "kept", "written by s2 before")
	e.put("user", s1, "kept", "s1 changed it", "notes", []string{"s1 note"})
	e.put("user", s1, "new", "s1 made it")
	e.put("user", s1, "shared", "s1 made it")
	e.put("user", s2, "shared", "s2 changed it since")
	e.do("POST", "/api/edges", map[string]any{"level": "user", "session_id": s1, "from": "new", "to": "a.go", "rel": "touches"}).ok(t)

	r := e.do("GET", "/api/history?level=user", nil).ok(t)
	es := r.body["entries"].([]any)
	if len(es) != 6 || r.body["level"] != "user" || r.body["next_before_seq"] != nil {
		t.Fatalf("history = %s", r.raw)
	}
	if get(es, 0, "item") != "edge" || get(es, 0, "edge", "to") != "a.go" || get(es, 0, "op") != "put" || get(es, 0, "session_id") != s1 {
		t.Errorf("newest entry = %v", es[0])
	}
	kept := get(es, 4)
	if get(kept, "id") != "kept" || get(kept, "before", "gist") != "written by s2 before" || get(kept, "after", "gist") != "s1 changed it" ||
		get(kept, "diff", 0, "field") != "gist" || get(kept, "diff", 1, "field") != "notes" || get(kept, "diff", 1, "after") != "s1 note" ||
		get(kept, "time") != "2025-03-01T12:00:00Z" {
		t.Errorf("entry of kept = %v", kept)
	}
	if r := e.do("GET", "/api/history?level=user&id=new", nil).ok(t); len(r.body["entries"].([]any)) != 2 {
		t.Errorf("history of node new (its put and its edge) = %s", r.raw)
	}
	if r := e.do("GET", "/api/history?level=user&session_id="+s2, nil).ok(t); len(r.body["entries"].([]any)) != 2 {
		t.Errorf("history of s2 = %s", r.raw)
	}
	page := e.do("GET", "/api/history?level=user&limit=4", nil).ok(t)
	next := page.body["next_before_seq"]
	if len(page.body["entries"].([]any)) != 4 || next == nil {
		t.Fatalf("first page = %s", page.raw)
	}
	rest := e.do("GET", fmt.Sprintf("/api/history?level=user&limit=4&before_seq=%v", next), nil).ok(t)
	if len(rest.body["entries"].([]any)) != 2 || rest.body["next_before_seq"] != nil || get(rest.body, "entries", 0, "seq") == get(page.body, "entries", 3, "seq") {
		t.Errorf("second page = %s", rest.raw)
	}

	// Bad input names the field and the limit, and changes nothing.
	e.do("GET", "/api/history?level=user&limit=501", nil).fails(t, http.StatusBadRequest, "invalid", "limit", "from 1 to 500")
	e.do("GET", "/api/history?level=user&since_seq=x", nil).fails(t, http.StatusBadRequest, "invalid", "since_seq", "whole number")
	e.do("GET", "/api/history?level=user&since=yesterday", nil).fails(t, http.StatusBadRequest, "invalid", "since", "duration")
	e.do("GET", "/api/history", nil).fails(t, http.StatusBadRequest, "invalid", "level", "required")
	e.do("POST", "/api/undo", map[string]any{"level": "user", "session_id": s1, "seq_range": map[string]any{"from": 1, "to": 2}}).
		fails(t, http.StatusBadRequest, "invalid", "session_id", "not both")
	e.do("POST", "/api/undo", map[string]any{"level": "user", "seq_range": map[string]any{"from": 5, "to": 2}}).
		fails(t, http.StatusBadRequest, "invalid", "seq_range", "from 5 is above to 2")
	e.do("POST", "/api/undo", map[string]any{"level": "user"}).fails(t, http.StatusBadRequest, "invalid", "session_id", "required")
	e.do("POST", "/api/undo", map[string]any{"level": "user", "session_id": "nobody"}).
		fails(t, http.StatusNotFound, "not_found", "session_id", `no change of session "nobody"`)

	// The dry run shows the plan and changes nothing.
	dry := e.do("POST", "/api/undo", map[string]any{"level": "user", "session_id": s1, "dry_run": true, "by_session": s3}).ok(t)
	applied, skipped := dry.body["applied"].([]any), dry.body["skipped"].([]any)
	if dry.body["dry_run"] != true || len(applied) != 3 || len(skipped) != 1 || get(skipped, 0, "id") != "shared" {
		t.Fatalf("dry run = %s", dry.raw)
	}
	if reason := get(skipped, 0, "reason").(string); reason != fmt.Sprintf("changed since by session %s (seq 5)", s2) {
		t.Errorf("skip reason %q", reason)
	}
	if get(applied, 0, "seq") != nil {
		t.Errorf("a dry run step has a seq: %s", dry.raw)
	}
	if r := e.do("GET", "/api/history?level=user", nil).ok(t); len(r.body["entries"].([]any)) != 6 {
		t.Fatalf("the dry run wrote: %s", r.raw)
	}

	done := e.do("POST", "/api/undo", map[string]any{"level": "user", "session_id": s1, "by_session": s3}).ok(t)
	if done.body["dry_run"] != false || len(done.body["applied"].([]any)) != 3 || get(done.body, "applied", 0, "seq") == nil {
		t.Fatalf("undo = %s", done.raw)
	}
	graph := e.do("GET", "/api/graph/read?level=user&session_id="+s3, nil).ok(t)
	nodes := map[string]string{}
	for _, n := range get(graph.body, "user", "nodes").([]any) {
		nodes[get(n, "id").(string)] = get(n, "gist").(string)
	}
	if len(get(graph.body, "user", "edges").([]any)) != 0 || nodes["kept"] != "written by s2 before" || nodes["shared"] != "s2 changed it since" {
		t.Errorf("after the undo: nodes %v, graph %.300s", nodes, graph.raw)
	}
	if _, ok := nodes["new"]; ok {
		t.Errorf("the node s1 made survived its undo: %v", nodes)
	}
	after := e.do("GET", "/api/history?level=user&limit=3", nil).ok(t)
	for _, en := range after.body["entries"].([]any) {
		if get(en, "op") != "undo" || get(en, "session_id") != s3 {
			t.Errorf("an undo's entry = %v", en)
		}
	}
	// Undoing again finds every item changed since by the undo: nothing
	// to do, each named.
	again := e.do("POST", "/api/undo", map[string]any{"level": "user", "session_id": s1, "by_session": s3}).ok(t)
	if len(again.body["applied"].([]any)) != 0 || len(again.body["skipped"].([]any)) != 4 {
		t.Errorf("undo again = %s", again.raw)
	}
}

// Issue 28, item 2: POST /api/undo with a session id alone (no level)
// covers the user graph and the session's project, the result per graph;
// "level":"project" alone means the session's project.
func TestUndoBySessionIDAlone(t *testing.T) {
	e := newEnv(t)
	s := e.session("/work/app")
	e.put("user", s, "lesson", "in the user graph")
	e.put("project", s, "design", "in the project")

	dry := e.do("POST", "/api/undo", map[string]any{"session_id": s, "dry_run": true}).ok(t)
	gs := dry.body["graphs"].([]any)
	if len(gs) != 2 || get(gs, 0, "level") != "user" || get(gs, 1, "level") != "project" || get(gs, 1, "project_path") != "/work/app" ||
		len(get(gs, 0, "applied").([]any)) != 1 || len(dry.body["applied"].([]any)) != 2 || dry.body["level"] != nil {
		t.Fatalf("dry run by session id alone = %s", dry.raw)
	}
	one := e.do("POST", "/api/undo", map[string]any{"session_id": s, "level": "project", "dry_run": true}).ok(t)
	if len(one.body["graphs"].([]any)) != 1 || one.body["level"] != "project" || one.body["project_path"] != "/work/app" {
		t.Fatalf("dry run with level project = %s", one.raw)
	}
	done := e.do("POST", "/api/undo", map[string]any{"session_id": s}).ok(t)
	if len(done.body["graphs"].([]any)) != 2 || get(done.body, "graphs", 1, "applied", 0, "seq") == nil {
		t.Fatalf("undo by session id alone = %s", done.raw)
	}
	if _, ok := e.stored(domain.UserGraph, "lesson"); ok {
		t.Error("the user graph's node survived the undo")
	}
	if _, ok := e.stored(domain.ProjectGraph("/work/app"), "design"); ok {
		t.Error("the project's node survived the undo")
	}
	e.do("POST", "/api/undo", map[string]any{"session_id": s, "level": "team"}).fails(t, http.StatusBadRequest, "invalid", "level", "not a level")
}
