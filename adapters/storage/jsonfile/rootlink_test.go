package jsonfile

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// A root that is a symbolic link (~/.knowledge-graph -> ~/Dropbox/kg) works
// like any root: every save (a first whole-file save, an append, a
// checkpoint), the sessions, the project list, and a reopen through the link
// (docs/design/storage.md#root-and-layout).
func TestSymlinkedRootWorks(t *testing.T) {
	real := filepath.Join(t.TempDir(), "Dropbox", "kg")
	must(t, os.MkdirAll(real, 0o700))
	link := filepath.Join(t.TempDir(), ".knowledge-graph")
	must(t, os.Symlink(real, link))
	ctx := t.Context()
	k := domain.ProjectGraph("/home/dev/app")

	s, err := Open(link, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []domain.GraphKey{domain.UserGraph, k} {
		g := oneNode(t, key, "first")
		if err := s.Commit(ctx, key, g, g.Pending()); err != nil {
			t.Fatalf("first save of the %s graph under a linked root: %v", key, err)
		}
		g.Checkpoint()
		if _, err := g.PutNode(domain.NodeInput{ID: "second", Gist: "appended"}, domain.Stamp{Now: 1716400001_000000}); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(ctx, key, g, g.Pending()); err != nil {
			t.Fatalf("append to the %s graph under a linked root: %v", key, err)
		}
		g.Checkpoint()
		if err := s.Checkpoint(ctx, key, g); err != nil {
			t.Fatalf("checkpoint of the %s graph under a linked root: %v", key, err)
		}
	}
	if err := s.UpdateSessions(ctx, ports.PutSessions(map[string]ports.Session{"a": {ID: "a", Start: 1}})); err != nil {
		t.Fatalf("first sessions save under a linked root: %v", err)
	}
	if err := s.UpdateSessions(ctx, ports.PutSessions(map[string]ports.Session{"a": {ID: "a", Start: 1}, "b": {ID: "b", Start: 2}})); err != nil {
		t.Fatalf("sessions append under a linked root: %v", err)
	}
	if err := s.CheckpointSessions(ctx); err != nil {
		t.Fatalf("sessions checkpoint under a linked root: %v", err)
	}

	for _, name := range []string{"user.json", "sessions.json", "projects/app/graph.json"} {
		if _, err := os.Stat(filepath.Join(real, name)); err != nil {
			t.Errorf("%s is not in the link's target: %v", name, err)
		}
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the root link was replaced: %v, %v", fi, err)
	}

	s2, err := Open(link, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []domain.GraphKey{domain.UserGraph, k} {
		d, err := s2.Load(ctx, key)
		if err != nil || !slices.Equal(nodeIDs(d), []string{"first", "second"}) {
			t.Errorf("reopened through the link, the %s graph = %v, %v", key, nodeIDs(d), err)
		}
	}
	if got, err := s2.LoadSessions(ctx); err != nil || len(got) != 2 {
		t.Errorf("reopened through the link, sessions = %v, %v", got, err)
	}
	if l, err := s2.List(ctx); err != nil || len(l) != 1 || l[0].Key != k {
		t.Errorf("List under a linked root = %v, %v", l, err)
	}
}

// A root link whose target is gone is refused at Open with the root named.
func TestDanglingRootLinkIsRefused(t *testing.T) {
	link := filepath.Join(t.TempDir(), "root")
	must(t, os.Symlink(filepath.Join(t.TempDir(), "gone"), link))
	_, err := Open(link, Options{})
	if domain.KindOf(err) != domain.KindUnavailable || !strings.Contains(err.Error(), link) {
		t.Fatalf("Open of a dangling root link = %v, want unavailable naming %s", err, link)
	}
}

// A save whose folder fsync fails after the rename is refused, and what it
// wrote does not stay in the file: after a restart the refused write is not
// there (no ghost), and the previous version is whole
// (docs/design/storage.md#failed-saves).
func TestFolderSyncFailureAfterRenameLeavesNoGhost(t *testing.T) {
	k := domain.ProjectGraph("/home/dev/app")
	cases := []struct {
		name  string
		key   domain.GraphKey
		file  string // the file written whole, relative to the root
		first bool   // the refused save is the graph's first
	}{
		{"first save of the user graph", domain.UserGraph, "user.json", true},
		{"first save of a project graph", k, "projects/app/graph.json", true},
		{"whole save over an older file", domain.UserGraph, "user.json", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			s, tfs, logs := openTest(t, root)
			ctx := t.Context()
			g := oneNode(t, tc.key, "old")
			if !tc.first {
				if err := s.Commit(ctx, tc.key, g, g.Pending()); err != nil {
					t.Fatal(err)
				}
				g.Checkpoint()
				// The file goes, so the next save writes it whole from
				// the .prev the load falls back to.
				must(t, os.Rename(filepath.Join(root, tc.file), filepath.Join(root, strings.TrimSuffix(tc.file, ".json")+".prev")))
				s, tfs, logs = openTest(t, root)
				if _, err := s.Load(ctx, tc.key); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := g.PutNode(domain.NodeInput{ID: "refused", Gist: "never acknowledged"}, domain.Stamp{Now: 1716400002_000000}); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Dir(tc.file)
			renamed := false
			tfs.mu.Lock()
			tfs.fail = func(op, name string) error {
				if op == "rename" && strings.HasSuffix(name, " -> "+tc.file) {
					renamed = true
				}
				if renamed && op == "fsyncdir" && name == dir {
					return syscall.EIO
				}
				return nil
			}
			tfs.mu.Unlock()
			err := s.Commit(ctx, tc.key, g, g.Pending())
			tfs.setFault(nil)
			if !renamed {
				t.Fatalf("the save never renamed %s: %v", tc.file, tfs.takeOps())
			}
			if domain.KindOf(err) != domain.KindUnavailable || !errors.Is(err, syscall.EIO) {
				t.Fatalf("Commit = %v, want unavailable wrapping EIO", err)
			}
			g.Rollback()

			want := []string{"old"}
			if tc.first {
				want = nil
			}
			s2, err := Open(root, Options{})
			if err != nil {
				t.Fatal(err)
			}
			d, err := s2.Load(ctx, tc.key)
			if err != nil || !slices.Equal(nodeIDs(d), want) {
				t.Errorf("after a restart the graph holds %v (%v), want %v: the refused write is a ghost\n%s", nodeIDs(d), err, want, logs)
			}
			if strings.Contains(logs.String(), "could not be undone") {
				t.Errorf("the undo failed:\n%s", logs)
			}
			if !tc.first {
				if _, err := os.Stat(filepath.Join(root, strings.TrimSuffix(tc.file, ".json")+".prev")); err != nil {
					t.Errorf("the .prev is gone after the undo: %v", err)
				}
			}
		})
	}
}

// The same for the sessions: a first save of sessions.json whose folder
// fsync fails leaves no session behind.
func TestSessionsFolderSyncFailureLeavesNoGhost(t *testing.T) {
	root := t.TempDir()
	s, tfs, _ := openTest(t, root)
	ctx := t.Context()
	renamed := false
	tfs.mu.Lock()
	tfs.fail = func(op, name string) error {
		if op == "rename" && strings.HasSuffix(name, " -> sessions.json") {
			renamed = true
		}
		if renamed && op == "fsyncdir" && name == "." {
			return syscall.EIO
		}
		return nil
	}
	tfs.mu.Unlock()
	err := s.UpdateSessions(ctx, ports.PutSessions(map[string]ports.Session{"a": {ID: "a", Start: 1}}))
	tfs.setFault(nil)
	if !renamed || domain.KindOf(err) != domain.KindUnavailable {
		t.Fatalf("UpdateSessions = %v (renamed %v), want unavailable after the rename", err, renamed)
	}
	s2, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s2.LoadSessions(ctx); err != nil || len(got) != 0 {
		t.Errorf("after a restart the sessions are %v (%v), want none: the refused save is a ghost", got, err)
	}
}

// A checkpoint whose folder fsync fails after the rename puts the old file
// back (and its .prev link): the journal still holds what the new file had,
// and the file matches the journal's base again.
func TestCheckpointFolderSyncFailureRestoresTheOldFile(t *testing.T) {
	root := t.TempDir()
	s, tfs, logs := openTest(t, root)
	ctx := t.Context()
	g := oneNode(t, domain.UserGraph, "old")
	must(t, s.Commit(ctx, domain.UserGraph, g, g.Pending()))
	g.Checkpoint()
	before, err := os.ReadFile(filepath.Join(root, "user.json"))
	must(t, err)
	if _, err := g.PutNode(domain.NodeInput{ID: "new", Gist: "journaled"}, domain.Stamp{Now: 1716400002_000000}); err != nil {
		t.Fatal(err)
	}
	must(t, s.Commit(ctx, domain.UserGraph, g, g.Pending()))
	g.Checkpoint()
	renamed := false
	tfs.mu.Lock()
	tfs.fail = func(op, name string) error {
		renamed = renamed || op == "rename" && name == "user.tmp -> user.json"
		if renamed && op == "fsyncdir" && name == "." {
			return syscall.EIO
		}
		return nil
	}
	tfs.mu.Unlock()
	err = s.Checkpoint(ctx, domain.UserGraph, g)
	tfs.setFault(nil)
	if !renamed || !errors.Is(err, syscall.EIO) {
		t.Fatalf("Checkpoint = %v (renamed %v), want EIO after the rename", err, renamed)
	}
	for _, name := range []string{"user.json", "user.prev"} {
		if got, err := os.ReadFile(filepath.Join(root, name)); err != nil || string(got) != string(before) {
			t.Errorf("%s after the undo is not the old file (%v):\n%s\n%s", name, err, got, logs)
		}
	}
	s2, err := Open(root, Options{})
	must(t, err)
	if d, err := s2.Load(ctx, domain.UserGraph); err != nil || !slices.Equal(nodeIDs(d), []string{"new", "old"}) {
		t.Errorf("after a restart: %v, %v; want the acknowledged [new old]", nodeIDs(d), err)
	}
}

// Release drops everything the store keeps of a graph: the node cache a
// checkpoint fills (half the file's size), what it knows of the journal,
// and the project's folder; the next load and commit read them again.
func TestReleaseDropsTheGraphsState(t *testing.T) {
	root := t.TempDir()
	s, _, _ := openTest(t, root)
	ctx := t.Context()
	g := benchGraph(t, benchKey, 200)
	must(t, s.Commit(ctx, benchKey, g, g.Everything()))
	g.Checkpoint()
	st := s.lockState(s.folderFile("project"))
	cached := cachedNodes(&st.nodes)
	st.mu.Unlock()
	if cached != 200 {
		t.Fatalf("node cache holds %d nodes, want 200", cached)
	}
	s.Release(benchKey)
	s.gmu.Lock()
	states := len(s.graphs)
	s.gmu.Unlock()
	s.mu.Lock()
	folders := len(s.folders)
	s.mu.Unlock()
	if states != 0 || folders != 0 {
		t.Errorf("after Release the store keeps %d graph states and %d folders, want none", states, folders)
	}
	if _, err := g.PutNode(domain.NodeInput{ID: "after", Gist: "a write after the release"}, domain.Stamp{Now: 1716500000_000000}); err != nil {
		t.Fatal(err)
	}
	must(t, s.Commit(ctx, benchKey, g, g.Pending()))
	g.Checkpoint()
	s2, _, _ := openTest(t, root)
	if d, err := s2.Load(ctx, benchKey); err != nil || len(d.Nodes) != 201 {
		t.Errorf("reopened after a release and a write: %d nodes, %v", len(d.Nodes), err)
	}
}
