package migrations_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kg-memory/kg/adapters/storage/memory"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/migrations"
	"github.com/kg-memory/kg/ports"
	"github.com/kg-memory/kg/ports/porttest"
)

// TestToTeam copies a JSON root into a team store (here the memory adapter,
// which stores any key): the user graph and the sessions become the
// principal's, a project goes to its key (its session with it, keeping the
// folder as its root), the copy is checked, the source is unchanged, and a
// second run writes nothing.
func TestToTeam(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	js := openJSON(t, src)
	proj := domain.ProjectGraph("/home/dev/rich")
	commitAll(t, js, domain.UserGraph, porttest.RichData(""))
	commitAll(t, js, proj, porttest.RichData(proj.Project))
	sess := map[string]ports.Session{"0123456789abcdef": {ID: "0123456789abcdef", ProjectPath: proj.Project, Start: 5, LastActivity: 9,
		Synced: map[domain.GraphKey]uint64{domain.UserGraph: 7, proj: 12}}}
	if err := js.UpdateSessions(ctx, ports.PutSessions(sess)); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, src)
	team := memory.New()
	keys := fixedKeys{proj.Project: "github.com/dev/rich"}
	shared := domain.ProjectGraph("github.com/dev/rich")
	res, err := migrations.ToTeam(ctx, js, team, "alice", keys, migrations.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changed) != 3 {
		t.Errorf("changed %v, want the user graph, the project and the sessions", res.Changed)
	}
	for k, want := range map[domain.GraphKey]domain.GraphKey{domain.UserGraphOf("alice"): domain.UserGraph, shared: proj} {
		got, err := team.Load(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := js.Load(ctx, want)
		if len(got.Nodes) != len(w.Nodes) || len(got.Nodes) == 0 {
			t.Errorf("%s: %d nodes, want %d", k, len(got.Nodes), len(w.Nodes))
		}
	}
	if d, _ := team.Load(ctx, domain.UserGraph); len(d.Nodes) != 0 {
		t.Errorf("the root's user graph went to nobody's user graph too: %d nodes", len(d.Nodes))
	}
	got, err := team.LoadSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]ports.Session{"0123456789abcdef": {ID: "0123456789abcdef", ProjectPath: shared.Project, Root: proj.Project, Principal: "alice", Start: 5, LastActivity: 9,
		Synced: map[domain.GraphKey]uint64{domain.UserGraphOf("alice"): 7, shared: 12}}}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("sessions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, snapshot(t, src)); diff != "" {
		t.Errorf("the source changed:\n%s", diff)
	}
	if d, _ := team.Load(ctx, proj); len(d.Nodes) != 0 {
		t.Errorf("the project was stored under its path too: %d nodes", len(d.Nodes))
	}
	again, err := migrations.ToTeam(ctx, js, team, "alice", keys, migrations.Options{})
	if err != nil || len(again.Changed) != 0 {
		t.Errorf("second run: changed %v, %v; want nothing", again.Changed, err)
	}
}

// fixedKeys is ports.ProjectKeys from a table; a folder not in it has no key.
type fixedKeys map[string]string

func (f fixedKeys) ProjectKey(root string) (string, bool, error) {
	k, ok := f[root]
	return k, ok, nil
}

// TestToTeamKeys: a project with no key becomes a private project of the
// principal, and two projects of the root with one key are refused before
// anything is copied.
func TestToTeamKeys(t *testing.T) {
	ctx := context.Background()
	js := openJSON(t, t.TempDir())
	a, b := domain.ProjectGraph("/home/dev/api"), domain.ProjectGraph("/home/dev/api-copy")
	commitAll(t, js, a, porttest.RichData(a.Project))
	team := memory.New()
	if _, err := migrations.ToTeam(ctx, js, team, "alice", fixedKeys{}, migrations.Options{}); err != nil {
		t.Fatal(err)
	}
	if d, _ := team.Load(ctx, domain.ProjectGraph("private/alice/home/dev/api")); len(d.Nodes) == 0 {
		t.Error("a project with no key is not alice's private project")
	}
	commitAll(t, js, b, porttest.RichData(b.Project))
	fresh := memory.New()
	_, err := migrations.ToTeam(ctx, js, fresh, "alice", fixedKeys{a.Project: "github.com/dev/api", b.Project: "github.com/dev/api"}, migrations.Options{})
	if domain.KindOf(err) != domain.KindInvalid || !strings.Contains(err.Error(), "both have the key github.com/dev/api") {
		t.Errorf("two projects with one key: %v, want a refusal naming the key", err)
	}
	if list, _ := fresh.List(ctx); len(list) != 0 {
		t.Errorf("the refused migration stored %v", list)
	}
}
