package app

import (
	"testing"

	"github.com/kg-memory/kg/domain"
)

func hitIDs(hs []Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = string(h.Level) + ":" + h.Project + ":" + h.Node.ID
	}
	return out
}

// seedCaches puts a node about caches in the user graph and in projects A
// and B (and one unrelated node in B), then restarts the service, so that
// nothing but the user graph is loaded.
func seedCaches(e *env) {
	a := e.session(projA)
	b := e.session(projB)
	e.put(user(a), "u-cache", "cache in the user graph")
	e.put(project(a), "a-cache", "cache in project a")
	e.put(project(b), "b-cache", "cache in project b")
	e.put(project(b), "b-other", "unrelated")
	e.restart()
}

func TestSearch(t *testing.T) {
	e := newEnv(t)
	seedCaches(e)
	a2 := e.session("")

	// A session of project A: its project graph is loaded for the search.
	hs, err := e.svc.Search(e.ctx, SearchRequest{Query: "cache", ProjectPath: projA})
	if err != nil {
		t.Fatal(err)
	}
	// Equal scores: the user graph first (docs/design/mcp.md#kg_search).
	sameIDs(t, "project A search", hitIDs(hs.Hits), []string{"user::u-cache", "project:" + projA + ":a-cache"})

	// Without a session or project: the user graph and every loaded project.
	hs, err = e.svc.Search(e.ctx, SearchRequest{Query: "cache"})
	if err != nil {
		t.Fatal(err)
	}
	sameIDs(t, "global search", hitIDs(hs.Hits), []string{"user::u-cache", "project:" + projA + ":a-cache"})

	hs, err = e.svc.Search(e.ctx, SearchRequest{Query: "cache", SessionID: a2, Level: domain.LevelUser})
	if err != nil {
		t.Fatal(err)
	}
	sameIDs(t, "user-level search", hitIDs(hs.Hits), []string{"user::u-cache"})

	hs, err = e.svc.Search(e.ctx, SearchRequest{Query: "cache", ProjectPath: projB, Level: domain.LevelProject, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	sameIDs(t, "project B search", hitIDs(hs.Hits), []string{"project:" + projB + ":b-cache"})
}

func TestSearchErrors(t *testing.T) {
	e := newEnv(t)
	_, err := e.svc.Search(e.ctx, SearchRequest{Query: "  "})
	wantKind(t, err, domain.KindInvalid, "query")
	_, err = e.svc.Search(e.ctx, SearchRequest{Query: "x", Limit: -1})
	wantKind(t, err, domain.KindInvalid, "limit")
	_, err = e.svc.Search(e.ctx, SearchRequest{Query: "x", SessionID: "nope"})
	wantKind(t, err, domain.KindNotFound, "session_id")
	_, err = e.svc.Search(e.ctx, SearchRequest{Query: "x", Level: domain.LevelProject})
	wantKind(t, err, domain.KindInvalid, "project_path")
}

// TestSearchFindsEdgeEnds: "what touches src/auth.go?" finds a node that
// names the file only as the end of an edge, before and after a restart
// (which rebuilds the graph's search index from storage).
func TestSearchFindsEdgeEnds(t *testing.T) {
	e := newEnv(t)
	a := e.session(projA)
	e.put(project(a), "login-flow", "how a session starts")
	e.put(project(a), "unrelated", "nothing about files")
	e.edge(project(a), "login-flow", "src/auth.go", "touches")
	for _, when := range []string{"live", "after a restart"} {
		hs, err := e.svc.Search(e.ctx, SearchRequest{Query: "src/auth.go", ProjectPath: projA})
		if err != nil {
			t.Fatal(err)
		}
		sameIDs(t, when, hitIDs(hs.Hits), []string{"project:" + projA + ":login-flow"})
		e.restart()
	}
}
