package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/kg-memory/kg/adapters/storage/postgres/pgtest"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// TestRemovedProjectIsAGapForOtherServers: once one server removes a
// project, another holding a copy loaded before finds its position gone
// (Heads moves past it, Since and BeginWrite report a gap, so the app loads
// afresh), and a graph of the project stored again continues the
// positions rather than starting over (docs/design/team.md#removing-a-project).
func TestRemovedProjectIsAGapForOtherServers(t *testing.T) {
	t.Parallel()
	url := pgtest.Database(t)
	a, b := open(t, url, "a"), open(t, url, "b")
	ctx := context.Background()
	k := domain.ProjectGraph("github.com/acme/api")
	g := domain.NewGraph(k)
	for i, id := range []string{"one", "two"} {
		if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: "g"}, domain.Stamp{Now: domain.Micros(i + 1)}); err != nil {
			t.Fatal(err)
		}
		if err := a.Commit(ctx, k, g, g.Pending()); err != nil {
			t.Fatal(err)
		}
		g.Checkpoint()
	}
	_, at, err := b.LoadAt(ctx, k)
	if err != nil || at != 2 {
		t.Fatalf("b loads at %d, %v; want 2", at, err)
	}
	if err := a.RemoveProject(ctx, k.Project); err != nil {
		t.Fatal(err)
	}
	heads, err := b.Heads(ctx, []domain.GraphKey{k})
	if err != nil || heads[k] != 3 {
		t.Fatalf("Heads after the removal: %v, %v; want position 3", heads, err)
	}
	if _, err := b.Since(ctx, k, at); !errors.Is(err, ports.ErrLogGap) {
		t.Errorf("Since from the old copy's position: %v, want a log gap", err)
	}
	if _, _, err := b.BeginWrite(ctx, k, at); !errors.Is(err, ports.ErrLogGap) {
		t.Errorf("BeginWrite from the old copy's position: %v, want a log gap", err)
	}
	d, at, err := b.LoadAt(ctx, k)
	if err != nil || len(d.Nodes) != 0 || d.Seq != 2 || at != 3 {
		t.Fatalf("loaded afresh: %d nodes, seq %d, at %d, %v; want no node, the removed graph's seq 2, at 3", len(d.Nodes), d.Seq, at, err)
	}

	// Stored again, from b: the positions continue.
	g2 := domain.NewGraph(k)
	if _, err := g2.PutNode(domain.NodeInput{ID: "back", Gist: "g"}, domain.Stamp{Now: 10}); err != nil {
		t.Fatal(err)
	}
	w, remote, err := b.BeginWrite(ctx, k, at)
	if err != nil || len(remote) != 0 {
		t.Fatalf("BeginWrite at the removal's position: %d batches, %v", len(remote), err)
	}
	next, err := w.Commit(ctx, g2, g2.Pending(), ports.BatchRecord{})
	if err != nil || next != 4 {
		t.Fatalf("the first batch after the removal took position %d, %v; want 4", next, err)
	}
	if _, err := a.Since(ctx, k, 2); !errors.Is(err, ports.ErrLogGap) {
		t.Errorf("Since from before the removal, once stored again: %v, want a log gap", err)
	}
	got, err := a.Since(ctx, k, 3)
	if err != nil || len(got) != 1 || got[0].At != 4 {
		t.Errorf("Since from the removal: %+v, %v; want the one batch at 4", got, err)
	}
}
