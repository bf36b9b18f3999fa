package jsonfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kg-memory/kg/adapters/storage/jsonfile/codec"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// TestDamagedSessionsStartWithNone checks that sessions that cannot be
// loaded for what the files hold do not stop the store: the damaged files
// are kept as .corrupt-<unix time>, an error with a hint is logged, the
// store starts with no sessions, and the next save writes sessions.json
// whole.
func TestDamagedSessionsStartWithNone(t *testing.T) {
	one := map[string]ports.Session{"aaaa0000aaaa0000": {ID: "aaaa0000aaaa0000", Start: 1716400000_000000, LastActivity: 1716400000_000000}}
	two := map[string]ports.Session{"aaaa0000aaaa0000": one["aaaa0000aaaa0000"],
		"bbbb0000bbbb0000": {ID: "bbbb0000bbbb0000", Start: 1716400001_000000, LastActivity: 1716400001_000000}}
	three := map[string]ports.Session{"bbbb0000bbbb0000": two["bbbb0000bbbb0000"]}
	tests := []struct {
		name   string
		damage func(t *testing.T, root string)
		kept   []string // names of the .corrupt copies, by prefix
	}{
		{"sessions.json without a .prev", func(t *testing.T, root string) {
			must(t, os.WriteFile(filepath.Join(root, "sessions.json"), []byte(`{"aaaa0000aaaa0000": {"start_ts": "yesterday"`), 0o600))
			must(t, os.Remove(filepath.Join(root, "sessions.journal")))
		}, []string{"sessions.corrupt-"}},
		{"sessions.json and its .prev", func(t *testing.T, root string) {
			must(t, os.WriteFile(filepath.Join(root, "sessions.json"), []byte(`[`), 0o600))
			must(t, os.WriteFile(filepath.Join(root, "sessions.prev"), []byte(`{"x": 3}`), 0o600))
		}, []string{"sessions.corrupt-", "sessions.journal.corrupt-"}},
		{"a bad record followed by a good one in sessions.journal", func(t *testing.T, root string) {
			p := filepath.Join(root, "sessions.journal")
			b, err := os.ReadFile(p)
			must(t, err)
			recs := bytes.SplitAfter(b, []byte("\n"))
			if len(recs) < 3 {
				t.Fatalf("journal holds %d records, want 2", len(recs)-1)
			}
			recs[0] = bytes.Replace(recs[0], []byte("bbbb0000bbbb0000"), []byte("cccc0000cccc0000"), 1)
			must(t, os.WriteFile(p, bytes.Join(recs, nil), 0o600))
		}, []string{"sessions.journal.corrupt-"}},
		{"a whole last record failing its checksum in sessions.journal", func(t *testing.T, root string) {
			p := filepath.Join(root, "sessions.journal")
			b, err := os.ReadFile(p)
			must(t, err)
			recs := bytes.SplitAfter(b, []byte("\n"))
			last := len(recs) - 2 // the one before the empty tail
			recs[last] = bytes.Replace(recs[last], []byte(`"aaaa0000aaaa0000":null`), []byte(`"aaaa0000aaaa000f":null`), 1)
			must(t, os.WriteFile(p, bytes.Join(recs, nil), 0o600))
		}, []string{"sessions.journal.corrupt-"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			s, _, _ := openTest(t, root)
			ctx := t.Context()
			for _, ch := range []ports.SessionChanges{ports.PutSessions(one), {Put: []ports.Session{two["bbbb0000bbbb0000"]}}, {Delete: []string{"aaaa0000aaaa0000"}}} {
				must(t, s.UpdateSessions(ctx, ch))
			}
			tc.damage(t, root)

			s, _, logs := openTest(t, root)
			got, err := s.LoadSessions(ctx)
			if err != nil || len(got) != 0 {
				t.Fatalf("LoadSessions = %v, %v; want none and no error", got, err)
			}
			for _, prefix := range tc.kept {
				if kept, _ := filepath.Glob(filepath.Join(root, prefix+"*")); len(kept) != 1 {
					t.Errorf("kept copies %s*: %q, want one", prefix, kept)
				}
			}
			if !strings.Contains(logs.String(), "starting with none") || !strings.Contains(logs.String(), "kg_read") {
				t.Errorf("no error with a hint logged:\n%s", logs)
			}
			// New sessions are saved and read back, without the old ones.
			must(t, s.UpdateSessions(ctx, ports.PutSessions(three)))
			s, _, _ = openTest(t, root)
			if got, err := s.LoadSessions(ctx); err != nil || len(got) != 1 || got["bbbb0000bbbb0000"].Start != 1716400001_000000 {
				t.Errorf("after a new save: %v, %v", got, err)
			}
		})
	}
}

