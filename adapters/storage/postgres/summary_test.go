package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/kg-memory/kg/adapters/storage/postgres/pgtest"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports/porttest"
)

// TestListSummarisesGraphsStoredBefore: a graph stored before schema 5 has
// no summary; the first listing works it out from the graph, stores it and
// lists it, and the next listing reads it from the row.
func TestListSummarisesGraphsStoredBefore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.Database(t)
	s := open(t, url, "a")
	k := domain.ProjectGraph("/home/dev/older")
	g, _ := domain.Restore(k, porttest.RichData(k.Project), domain.RestoreOptions{})
	if err := s.Commit(ctx, k, g, g.Everything()); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "UPDATE graphs SET summary = NULL"); err != nil {
		t.Fatal(err)
	}

	list, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Summary == nil {
		t.Fatalf("List = %+v, want the graph with its summary", list)
	}
	if got, want := list[0].Summary.Stats, g.Stats(); got != want {
		t.Errorf("summary's counts = %+v, want the graph's %+v", got, want)
	}
	var stored *int
	if err := conn.QueryRow(ctx, "SELECT (summary->>'active')::int FROM graphs WHERE project_key = $1", k.Project).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored == nil || *stored != g.Stats().Active {
		t.Errorf("stored summary's active count = %v, want %d", stored, g.Stats().Active)
	}
}
