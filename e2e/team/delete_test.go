package team

import (
	"fmt"
	"net/url"
	"testing"
)

// TestDeleteOnAnotherServerFindsWhatWasJustWritten: a delete landing on
// another server than the write it follows finds the node or edge at once,
// as a read does: the server catches up before it looks
// (docs/design/team.md#reads).
func TestDeleteOnAnotherServerFindsWhatWasJustWritten(t *testing.T) {
	_, ins := team(t, 2, options{})
	a, b := ins[0], ins[1]
	const project = "github.com/acme/delete-elsewhere"
	q := url.Values{"project_key": {project}}.Encode()
	b.putNode(map[string]any{"level": "project", "project_key": project, "id": "anchor", "gist": "b has the graph loaded"})
	for i := range 5 {
		id := fmt.Sprintf("n%d", i)
		if code, _ := a.putNode(map[string]any{"level": "project", "project_key": project, "id": id, "gist": "just written"}); code != 200 {
			t.Fatalf("put %s on a: %d", id, code)
		}
		if code := b.call("POST", "/api/edges", map[string]any{"level": "project", "project_key": project, "from": "anchor", "to": id, "rel": "r"}, nil); code != 200 {
			t.Fatalf("edge to %s on b: %d", id, code)
		}
		var edge struct {
			Deleted bool `json:"deleted"`
		}
		eq := url.Values{"project_key": {project}, "level": {"project"}, "from": {"anchor"}, "to": {id}, "rel": {"r"}}.Encode()
		if code := a.call("DELETE", "/api/edges?"+eq, nil, &edge); code != 200 || !edge.Deleted {
			t.Errorf("delete on a of the edge just written on b: %d, deleted %v; want it deleted", code, edge.Deleted)
		}
		if code, err := b.do("DELETE", "/api/nodes/project/"+id+"?"+q, nil, nil); err != nil || code != 200 {
			t.Errorf("delete on b of node %s just written on a: %d %v, want 200", id, code, err)
		}
	}
}
