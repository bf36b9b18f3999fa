package main

import (
	"testing"
	"time"
)

// --idle-unload reaches the running server: a project graph with no request
// for that long leaves memory at a maintenance tick (loaded_graphs in
// /health goes back to the user graph alone), and the next request loads
// it again with everything that was written to it. The polling guard only
// bounds a hang; nothing here depends on how long a step takes.
func TestIdleUnloadFlagUnloadsIdleProjects(t *testing.T) {
	t.Parallel()
	s := startKG(t, "json", t.TempDir(), "--maintenance-interval", "1", "--idle-unload", "1")
	sid := s.session(projectDir(t, "idle"))
	s.putNode(sid, "project", "kept", "written before the unload", nil)
	if n := getHealth(t, s.Addr)["loaded_graphs"]; n != 2.0 {
		t.Fatalf("loaded_graphs = %v, want the user graph and the project", n)
	}
	guard := time.Now().Add(time.Minute)
	for getHealth(t, s.Addr)["loaded_graphs"] != 1.0 {
		if time.Now().After(guard) {
			t.Fatalf("the idle project graph was never unloaded: %v", getHealth(t, s.Addr))
		}
		time.Sleep(50 * time.Millisecond)
	}
	r := s.ok("kg_read", map[string]any{"session_id": sid, "id": "kept"})
	mustContain(t, r.text, "written before the unload")
}
