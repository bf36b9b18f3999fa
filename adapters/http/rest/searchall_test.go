package rest_test

import (
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"testing"
)

// GET /api/search?scope=all: the web page's one box, over the user graph and
// every project, each hit naming its graph.
func TestSearchEveryGraph(t *testing.T) {
	e := newEnv(t)
	other, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, b := e.session(e.proj), e.session(other)
	e.put("user", a, "u-cache", "cache in the user graph")
	e.put("project", a, "a-cache", "cache in project a")
	e.put("project", b, "b-cache", "cache in project b")
	r := e.do("GET", "/api/search?scope=all&q=cache", nil).ok(t)
	var got []string
	for i := range r.body["hits"].([]any) {
		p, _ := get(r.body, "hits", i, "project").(string)
		got = append(got, get(r.body, "hits", i, "level").(string)+":"+p+":"+get(r.body, "hits", i, "id").(string))
	}
	slices.Sort(got)
	want := []string{"project:" + e.proj + ":a-cache", "project:" + other + ":b-cache", "user::u-cache"}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("hits = %v, want %v (%s)", got, want, r.raw)
	}

	e.do("GET", "/api/search?scope=every&q=cache", nil).fails(t, http.StatusBadRequest, "invalid", "scope", `"every" is not a scope`)
	e.do("GET", "/api/search?scope=all&q=cache&level=user", nil).fails(t, http.StatusBadRequest, "invalid", "scope", "drop level")
	e.do("GET", "/api/search?scope=all&q=cache&project_path="+url.QueryEscape(e.proj), nil).
		fails(t, http.StatusBadRequest, "invalid", "scope", "drop session_id and project_path")
}
