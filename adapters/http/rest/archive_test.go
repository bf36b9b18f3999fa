package rest_test

import (
	"net/http"
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
)

// POST /api/nodes/archive moves the nodes named to the archived tier as one
// write of the caller's session; POST /api/undo of that session makes them
// active again.
func TestArchiveNodesOverREST(t *testing.T) {
	e := newEnv(t)
	writer := e.session(e.proj)
	for _, id := range []string{"a", "b", "c", "d"} {
		e.put("project", writer, id, "about "+id)
	}
	person := e.session(e.proj)
	res := e.do("POST", "/api/nodes/archive", map[string]any{"level": "project", "session_id": person,
		"ids": []string{"a", "b", "c"}}).ok(t)
	if get(res.body, "archived", 2) != "c" || len(get(res.body, "unmoved").([]any)) != 0 || get(res.body, "project") != e.proj ||
		get(res.body, "seqs", "to").(float64)-get(res.body, "seqs", "from").(float64) != 2 {
		t.Fatalf("archive = %s", res.raw)
	}
	k := domain.ProjectGraph(e.proj)
	for _, id := range []string{"a", "b", "c"} {
		if n, _ := e.stored(k, id); n.Tier != domain.Archived {
			t.Errorf("%s is %s after the archive", id, n.Tier)
		}
	}
	h := e.do("GET", "/api/history?level=project&project_path="+e.proj+"&session_id="+person, nil).ok(t)
	if get(h.body, "entries", 0, "op") != "archive" || get(h.body, "entries", 0, "tier", "to") != "archived" {
		t.Fatalf("history = %.600s", h.raw)
	}
	again := e.do("POST", "/api/nodes/archive", map[string]any{"level": "project", "project_path": e.proj,
		"ids": []string{"a", "d"}}).ok(t)
	if get(again.body, "archived", 0) != "d" || get(again.body, "unmoved", 0) != "a" {
		t.Fatalf("second archive = %s", again.raw)
	}

	e.do("POST", "/api/undo", map[string]any{"session_id": person}).ok(t)
	for _, id := range []string{"a", "b", "c"} {
		if n, _ := e.stored(k, id); n.Tier != domain.Active {
			t.Errorf("%s is %s after the undo of the archive", id, n.Tier)
		}
	}
}

// Bad input is refused naming the field and the limit; nothing is archived.
func TestArchiveNodesOverRESTRefusesBadInput(t *testing.T) {
	e := newEnv(t)
	sid := e.session(e.proj)
	e.put("project", sid, "a", "about a")
	many := make([]string, compaction.MaxArchiveIDs+1)
	for i := range many {
		many[i] = "a"
	}
	for _, tc := range []struct {
		name                string
		body                map[string]any
		status              int
		kind, field, detail string
	}{
		{"unknown id", map[string]any{"level": "project", "session_id": sid, "ids": []string{"a", "ghost"}},
			http.StatusNotFound, "not_found", "ids", `"ghost"`},
		{"too many", map[string]any{"level": "project", "session_id": sid, "ids": many},
			http.StatusBadRequest, "invalid", "ids", "over the limit of 500"},
		{"none", map[string]any{"level": "project", "session_id": sid, "ids": []string{}},
			http.StatusBadRequest, "invalid", "ids", "from 1 to 500"},
		{"wrong level", map[string]any{"level": "team", "session_id": sid, "ids": []string{"a"}},
			http.StatusBadRequest, "invalid", "level", "not one of user, project"},
		{"ids not a list", map[string]any{"level": "project", "session_id": sid, "ids": "a"},
			http.StatusBadRequest, "invalid", "ids", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.do("POST", "/api/nodes/archive", tc.body).fails(t, tc.status, tc.kind, tc.field, tc.detail)
			if n, _ := e.stored(domain.ProjectGraph(e.proj), "a"); n.Tier != domain.Active {
				t.Errorf("a is %s after a refused archive", n.Tier)
			}
		})
	}
}
