package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kg-memory/kg/adapters/storage/postgres"
	"github.com/kg-memory/kg/adapters/storage/postgres/pgtest"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// TestChangeLogPruned: the server taking a graph's maintenance lease
// deletes the batches older than the retention but the last kept ones; a
// catch-up from before what is left is a gap (the app then loads afresh),
// from after it is served; young batches and a log kept forever stay whole.
func TestChangeLogPruned(t *testing.T) {
	t.Parallel()
	url := pgtest.Database(t)
	ctx := context.Background()
	open := func(name string, retention time.Duration) *postgres.Store {
		s, err := postgres.Open(ctx, url, postgres.Options{Logger: quiet, Instance: name, ChangesRetention: retention, ChangesKept: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}
	forever, pruner := open("forever", -1), open("pruner", time.Hour)
	k := domain.ProjectGraph("github.com/acme/pruned")
	g := domain.NewGraph(k)
	for i := range 5 {
		if _, err := g.PutNode(domain.NodeInput{ID: "n", Gist: "version " + string(rune('a'+i))}, domain.Stamp{Now: domain.Micros(i + 1)}); err != nil {
			t.Fatal(err)
		}
		if err := forever.Commit(ctx, k, g, g.Pending()); err != nil {
			t.Fatal(err)
		}
		g.Checkpoint()
	}
	revs := func() int {
		var n int
		if err := forever.Pool().QueryRow(ctx, "SELECT count(*) FROM changes").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	lease := func(s *postgres.Store) {
		t.Helper()
		if _, err := s.Pool().Exec(ctx, "UPDATE graphs SET lease_until = NULL"); err != nil {
			t.Fatal(err)
		}
		if ok, err := s.TakeLease(ctx, k, time.Minute); !ok || err != nil {
			t.Fatalf("lease: %v, %v", ok, err)
		}
	}
	lease(pruner)
	if n := revs(); n != 5 {
		t.Errorf("batches younger than the retention were pruned: %d left of 5", n)
	}
	if _, err := forever.Pool().Exec(ctx, "UPDATE changes SET committed_at = now() - interval '2 hours'"); err != nil {
		t.Fatal(err)
	}
	lease(forever)
	if n := revs(); n != 5 {
		t.Errorf("a store keeping the log forever pruned it: %d left of 5", n)
	}
	lease(pruner)
	if n := revs(); n != 2 {
		t.Errorf("after pruning, %d batches left, want the last 2", n)
	}
	if _, err := pruner.Since(ctx, k, 1); !errors.Is(err, ports.ErrLogGap) {
		t.Errorf("catching up from before what is left: %v, want a log gap", err)
	}
	got, err := pruner.Since(ctx, k, 3)
	if err != nil || len(got) != 2 || got[0].At != 4 {
		t.Errorf("catching up from what is left: %d batches, %v; want 4 and 5", len(got), err)
	}
	if d, err := pruner.Load(ctx, k); err != nil || len(d.Nodes) != 1 {
		t.Errorf("the graph after pruning: %v, %v", d.Nodes, err)
	}
}
