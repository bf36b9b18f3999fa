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
	// The projects it loaded are let go once it is done: without All, the
	// loaded graphs are the user graph's alone again.
	if n := e.svc.Health(e.ctx).LoadedGraphs; n != 1 {
		t.Errorf("after the search of every graph %d graphs are loaded, want the user graph's alone", n)
	}
	hs, err = e.svc.Search(e.ctx, SearchRequest{Query: "cache"})
	if err != nil {
		t.Fatal(err)
	}
	sameIDs(t, "search of the loaded graphs", hitIDs(hs.Hits), []string{"user::u-cache"})
}

// A graph that was loaded before a search of every graph stays loaded: the
// search lets go only of what it loaded itself.
func TestSearchEveryGraphKeepsWhatWasLoaded(t *testing.T) {
	e := newEnv(t)
	seedCaches(e)
	if _, err := e.svc.Search(e.ctx, SearchRequest{Query: "cache", ProjectPath: projA}); err != nil {
		t.Fatal(err) // loads project A
	}
	if _, err := e.svc.Search(e.ctx, SearchRequest{Query: "cache", All: true}); err != nil {
		t.Fatal(err)
	}
	hs, err := e.svc.Search(e.ctx, SearchRequest{Query: "cache"})
	if err != nil {
		t.Fatal(err)
	}
	sameIDs(t, "search of the loaded graphs", slices.Sorted(slices.Values(hitIDs(hs.Hits))),
		[]string{"project:" + projA + ":a-cache", "user::u-cache"})
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