// TestVanishedFoldersAreWrittenAgain deletes projects/ (or one project's
// folder, or a graph's file) while the store runs: the next commit of a
// loaded graph recreates and fsyncs the folders it needs, claims the
// folder again and writes the graph whole.
func TestVanishedFoldersAreWrittenAgain(t *testing.T) {
	cases := []struct {
		gone string
		// reread: the store has only read the journal when it goes (a
		// restart), rather than appended to it.
		reread bool
	}{{"projects", false}, {"projects/app", false}, {"projects/app/graph.json", false},
		{"projects/app/graph.journal", false}, {"projects/app/graph.journal", true}}
	for _, tc := range cases {
		gone := tc.gone
		t.Run(fmt.Sprintf("%s/reread=%v", gone, tc.reread), func(t *testing.T) {
			root := t.TempDir()
			s, tfs, _ := openTest(t, root)
			ctx := t.Context()
			k := domain.ProjectGraph("/home/dev/app")
			g := oneNode(t, k, "first")
			for _, id := range []string{"second", "third"} {
				must(t, s.Commit(ctx, k, g, g.Pending()))
				g.Checkpoint()
				if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: "gist of " + id}, domain.Stamp{Now: 1716400001_000000}); err != nil {
					t.Fatal(err)
				}
			}
			if tc.reread {
				s, tfs, _ = openTest(t, root)
				if _, err := s.Load(ctx, k); err != nil {
					t.Fatal(err)
				}
			}
			must(t, os.RemoveAll(filepath.Join(root, gone)))
			tfs.takeOps()
			if err := s.Commit(ctx, k, g, g.Pending()); err != nil {
				t.Fatalf("commit after %s vanished: %v", gone, err)
			}
			g.Checkpoint()
			ops := tfs.takeOps()
			if gone == "projects" && !slices.Contains(ops, "fsyncdir .") {
				t.Errorf("the recreated projects/ was not fsynced into the root: %q", ops)
			}
			s2, _, _ := openTest(t, root)
			d, err := s2.Load(ctx, k)
			if err != nil || !slices.Equal(nodeIDs(d), []string{"first", "second", "third"}) {
				t.Errorf("reopened: %v, %v; want every node", nodeIDs(d), err)
			}
			if list, err := s2.List(ctx); err != nil || len(list) != 1 || list[0].Key != k {
				t.Errorf("List = %+v, %v; want the project, its folder claimed again", list, err)
			}
		})
	}
}

// TestSymlinksAreRefused plants symbolic links inside the root, each
// pointing at a folder or file outside it: every read and write that would
// go through one is refused with an unavailable error naming the link, and
// nothing outside the root is read or written.
func TestSymlinksAreRefused(t *testing.T) {
	k := domain.ProjectGraph("/home/dev/app")
	tests := []struct {
		name string
		link string // relative to the root
		dir  bool   // the link points at a folder
		// what fails: "load", "commit", "list", "sessions"
		fails []string
	}{
		{"projects/ itself", "projects", true, []string{"load", "commit", "list"}},
		{"a project folder", "projects/app", true, []string{"load", "commit"}},
		{"a graph file", "projects/app/graph.json", false, []string{"load", "commit"}},
		{"a graph journal", "projects/app/graph.journal", false, []string{"load", "commit"}},
		{"aliases.json", "aliases.json", false, []string{"load", "commit"}},
		{"user.json", "user.json", false, []string{"load user", "commit user"}},
		{"sessions.json", "sessions.json", false, []string{"sessions"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, outside := t.TempDir(), t.TempDir()
			// The target holds a graph and files, as an attacker would
			// leave them, and must not change.
			target := filepath.Join(outside, "target")
			if tc.dir {
				must(t, os.MkdirAll(filepath.Join(target, "app"), 0o700))
				must(t, os.WriteFile(filepath.Join(target, "graph.json"), codec.EncodeGraph(domain.GraphData{ProjectPath: k.Project}), 0o600))
				must(t, os.WriteFile(filepath.Join(target, "app", "graph.json"), codec.EncodeGraph(domain.GraphData{ProjectPath: k.Project}), 0o600))
			} else {
				must(t, os.WriteFile(target, []byte(`{}`), 0o600))
			}
			before := treeOf(t, outside)
			link := filepath.Join(root, tc.link)
			must(t, os.MkdirAll(filepath.Dir(link), 0o700))
			must(t, os.Symlink(target, link))

			s, _, _ := openTest(t, root)
			ctx := t.Context()
			check := func(what string, err error) {
				t.Helper()
				want := slices.Contains(tc.fails, what) || slices.Contains(tc.fails, strings.TrimSuffix(what, " user"))
				if !want {
					return
				}
				if domain.KindOf(err) != domain.KindUnavailable || !strings.Contains(err.Error(), link) || !strings.Contains(err.Error(), "symbolic link") {
					t.Errorf("%s = %v; want unavailable naming the link %s", what, err, link)
				}
			}
			if strings.HasPrefix(tc.name, "user") {
				_, err := s.Load(ctx, domain.UserGraph)
				check("load user", err)
				g := oneNode(t, domain.UserGraph, "n")
				check("commit user", s.Commit(ctx, domain.UserGraph, g, g.Pending()))
			} else if tc.name != "sessions.json" {
				_, err := s.Load(ctx, k)
				check("load", err)
				g := oneNode(t, k, "n")
				check("commit", s.Commit(ctx, k, g, g.Pending()))
				_, err = s.List(ctx)
				check("list", err)
			} else {
				_, err := s.LoadSessions(ctx)
				check("sessions", err)
				check("sessions", s.UpdateSessions(ctx, ports.PutSessions(map[string]ports.Session{"a": {ID: "a"}})))
			}
			if after := treeOf(t, outside); !maps2Equal(before, after) {
				t.Errorf("the store touched the link's target outside the root:\nbefore %v\nafter  %v", before, after)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the link was replaced: %v, %v", fi, err)
			}
		})
	}
}

