package main

import (
	"os"
	"path/filepath"
	"testing"
)

// A storage root that is a symbolic link (~/.knowledge-graph -> ~/Dropbox/kg;
// docs/operations.md says the root itself may be one) serves end to end on
// every backend: a session starts, writes to both levels are acknowledged and
// are there after a restart, and the files land in the link's target.
func TestSymlinkedRootServes(t *testing.T) {
	forEachBackend(t, func(t *testing.T, storage string) {
		real := filepath.Join(t.TempDir(), "Dropbox", "kg")
		if err := os.MkdirAll(real, 0o700); err != nil {
			t.Fatal(err)
		}
		root := filepath.Join(t.TempDir(), ".knowledge-graph")
		if err := os.Symlink(real, root); err != nil {
			t.Fatal(err)
		}
		project := projectDir(t, "linked-app")
		s := startKG(t, storage, root)
		sid := s.session(project)
		s.putNode(sid, "user", "u-node", "a user insight under a linked root", nil)
		s.putNode(sid, "project", "p-node", "a project insight under a linked root", nil)
		s = s.restart()
		for _, level := range []string{"user", "project"} {
			got := s.ok("kg_read", map[string]any{"cwd": project, "id": level[:1] + "-node", "level": level})
			mustContain(t, got.text, "under a linked root")
		}
		s.stop()
		want := []string{"kg.db"}
		if storage == "json" {
			want = []string{"user.json", "sessions.json", filepath.Join("projects", "linked-app", "graph.json")}
		}
		for _, name := range append(want, ".lock", ".backend") {
			if _, err := os.Lstat(filepath.Join(real, name)); err != nil {
				t.Errorf("%s is not in the link's target: %v", name, err)
			}
		}
		if fi, err := os.Lstat(root); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the root link was replaced: %v, %v", fi, err)
		}
	})
}
