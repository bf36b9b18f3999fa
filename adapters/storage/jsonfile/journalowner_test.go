package jsonfile

import (
	"github.com/kg-memory/kg/adapters/storage/record"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
)

// journalOnly saves three writes of project p (the first whole, the other
// two in the journal), then removes the graph file and its .prev, as a
// person cleaning up by hand might: only graph.journal is left, holding
// acknowledged writes. It returns the folder.
func journalOnly(t *testing.T, root, p string) string {
	t.Helper()
	s, _, _ := openTest(t, root)
	k := domain.ProjectGraph(p)
	g := oneNode(t, k, "w1")
	must(t, s.Commit(t.Context(), k, g, g.Pending()))
	g.Checkpoint()
	for _, id := range []string{"w2", "w3"} {
		if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: "journaled " + id}, domain.Stamp{Now: 1716400001_000000}); err != nil {
			t.Fatal(err)
		}
		must(t, s.Commit(t.Context(), k, g, g.Pending()))
		g.Checkpoint()
	}
	l, err := s.List(t.Context())
	if err != nil || len(l) != 1 {
		t.Fatalf("List = %v, %v", l, err)
	}
	dir := filepath.Join(root, "projects", l[0].Slug)
	for _, name := range []string{"graph.json", "graph.prev"} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "graph.journal")); err != nil || fi.Size() == 0 {
		t.Fatalf("no journal left in %s: %v", dir, err)
	}
	return dir
}

// A folder left with only its journal still belongs to the project whose
// writes it holds (the records name it): another project with the same last
// path element gets a folder of its own and never sees those writes, and the
// owner is served them (docs/design/storage.md#folder-lookup).
func TestJournalOnlyFolderKeepsItsOwner(t *testing.T) {
	root := t.TempDir()
	journalOnly(t, root, "/work/a/api")
	s, _, logs := openTest(t, root)
	ctx := t.Context()
	other := domain.ProjectGraph("/work/b/api")

	d, err := s.Load(ctx, other)
	if err != nil || len(d.Nodes) != 0 {
		t.Fatalf("another project named api loads %v, %v; want an empty graph, not the first project's journal", nodeIDs(d), err)
	}
	g := oneNode(t, other, "b1")
	must(t, s.Commit(ctx, other, g, g.Pending()))
	if _, err := os.Stat(filepath.Join(root, "projects", "api-"+record.ProjectHash(other.Project), "graph.json")); err != nil {
		t.Errorf("the other project was not given api-<hash>: %v", err)
	}

	d, err = s.Load(ctx, domain.ProjectGraph("/work/a/api"))
	if err != nil || !slices.Equal(nodeIDs(d), []string{"w2", "w3"}) {
		t.Errorf("the owner loads %v, %v; want the journal's writes [w2 w3]", nodeIDs(d), err)
	}
	if !strings.Contains(logs.String(), "rebuilt from its journal alone") || !strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("loading from the journal alone was not logged as an error:\n%s", logs)
	}
	l, err := s.List(ctx)
	if err != nil || len(l) != 2 || l[0].Key.Project != "/work/a/api" || l[0].Slug != "api" || l[1].Key != other {
		t.Errorf("List = %v, %v; want api owned by /work/a/api and the other project's folder", l, err)
	}
}

// A project whose folder is its slug (not its raw name) finds that folder
// by its journal, instead of getting a new <slug>-<hash> folder that never
// reads the journal; its next write lands there, written whole.
func TestJournalOnlySlugFolderIsFound(t *testing.T) {
	root := t.TempDir()
	p := "/home/dev/My App"
	dir := journalOnly(t, root, p)
	if filepath.Base(dir) != "My-App" {
		t.Fatalf("folder %s, want the slug My-App", dir)
	}
	s, _, _ := openTest(t, root)
	ctx := t.Context()
	k := domain.ProjectGraph(p)
	d, err := s.Load(ctx, k)
	if err != nil || !slices.Equal(nodeIDs(d), []string{"w2", "w3"}) {
		t.Fatalf("load = %v, %v; want the journal's writes [w2 w3]", nodeIDs(d), err)
	}
	g, _ := domain.Restore(k, d, domain.RestoreOptions{})
	if _, err := g.PutNode(domain.NodeInput{ID: "w4", Gist: "after"}, domain.Stamp{Now: 1716400002_000000}); err != nil {
		t.Fatal(err)
	}
	must(t, s.Commit(ctx, k, g, g.Pending()))
	entries, _ := os.ReadDir(filepath.Join(root, "projects"))
	if len(entries) != 1 {
		t.Errorf("projects/ holds %d folders, want only My-App", len(entries))
	}
	s2, _, _ := openTest(t, root)
	if d, err := s2.Load(ctx, k); err != nil || !slices.Equal(nodeIDs(d), []string{"w2", "w3", "w4"}) {
		t.Errorf("after a write and a reopen: %v, %v", nodeIDs(d), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "graph.json")); err != nil {
		t.Errorf("the next write did not write graph.json whole: %v", err)
	}
}

// The owner of a journal is its latest record's project; a journal of an
// older kg names it only in "meta", and one whose records name no project
// leaves the owner unknown, so its folder is unavailable rather than
// guessed.
func TestJournalOwner(t *testing.T) {
	rec := func(payload string) []byte { return frameRecord(nil, []byte(payload)) }
	cat := func(rs ...[]byte) []byte { return slices.Concat(rs...) }
	for _, tc := range []struct {
		name    string
		journal []byte
		owner   string
		records bool
	}{
		{"none", nil, "", false},
		{"every record names it", cat(rec(`{"seq":[1,2],"project_path":"/p/a","meta":{"seq":2,"project_path":"/p/a","unknown":{}}}`),
			rec(`{"seq":[2,2],"project_path":"/p/a","nodes":{}}`)), "/p/a", true},
		{"only meta names it (an older kg)", cat(rec(`{"seq":[1,2],"meta":{"seq":2,"project_path":"/old/a","unknown":{}}}`),
			rec(`{"seq":[2,2],"nodes":{}}`)), "/old/a", true},
		{"no record names it", rec(`{"seq":[2,2],"nodes":{}}`), "", true},
		{"damaged after a record that names it", cat(rec(`{"seq":[1,2],"project_path":"/p/a"}`), []byte("garbage\n")), "/p/a", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			owner, records := journalOwner(tc.journal)
			if owner != tc.owner || records != tc.records {
				t.Errorf("journalOwner = %q, %v; want %q, %v", owner, records, tc.owner, tc.records)
			}
		})
	}

	root := t.TempDir()
	dir := filepath.Join(root, "projects", "api")
	must(t, os.MkdirAll(dir, 0o700))
	must(t, os.WriteFile(filepath.Join(dir, "graph.journal"), rec(`{"seq":[2,2],"nodes":{}}`), 0o600))
	s, _, _ := openTest(t, root)
	_, err := s.Load(t.Context(), domain.ProjectGraph("/work/api"))
	if domain.KindOf(err) != domain.KindUnavailable || !strings.Contains(err.Error(), "cannot tell which project owns") {
		t.Errorf("load next to a journal naming no project = %v, want unavailable", err)
	}
}
