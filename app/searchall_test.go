package app

import (
	"slices"
	"testing"

	"github.com/kg-memory/kg/domain"
)

// A search over every graph (the web page's one box) looks in the user
// graph and in every stored project, loading those not loaded, and each hit
// names its graph.
func TestSearchEveryGraph(t *testing.T) {
	e := newEnv(t)
	seedCaches(e) // nothing but the user graph loaded

	hs, err := e.svc.Search(e.ctx, SearchRequest{Query: "cache", All: true})
	if err != nil {
		t.Fatal(err)
	}
	// Which hits, not their order: that is the ranking's (domain's tests).
	sameIDs(t, "search of every graph", slices.Sorted(slices.Values(hitIDs(hs.Hits))),
		[]string{"project:" + projA + ":a-cache", "project:" + projB + ":b-cache", "user::u-cache"})
	if len(hs.Unavailable) != 0 {
		t.Errorf("unavailable = %v", hs.Unavailable)
	}
	// Without All, only the loaded graphs, which now include both projects.
	hs, err = e.svc.Search(e.ctx, SearchRequest{Query: "cache"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hs.Hits) != 3 {
		t.Errorf("after the search of every graph, the loaded graphs give %v", hitIDs(hs.Hits))
	}
}

func TestSearchEveryGraphNamesNoGraph(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	for name, req := range map[string]SearchRequest{
		"level":   {Query: "x", All: true, Level: domain.LevelUser},
		"session": {Query: "x", All: true, SessionID: sid},
		"project": {Query: "x", All: true, ProjectPath: projA},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := e.svc.Search(e.ctx, req)
			wantKind(t, err, domain.KindInvalid, "scope")
		})
	}
}
