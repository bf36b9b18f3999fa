package team

import (
	"fmt"
	"net/url"
	"testing"
	"time"
)

// TestProjectRemovedOnEveryServer: a project removed on A (`kg project rm`,
// DELETE /api/projects) is gone on B too, which held it loaded: B's
// listener drops its copy and its /ws subscribers hear project_removed
// once, as do C's, which never loaded it — all before any read, with the
// poll set to a minute. A write on B afterwards starts the project afresh
// rather than putting the removed nodes back, and a session of B's that had
// synced the old graph hears of it: the seqs continue past the removed
// graph's (docs/design/team.md#removing-a-project).
func TestProjectRemovedOnEveryServer(t *testing.T) {
	_, ins := team(t, 3, options{poll: time.Minute})
	a, b, c := ins[0], ins[1], ins[2]
	const project = "example.com/team/removed"
	for i := range 3 {
		if code, _ := a.putNode(map[string]any{"level": "project", "project_path": project, "id": fmt.Sprintf("old-%d", i), "gist": "x"}); code != 200 {
			t.Fatalf("put on a: %d", code)
		}
	}
	if got := len(b.graph(project)); got != 3 {
		t.Fatalf("b reads %d nodes before the removal, want 3", got)
	}
	watcher := b.register(project)
	if ids := syncIDs(b.sync(watcher)); len(ids) != 0 {
		t.Fatalf("a new session's first sync reported %v", ids)
	}
	loaded := func(in *instance) int {
		var h struct {
			Loaded int `json:"loaded_graphs"`
		}
		in.call("GET", "/health", nil, &h)
		return h.Loaded
	}
	loadedBefore := loaded(b)
	sockets := []*socket{b.dial("project_path=" + url.QueryEscape(project)), c.dial("project_path=" + url.QueryEscape(project))}
	q := "/api/projects?project_path=" + url.QueryEscape(project)
	if code := a.call("DELETE", q, nil, nil); code != 409 {
		t.Errorf("removing a project that holds nodes without force: %d, want 409", code)
	}
	var removed struct {
		Nodes  int  `json:"nodes"`
		Stored bool `json:"stored"`
	}
	if code := a.call("DELETE", q+"&force=true", nil, &removed); code != 200 || removed.Nodes != 3 || !removed.Stored {
		t.Fatalf("removal on a: %d %+v, want 200 with 3 nodes", code, removed)
	}
	removedEvents := func(fs []map[string]any) (n int) {
		for _, f := range eventFrames(fs) {
			if f["type"] == "project_removed" {
				n++
			}
		}
		return n
	}
	for i, s := range sockets {
		if !s.waitFor(10*time.Second, func(fs []map[string]any) bool { return removedEvents(fs) >= 1 }) {
			t.Fatalf("%s's socket did not hear project_removed: %v", ins[i+1].name, s.events())
		}
	}
	if got := loaded(b); got != loadedBefore-1 {
		t.Errorf("b holds %d graphs after hearing of the removal, %d before; want one fewer", got, loadedBefore)
	}
	if got := b.graph(project); len(got) != 0 {
		t.Errorf("b still reads %d nodes of the removed project", len(got))
	}
	if code, _ := b.putNode(map[string]any{"level": "project", "project_path": project, "id": "new", "gist": "after"}); code != 200 {
		t.Fatalf("put on b after the removal: %d", code)
	}
	for _, in := range ins {
		got := in.graph(project)
		if _, ok := got["new"]; !ok || len(got) != 1 {
			t.Errorf("%s reads %d nodes after the write on b (%v), want only new", in.name, len(got), keys(got))
		}
	}
	if ids := syncIDs(a.sync(watcher)); len(ids) != 1 || ids[0] != "new" {
		t.Errorf("the session that synced the removed graph then reported %v, want [new]", ids)
	}
	for i, s := range sockets {
		evs := s.events()
		if n := removedEvents(evs); n != 1 {
			t.Errorf("%s's socket heard project_removed %d times, want once", ins[i+1].name, n)
		}
		for _, ev := range evs {
			if ev["type"] == "project_removed" && (ev["nodes_removed"] != 3.0 || ev["project"] != project) {
				t.Errorf("%s's socket heard %v, want the project and its 3 nodes", ins[i+1].name, ev)
			}
		}
	}
	if code := b.call("DELETE", q, nil, nil); code != 409 {
		t.Errorf("removing on b the project a has loaded, without force: %d, want 409", code)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
