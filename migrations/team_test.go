package migrations_test

import (
	"context"
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
// principal's, the projects keep their keys, the copy is checked, the
// source is unchanged, and a second run writes nothing.
func TestToTeam(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	js := openJSON(t, src)
	proj := domain.ProjectGraph("/home/dev/rich")
	commitAll(t, js, domain.UserGraph, porttest.RichData(""))
	commitAll(t, js, proj, porttest.RichData(proj.Project))
	sess := map[string]ports.Session{"0123456789abcdef": {ID: "0123456789abcdef", ProjectPath: proj.Project, Start: 5, LastActivity: 9,
		Synced: map[domain.GraphKey]uint64{domain.UserGraph: 7, proj: 12}}}
	if err := js.SaveSessions(ctx, sess); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, src)
	team := memory.New()
	res, err := migrations.ToTeam(ctx, js, team, "alice", migrations.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changed) != 3 {
		t.Errorf("changed %v, want the user graph, the project and the sessions", res.Changed)
	}
	for k, want := range map[domain.GraphKey]domain.GraphKey{domain.UserGraphOf("alice"): domain.UserGraph, proj: proj} {
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
	want := map[string]ports.Session{"0123456789abcdef": {ID: "0123456789abcdef", ProjectPath: proj.Project, Principal: "alice", Start: 5, LastActivity: 9,
		Synced: map[domain.GraphKey]uint64{domain.UserGraphOf("alice"): 7, proj: 12}}}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("sessions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, snapshot(t, src)); diff != "" {
		t.Errorf("the source changed:\n%s", diff)
	}
	again, err := migrations.ToTeam(ctx, js, team, "alice", migrations.Options{})
	if err != nil || len(again.Changed) != 0 {
		t.Errorf("second run: changed %v, %v; want nothing", again.Changed, err)
	}
}
