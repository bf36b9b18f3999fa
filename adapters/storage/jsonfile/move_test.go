package jsonfile

import (
	"context"
	"github.com/kg-memory/kg/adapters/storage/record"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports/porttest"
)

// A move that a crash cut between the folder's rename and the save (the
// folder has its new name, its graph still names the old path) is finished
// by running the move again, and nothing is lost.
func TestMoveProjectAfterAnInterruptedMove(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	const from, to = "/home/dev/old/app", "/home/dev/new/web"
	s, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := domain.ProjectGraph(from)
	g, _ := domain.Restore(k, porttest.RichData(from), domain.RestoreOptions{})
	if err := s.Commit(ctx, k, g, g.Everything()); err != nil {
		t.Fatal(err)
	}
	want := g.Data()
	want.ProjectPath = to

	// The crash: renamed, not saved.
	projects := filepath.Join(root, "projects")
	if err := os.Rename(filepath.Join(projects, "app"), filepath.Join(projects, "web")); err != nil {
		t.Fatal(err)
	}
	s, err = Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.MoveProject(ctx, from, to); err != nil {
		t.Fatalf("MoveProject after the crash: %v", err)
	}
	s, err = Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Load(ctx, domain.ProjectGraph(to))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := domain.Restore(domain.ProjectGraph(to), d, domain.RestoreOptions{})
	if diff := cmp.Diff(want, got.Data()); diff != "" {
		t.Errorf("moved graph (-want +got):\n%s", diff)
	}
	list, err := s.List(ctx)
	if err != nil || len(list) != 1 || list[0].Key.Project != to || list[0].Slug != "web-"+record.ProjectHash(to) {
		t.Errorf("List = %+v, %v; want only %s in web-%s", list, err, to, record.ProjectHash(to))
	}
}
