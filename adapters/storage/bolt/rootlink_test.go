package bolt

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// A root that is a symbolic link is the user's choice: kg.db is created in
// its target, written, and opened again through the link (only kg.db itself
// being a link is refused, checkFile).
func TestSymlinkedRoot(t *testing.T) {
	real := filepath.Join(t.TempDir(), "kg")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), ".knowledge-graph")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	s, err := Open(ctx, link, Options{})
	if err != nil {
		t.Fatalf("Open through a root link: %v", err)
	}
	g := domain.NewGraph(domain.UserGraph)
	if _, err := g.PutNode(domain.NodeInput{ID: "a", Gist: "through the link"}, domain.Stamp{Now: 1}); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, domain.UserGraph, g, g.Pending()); err != nil {
		t.Fatalf("Commit through a root link: %v", err)
	}
	if err := s.UpdateSessions(ctx, ports.PutSessions(map[string]ports.Session{"s": {ID: "s", Start: 1}})); err != nil {
		t.Fatalf("UpdateSessions through a root link: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(real, FileName)); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("kg.db is not a file in the link's target: %v, %v", fi, err)
	}
	s, err = Open(ctx, link, Options{})
	if err != nil {
		t.Fatalf("reopen through a root link: %v", err)
	}
	defer s.Close()
	d, err := s.Load(ctx, domain.UserGraph)
	if err != nil || len(d.Nodes) != 1 || d.Nodes[0].Gist != "through the link" {
		t.Errorf("reopened through the link: %+v, %v", d.Nodes, err)
	}
}
