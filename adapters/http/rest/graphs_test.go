package rest_test

import (
	"net/http"
	"testing"

	"github.com/kg-memory/kg/domain"
)

// seedTiers stores a user graph with an archived node "a" (with notes and
// touches), an orphaned neighbour "b" and an active node "c", joined by
// edges with notes, as an earlier run left them.
func seedTiers() option {
	old := domain.Micros(t0.UnixMicro()) - domain.Days(30)
	return withUser(domain.GraphData{
		Nodes: []domain.Node{
			{ID: "a", Gist: "archived one", Notes: []string{"why a"}, Touches: []string{"src/a.go"}, Tier: domain.Archived,
				Created: old, Version: domain.Version{V: 2, TS: old, Seq: 1}},
			{ID: "b", Gist: "orphaned one", Tier: domain.Orphaned, OrphanedAt: old, Created: old, Version: domain.Version{V: 1, TS: old, Seq: 2}},
			{ID: "c", Gist: "active one", Created: old, Version: domain.Version{V: 1, TS: old, Seq: 3}},
		},
		Edges: []domain.Edge{
			{From: "a", To: "b", Rel: "leads-to", Notes: []string{"edge note"}, Version: domain.Version{V: 1, TS: old, Seq: 4}},
			{From: "c", To: "a", Rel: "uses", Version: domain.Version{V: 1, TS: old, Seq: 5}},
		},
		Seq: 5,
	})
}

func TestGraphReadListsEveryTierWithoutPromoting(t *testing.T) {
	e := newEnv(t, seedTiers())
	sid := e.session(e.proj)
	e.put("project", sid, "p", "project node")

	r := e.do("GET", "/api/graph/read?session_id="+sid, nil).ok(t)
	user := r.body["user"]
	if get(user, "level") != "user" || get(user, "project") != nil {
		t.Errorf("user graph header: %v", user)
	}
	byID := map[string]map[string]any{}
	for _, n := range get(user, "nodes").([]any) {
		byID[n.(map[string]any)["id"].(string)] = n.(map[string]any)
	}
	a := byID["a"]
	want := map[string]any{"tier": "archived", "version": 2.0, "seq": 1.0, "_archived": true, "gist": "archived one",
		"_created_ts": float64(t0.Unix() - 30*86400)}
	for k, v := range want {
		if a[k] != v {
			t.Errorf("node a: %s = %v, want %v (%v)", k, a[k], v, a)
		}
	}
	if get(a, "notes", 0) != "why a" || get(a, "touches", 0) != "src/a.go" {
		t.Errorf("node a lacks its notes or touches: %v", a)
	}
	if b := byID["b"]; b["tier"] != "orphaned" || b["_orphaned_ts"] == nil {
		t.Errorf("node b = %v", b)
	}
	if c := byID["c"]; c["tier"] != "active" || c["_archived"] != nil {
		t.Errorf("node c = %v", c)
	}
	edges := get(user, "edges").([]any)
	if len(edges) != 2 || get(edges, 0, "from") != "a" || get(edges, 0, "notes", 0) != "edge note" ||
		get(edges, 0, "shown") != false || get(edges, 1, "shown") != true {
		t.Errorf("user edges = %v", edges)
	}
	if get(user, "stats", "orphaned") != 1.0 || get(user, "max_tokens") != 4000.0 || get(user, "target_tokens") != 3200.0 {
		t.Errorf("user stats = %v, max %v, target %v", get(user, "stats"), get(user, "max_tokens"), get(user, "target_tokens"))
	}
	if get(r.body, "project", "project") != e.proj || get(r.body, "project", "nodes", 0, "id") != "p" {
		t.Errorf("project graph = %v", r.body["project"])
	}

	// Reading the graphs recalled nothing.
	if n, _ := e.stored(domain.UserGraph, "a"); n.Tier != domain.Archived || n.LastRead != 0 {
		t.Errorf("stored a = %s, last read %d; want archived, never read", n.Tier, n.LastRead)
	}

	// No project named: the user graph, and an empty project graph, as the
	// replaced server answers (never null).
	r = e.do("GET", "/api/graph/read", nil).ok(t)
	if p, ok := r.body["project"].(map[string]any); !ok || p["level"] != "project" || p["project"] != nil ||
		len(p["nodes"].([]any)) != 0 || len(p["edges"].([]any)) != 0 {
		t.Errorf("project without a name: %v", r.body["project"])
	}
}

func TestGraphReadErrors(t *testing.T) {
	e := newEnv(t)
	sid := e.session(e.proj)
	other := t.TempDir()
	e.do("GET", "/api/graph/read?session_id=0123456789abcdef", nil).
		fails(t, http.StatusNotFound, "not_found", "session_id", `unknown session "0123456789abcdef"`)
	e.do("GET", "/api/graph/read?project_path=relative/p", nil).
		fails(t, http.StatusBadRequest, "invalid", "project_path", "absolute")
	e.do("GET", "/api/graph/read?session_id="+sid+"&project_path="+other, nil).
		fails(t, http.StatusBadRequest, "invalid", "project_path", "is not the project of session")
}

func TestProjects(t *testing.T) {
	e := newEnv(t)
	sid := e.session(e.proj)
	e.put("project", sid, "p1", "one")
	e.put("project", sid, "p2", "two")
	e.do("POST", "/api/edges", map[string]any{"level": "project", "session_id": sid, "from": "p1", "to": "p2", "rel": "r"}).ok(t)

	r := e.do("GET", "/api/projects", nil).ok(t)
	ps := r.body["projects"].([]any)
	if len(ps) != 1 {
		t.Fatalf("projects = %v", ps)
	}
	p := ps[0].(map[string]any)
	if p["project_path"] != e.proj || p["active"] != 2.0 || p["edges"] != 1.0 || p["slug"] == "" ||
		p["last_change_ts"] != float64(t0.Unix()) {
		t.Errorf("project = %v", p)
	}
	// The token meter of the web page's home view: the estimate of the full
	// read (as /api/graph/read gives it), the budget and the target.
	g := e.do("GET", "/api/graph/read?project_path="+e.proj, nil).ok(t)
	if p["tokens"] != get(g.body, "project", "tokens") || p["tokens"] == nil ||
		p["max_tokens"] != 4000.0 || p["target_tokens"] != 3200.0 {
		t.Errorf("project tokens = %v of %v, target %v; the graph read says %v", p["tokens"], p["max_tokens"], p["target_tokens"], get(g.body, "project", "tokens"))
	}
}
