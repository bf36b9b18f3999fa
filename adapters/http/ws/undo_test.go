package ws_test

import (
	"slices"
	"testing"
)

// An undo's writes reach /ws like any other write: a node it puts back is
// a node_updated frame, one it deletes a node_deleted frame, each once.
func TestUndoIsEvented(t *testing.T) {
	e := newEnv(t)
	s1, s2 := e.session(""), e.session("")
	e.put("user", s2, "", "kept")
	e.call("POST", "/api/nodes", map[string]any{"level": "user", "session_id": s1, "id": "kept", "gist": "s1 changed it"}, 200)
	e.put("user", s1, "", "made")
	sock := e.dial("")
	r := e.call("POST", "/api/undo", map[string]any{"level": "user", "session_id": s1}, 200)
	if n := len(r["applied"].([]any)); n != 2 {
		t.Fatalf("undo applied %d steps: %v", n, r)
	}
	e.put("user", "", "", "marker")
	seen := sock.until("marker")
	for _, want := range []string{"node_updated:kept", "node_deleted:made"} {
		if !slices.Contains(seen, want) {
			t.Errorf("frames %v lack %s", seen, want)
		}
	}
}
