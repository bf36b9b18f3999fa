package team

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/kg-memory/kg/adapters/paths"
	"github.com/kg-memory/kg/adapters/storage/jsonfile"
	"github.com/kg-memory/kg/adapters/storage/postgres"
	"github.com/kg-memory/kg/migrations"
	"github.com/kg-memory/kg/ports"
)

// TestMigrateWhileServing: `kg migrate --to postgres --principal dave` runs
// (in process, with a pool of its own) while two servers serve other people;
// their sessions, graphs and tokens are not the migration's, and survive it
// (docs/design/team.md#moving-in): a session started on one server before the
// migration is still served by the other after it, and the database holds
// every session it held before, plus dave's.
func TestMigrateWhileServing(t *testing.T) {
	url, ins := team(t, 2, options{})
	const project = "example.com/team/migrate-live"
	var live []string
	for range 3 {
		live = append(live, ins[0].register(project))
	}
	if code, _ := ins[0].putNode(map[string]any{"session_id": live[0], "level": "project", "project_path": project,
		"id": "before-migrate", "gist": "written before the migration"}); code != 200 {
		t.Fatalf("write before the migration: %d", code)
	}
	conn := db(t, url)
	before := sessionIDs(t, conn)

	root := t.TempDir()
	folder := filepath.Join(t.TempDir(), "daves-project")
	seedRoot(t, root, folder)
	src, err := jsonfile.Open(root, jsonfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := src.UpdateSessions(ctx, ports.SessionChanges{Put: []ports.Session{{ID: "da7eda7eda7eda7e", ProjectPath: folder, Start: 1, LastActivity: 2}}}); err != nil {
		t.Fatal(err)
	}
	dst, err := postgres.Open(ctx, url, postgres.Options{Logger: logger(), Instance: "migrate"})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if _, err := migrations.ToTeam(ctx, src, dst, "dave", paths.OS{}, migrations.Options{}); err != nil {
		t.Fatalf("migrate: %v", err)
	}

	after := sessionIDs(t, conn)
	for id := range before {
		if !after[id] {
			t.Errorf("session %s, stored before the migration, is gone after it", id)
		}
	}
	if !after["da7eda7eda7eda7e"] {
		t.Errorf("the migrated session is not stored: %v", after)
	}
	for _, id := range live {
		if code := ins[1].call("POST", "/api/sync", map[string]any{"session_id": id}, nil); code != 200 {
			t.Errorf("sync of session %s on the other server after the migration: %d, want 200", id, code)
		}
	}
	if _, ok := ins[1].graph(project)["before-migrate"]; !ok {
		t.Error("the node written before the migration is gone")
	}
}

// sessionIDs is the set of session ids the database holds.
func sessionIDs(t *testing.T, c *pgx.Conn) map[string]bool {
	t.Helper()
	rows, err := c.Query(context.Background(), "SELECT id FROM sessions")
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, id := range ids {
		out[id] = true
	}
	return out
}
