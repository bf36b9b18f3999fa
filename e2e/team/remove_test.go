package team

import (
	"fmt"
	"net/url"
	"testing"
	"time"
)

// TestProjectRemovedOnEveryServer: a project removed on A (`kg project rm`,
// DELETE /api/projects) is gone on B too, which held it loaded — at its
// next read, without a restart — and a write on B afterwards starts the
// project afresh rather than putting the removed nodes back
// (docs/design/team.md#removing-a-project).
func TestProjectRemovedOnEveryServer(t *testing.T) {
	_, ins := team(t, 2, options{poll: time.Minute})
	a, b := ins[0], ins[1]
	const project = "example.com/team/removed"
	for i := range 3 {
		if code, _ := a.putNode(map[string]any{"level": "project", "project_path": project, "id": fmt.Sprintf("old-%d", i), "gist": "x"}); code != 200 {
			t.Fatalf("put on a: %d", code)
		}
	}
	if got := len(b.graph(project)); got != 3 {
		t.Fatalf("b reads %d nodes before the removal, want 3", got)
	}
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
