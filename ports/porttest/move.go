package porttest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
)

// ProjectMover is what `kg project mv` needs of a backend beyond the ports:
// giving one project's stored memory to another project path.
type ProjectMover interface {
	MoveProject(ctx context.Context, from, to string) error
}

// RunMoveProject checks a backend's MoveProject: the graph arrives whole
// under the new path (and after a reopen), the old path has none, a
// project of the same name keeps its own, and a move from a project with
// no memory, or onto one that has memory, changes nothing.
func RunMoveProject(t *testing.T, b Backend) {
	ctx := context.Background()
	const (
		from  = "/home/dev/old/api"
		to    = "/home/dev/new/api"
		other = "/srv/other/api" // same name: the slug is shared
	)
	dir := t.TempDir()
	o := b.Open(t, dir)
	mover, ok := o.Graphs.(ProjectMover)
	if !ok {
		t.Fatalf("%s: the graph repository has no MoveProject", b.Name)
	}
	pg := projectGraphs{t: t, o: &o}
	commit := func(project string) domain.GraphData { return pg.commit(project, RichData(project)) }
	load, listed := pg.load, pg.listed

	want := commit(from)
	otherData := commit(other)
	if err := mover.MoveProject(ctx, "/nowhere/x", to); domain.KindOf(err) != domain.KindNotFound {
		t.Errorf("move of a project without memory: %v, want not_found", err)
	}
	if err := mover.MoveProject(ctx, from, other); domain.KindOf(err) != domain.KindConflict {
		t.Errorf("move onto a project with memory: %v, want conflict", err)
	}
	if d := cmp.Diff(want, load(from)); d != "" {
		t.Errorf("a refused move changed the graph (-want +got):\n%s", d)
	}

	if err := mover.MoveProject(ctx, from, to); err != nil {
		t.Fatalf("MoveProject: %v", err)
	}
	want.ProjectPath = to
	check := func(when string) {
		t.Helper()
		if d := cmp.Diff(want, load(to)); d != "" {
			t.Errorf("%s: the moved graph (-want +got):\n%s", when, d)
		}
		if d := cmp.Diff(otherData, load(other)); d != "" {
			t.Errorf("%s: the other project with the same name (-want +got):\n%s", when, d)
		}
		if got := load(from); !got.Empty() {
			t.Errorf("%s: the old path still has a graph of %d nodes", when, len(got.Nodes))
		}
		if d := cmp.Diff(map[string]bool{to: true, other: true}, listed()); d != "" {
			t.Errorf("%s: List (-want +got):\n%s", when, d)
		}
	}
	check("after the move")
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	o = b.Open(t, dir) // pg sees the reopened instance
	defer o.Close()
	check("after a reopen")
}

// projectGraphs are the steps the project suites share, on the open
// instance *o (a reopen replaces it).
type projectGraphs struct {
	t *testing.T
	o *Opened
}

// commit stores d whole as the graph of project and returns it restored.
func (p projectGraphs) commit(project string, d domain.GraphData) domain.GraphData {
	p.t.Helper()
	k := domain.ProjectGraph(project)
	g, _ := domain.Restore(k, d, domain.RestoreOptions{})
	if err := p.o.Graphs.Commit(context.Background(), k, g, g.Everything()); err != nil {
		p.t.Fatal(err)
	}
	return g.Data()
}

// load returns the graph of project, restored.
func (p projectGraphs) load(project string) domain.GraphData {
	p.t.Helper()
	d, err := p.o.Graphs.Load(context.Background(), domain.ProjectGraph(project))
	if err != nil {
		p.t.Fatalf("load %s: %v", project, err)
	}
	g, _ := domain.Restore(domain.ProjectGraph(project), d, domain.RestoreOptions{})
	return g.Data()
}

// listed returns the projects List names.
func (p projectGraphs) listed() map[string]bool {
	p.t.Helper()
	list, err := p.o.Graphs.List(context.Background())
	if err != nil {
		p.t.Fatal(err)
	}
	m := map[string]bool{}
	for _, sg := range list {
		m[sg.Key.Project] = true
	}
	return m
}
