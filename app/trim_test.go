package app

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// A load that takes the loaded project graphs past MaxLoadedNodes unloads
// the least recently used of the others; the graph just loaded, the user
// graph and a graph used since stay (docs/design/storage.md#unloading).
func TestLoadPastTheBoundUnloadsTheLeastRecentlyUsed(t *testing.T) {
	const projC = "/work/proj-c"
	e := newEnv(t, func(c *Config) { c.MaxLoadedNodes = 5 })
	for i, p := range []string{projA, projB, projC} {
		sid := e.session(p)
		e.put(user(sid), fmt.Sprintf("u%d", i), "cache in the user graph")
		e.put(project(sid), "one", "cache one")
		e.put(project(sid), "two", "cache two")
	}
	e.restart()
	loadedProjects := func() []string {
		var out []string
		for _, g := range e.svc.store.Loaded() {
			if g.Key().Project != "" {
				out = append(out, g.Key().Project)
			}
		}
		return slices.Sorted(slices.Values(out))
	}
	read := func(p string) {
		t.Helper()
		if _, err := e.svc.Search(e.ctx, SearchRequest{Query: "cache", ProjectPath: p}); err != nil {
			t.Fatal(err)
		}
	}
	read(projA)
	e.clock.Advance(time.Second)
	read(projB) // 4 nodes: both stay
	if got := loadedProjects(); !slices.Equal(got, []string{projA, projB}) {
		t.Fatalf("loaded after A and B = %v", got)
	}
	e.clock.Advance(time.Second)
	read(projA) // A is now the more recently used
	e.clock.Advance(time.Second)
	read(projC) // 6 nodes: B, the least recently used, goes
	if got := loadedProjects(); !slices.Equal(got, []string{projA, projC}) {
		t.Errorf("loaded after C = %v, want A and C (B least recently used)", got)
	}
	if n := e.svc.Health(e.ctx).LoadedGraphs; n != 3 {
		t.Errorf("%d graphs loaded, want the user graph and two projects", n)
	}
	// B loads again when asked for, whole.
	hs, err := e.svc.Search(e.ctx, SearchRequest{Query: "cache", ProjectPath: projB})
	if err != nil {
		t.Fatal(err)
	}
	if len(hs.Hits) != 5 {
		t.Errorf("search of B after its unloading: %v", hitIDs(hs.Hits))
	}
}

// A graph whose read stamps are not saved yet stays past the bound at a
// load; the maintenance tick saves them and then applies the bound.
func TestTheTickAppliesTheBoundOnceStampsAreSaved(t *testing.T) {
	const projC = "/work/proj-c"
	e := newEnv(t, func(c *Config) { c.MaxLoadedNodes = 5 })
	for _, p := range []string{projA, projB, projC} {
		sid := e.session(p)
		e.put(project(sid), "one", "cache one")
		e.put(project(sid), "two", "cache two")
	}
	e.restart()
	loaded := func() int {
		n := 0
		for _, g := range e.svc.store.Loaded() {
			if g.Key().Project != "" {
				n++
			}
		}
		return n
	}
	for _, p := range []string{projA, projB, projC} {
		e.clock.Advance(time.Second)
		if _, err := e.svc.ReadNode(e.ctx, Scope{ProjectPath: p, Level: "project"}, "one"); err != nil {
			t.Fatal(err) // a read by id stamps the node: a write the next batch makes
		}
	}
	if n := loaded(); n != 3 {
		t.Fatalf("%d project graphs loaded after three reads with stamps pending, want 3 (none could go)", n)
	}
	e.svc.maint.Tick(e.ctx)
	if n := loaded(); n != 2 {
		t.Errorf("%d project graphs loaded after the tick, want 2 (6 nodes, a bound of 5)", n)
	}
}
