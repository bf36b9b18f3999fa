package rest_test

import (
	"net/http"
	"net/url"
	"testing"
)

// DELETE /api/projects: a project holding memory is refused (409) without
// force and removed with it; then it is not listed; an unknown one is 404;
// a missing project_path or a bad force is 400 naming the field.
func TestRemoveProject(t *testing.T) {
	e := newEnv(t)
	sid := e.session(e.proj)
	e.put("project", sid, "p1", "one")
	q := "/api/projects?project_path=" + url.QueryEscape(e.proj)

	e.do("DELETE", q, nil).fails(t, http.StatusConflict, "conflict", "force", "--force")
	r := e.do("DELETE", q+"&force=true", nil).ok(t)
	if r.body["removed"] != e.proj || r.body["nodes"] != 1.0 || r.body["stored"] != true {
		t.Errorf("DELETE reply = %s", r.raw)
	}
	if ps := e.do("GET", "/api/projects", nil).ok(t).body["projects"].([]any); len(ps) != 0 {
		t.Errorf("projects after the removal = %v", ps)
	}
	e.do("DELETE", q, nil).fails(t, http.StatusNotFound, "not_found", "project_path", "no project has memory at")
	e.do("DELETE", "/api/projects", nil).fails(t, http.StatusBadRequest, "invalid", "project_path", "missing")
	e.do("DELETE", q+"&force=maybe", nil).fails(t, http.StatusBadRequest, "invalid", "force", "want true or false")
}
