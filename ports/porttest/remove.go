package porttest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// RunRemoveProject checks a backend's RemoveProject (`kg project rm`): the
// project's graph is gone, from Load and List, at once and after a reopen;
// a project of the same name keeps its own; removing a project with no
// memory is not_found; and the project can be written again afterwards.
func RunRemoveProject(t *testing.T, b Backend) {
	ctx := context.Background()
	const (
		gone  = "/home/dev/typo/api"
		other = "/srv/other/api" // same name: the slug is shared
	)
	dir := t.TempDir()
	o := b.Open(t, dir)
	remover, ok := o.Graphs.(ports.ProjectRemover)
	if !ok {
		t.Fatalf("%s: the graph repository has no RemoveProject", b.Name)
	}
	pg := projectGraphs{t: t, o: &o}
	commit := func(project string, d domain.GraphData) domain.GraphData {
		t.Helper()
		data := pg.commit(project, d)
		if cp, ok := o.Graphs.(ports.GraphCheckpointer); ok {
			g, _ := domain.Restore(domain.ProjectGraph(project), data, domain.RestoreOptions{})
			if err := cp.Checkpoint(ctx, domain.ProjectGraph(project), g); err != nil {
				t.Fatal(err)
			}
		}
		return data
	}
	load, listed := pg.load, pg.listed

	commit(gone, RichData(gone))
	otherData := commit(other, RichData(other))
	if err := remover.RemoveProject(ctx, gone); err != nil {
		t.Fatalf("RemoveProject: %v", err)
	}
	check := func(when string) {
		t.Helper()
		if got := load(gone); !got.Empty() {
			t.Errorf("%s: the removed project still loads %d nodes", when, len(got.Nodes))
		}
		if d := cmp.Diff(otherData, load(other), dataOpts); d != "" {
			t.Errorf("%s: the other project of the same name (-want +got):\n%s", when, d)
		}
		if d := cmp.Diff(map[string]bool{other: true}, listed()); d != "" {
			t.Errorf("%s: List (-want +got):\n%s", when, d)
		}
	}
	check("after the removal")
	if err := remover.RemoveProject(ctx, gone); domain.KindOf(err) != domain.KindNotFound {
		t.Errorf("removing it again: %v, want not_found", err)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	o = b.Open(t, dir)
	defer o.Close()
	check("after a reopen")
	if err := o.Graphs.(ports.ProjectRemover).RemoveProject(ctx, gone); domain.KindOf(err) != domain.KindNotFound {
		t.Errorf("removing it after a reopen: %v, want not_found", err)
	}

	again := domain.GraphData{Schema: domain.SchemaVersion, ProjectPath: gone, Seq: 1,
		Nodes: []domain.Node{{ID: "back", Gist: "written after the removal", Version: domain.Version{V: 1, TS: 1, Seq: 1}}}}
	want := commit(gone, again)
	if d := cmp.Diff(want, load(gone), dataOpts); d != "" {
		t.Errorf("written again after the removal (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]bool{gone: true, other: true}, listed()); d != "" {
		t.Errorf("List after writing it again (-want +got):\n%s", d)
	}
}