// An alias whose old folder is a link is not followed: nothing moves.
func TestAliasFromALinkedFolderIsNotFollowed(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	k := domain.ProjectGraph("/home/dev/new-name")
	must(t, os.WriteFile(filepath.Join(outside, "graph.json"), codec.EncodeGraph(domain.GraphData{ProjectPath: "/elsewhere/old-name",
		Nodes: []domain.Node{{ID: "theirs", Gist: "outside the root"}}}), 0o600))
	before := treeOf(t, outside)
	must(t, os.MkdirAll(filepath.Join(root, "projects"), 0o700))
	must(t, os.Symlink(outside, filepath.Join(root, "projects", "old-name")))
	must(t, os.WriteFile(filepath.Join(root, "aliases.json"), []byte(`{"old-name": "new-name"}`), 0o600))
	s, _, _ := openTest(t, root)
	d, err := s.Load(t.Context(), k)
	if err != nil || len(d.Nodes) != 0 {
		t.Errorf("load = %v, %v; want an empty graph, the linked folder not taken over", nodeIDs(d), err)
	}
	if after := treeOf(t, outside); !maps2Equal(before, after) {
		t.Error("the alias moved or changed the linked folder's content")
	}
	if fi, err := os.Lstat(filepath.Join(root, "projects", "old-name")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was moved: %v, %v", fi, err)
	}
}

// treeOf maps every file under dir to its content.
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func maps2Equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestVanishedSessionsJournalIsWrittenAgain deletes sessions.journal while
// it holds records: the next save writes sessions.json whole, so no session
// saved before is lost.
func TestVanishedSessionsJournalIsWrittenAgain(t *testing.T) {
	for _, reread := range []bool{false, true} {
		t.Run(fmt.Sprintf("reread=%v", reread), func(t *testing.T) {
			root := t.TempDir()
			s, _, _ := openTest(t, root)
			ctx := t.Context()
			set := map[string]ports.Session{}
			for i := range 3 {
				id := fmt.Sprintf("%016x", i)
				set[id] = ports.Session{ID: id, Start: 1716400000_000000 + domain.Micros(i)}
				must(t, s.UpdateSessions(ctx, ports.PutSessions(set)))
			}
			if reread {
				s, _, _ = openTest(t, root)
				if _, err := s.LoadSessions(ctx); err != nil {
					t.Fatal(err)
				}
			}
			must(t, os.Remove(filepath.Join(root, "sessions.journal")))
			set["ffffffffffffffff"] = ports.Session{ID: "ffffffffffffffff", Start: 1716400009_000000}
			must(t, s.UpdateSessions(ctx, ports.PutSessions(set)))
			s2, _, _ := openTest(t, root)
			got, err := s2.LoadSessions(ctx)
			if err != nil || len(got) != 4 {
				t.Errorf("sessions after the journal vanished: %d, %v; want all 4", len(got), err)
			}
		})
	}
}
