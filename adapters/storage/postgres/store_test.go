package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kg-memory/kg/adapters/storage/postgres"
	"github.com/kg-memory/kg/adapters/storage/postgres/pgtest"
	"github.com/kg-memory/kg/domain"
)

func open(t *testing.T, url, name string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), url, postgres.Options{Logger: quiet, Instance: name})
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestMigratingAtOnce: four servers opening a new database at the same
// moment migrate it once, under the advisory lock.
func TestMigratingAtOnce(t *testing.T) {
	t.Parallel()
	url := pgtest.Database(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			s, err := postgres.Open(context.Background(), url, postgres.Options{Logger: quiet})
			if err == nil {
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("server %d: %v", i, err)
		}
	}
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n, max int
	if err := conn.QueryRow(context.Background(), "SELECT count(*), max(version) FROM schema_migrations").Scan(&n, &max); err != nil {
		t.Fatal(err)
	}
	if n != postgres.SchemaVersion() || max != postgres.SchemaVersion() {
		t.Errorf("schema_migrations: %d rows up to version %d, want one per version up to %d", n, max, postgres.SchemaVersion())
	}
}

// TestNewerSchemaIsRefused: a database migrated by a later kg is not
// written by this one.
func TestNewerSchemaIsRefused(t *testing.T) {
	t.Parallel()
	url := pgtest.Database(t)
	s := open(t, url, "a")
	if _, err := s.Pool().Exec(context.Background(), "INSERT INTO schema_migrations (version, name) VALUES ($1, 'from the future')",
		postgres.SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	_, err := postgres.Open(context.Background(), url, postgres.Options{Logger: quiet})
	if err == nil || domain.KindOf(err) != domain.KindUnavailable {
		t.Fatalf("open on a newer schema: %v, want unavailable", err)
	}
	t.Log(err)
}

// TestLeaseTakenOnce: of several servers asking for a graph's maintenance
// lease at once, one gets it; it renews it; another gets it once it has
// expired.
func TestLeaseTakenOnce(t *testing.T) {
	t.Parallel()
	url := pgtest.Database(t)
	stores := []*postgres.Store{open(t, url, "a"), open(t, url, "b"), open(t, url, "c")}
	ctx := context.Background()
	k := domain.ProjectGraph("/lease/p")
	g := domain.NewGraph(k)
	if _, err := g.PutNode(domain.NodeInput{ID: "n", Gist: "g"}, domain.Stamp{Now: 1}); err != nil {
		t.Fatal(err)
	}
	if err := stores[0].Commit(ctx, k, g, g.Pending()); err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		var wg sync.WaitGroup
		got := make([]bool, len(stores))
		for i, s := range stores {
			wg.Go(func() {
				ok, err := s.TakeLease(ctx, k, time.Minute)
				if err != nil {
					t.Error(err)
				}
				got[i] = ok
			})
		}
		wg.Wait()
		n := 0
		for _, ok := range got {
			if ok {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("round %d: %d servers hold the lease (%v), want 1", round, n, got)
		}
	}
	// Expired: someone takes it again.
	if ok, err := stores[1].TakeLease(ctx, k, time.Millisecond); err != nil {
		t.Fatal(err)
	} else if ok {
		t.Log("b held it")
	}
	if _, err := stores[0].Pool().Exec(ctx, "UPDATE graphs SET lease_until = now() - interval '1 second'"); err != nil {
		t.Fatal(err)
	}
	if ok, err := stores[2].TakeLease(ctx, k, time.Minute); err != nil || !ok {
		t.Errorf("an expired lease was not taken: %v, %v", ok, err)
	}
	if ok, _ := stores[1].TakeLease(ctx, k, time.Minute); ok {
		t.Error("a lease held by c was taken by b")
	}
	never := domain.ProjectGraph("/lease/never")
	if ok, err := stores[0].TakeLease(ctx, never, time.Minute); ok || err != nil {
		t.Errorf("lease of a graph never stored: %v, %v; want none", ok, err)
	}
}
