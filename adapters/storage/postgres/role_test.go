package postgres_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kg-memory/kg/adapters/storage/postgres"
	"github.com/kg-memory/kg/adapters/storage/postgres/pgtest"
	"github.com/kg-memory/kg/domain"
)

// TestLeastPrivilegeRole: a server whose role may only read and write the
// tables — the role docs/operations.md#team-server tells an operator to
// make — starts on a schema its owner brought up to date, and commits; on a
// database whose schema is behind, it is refused with what to do.
func TestLeastPrivilegeRole(t *testing.T) {
	t.Parallel()
	if !pgtest.Get(t).Managed() {
		t.Skip("skipped: roles are made on the test cluster only (KG_TEST_DATABASE_URL names another server)")
	}
	ctx := context.Background()
	ownerURL := pgtest.Database(t)
	open(t, ownerURL, "owner") // the owner migrates
	conn, err := pgx.Connect(ctx, ownerURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var db string
	if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	role := "app_" + strings.ReplaceAll(db, "-", "_")
	for _, stmt := range []string{
		fmt.Sprintf("CREATE ROLE %s LOGIN", role),
		"REVOKE CREATE ON SCHEMA public FROM PUBLIC",
		fmt.Sprintf("GRANT USAGE ON SCHEMA public TO %s", role),
		fmt.Sprintf("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO %s", role),
		fmt.Sprintf("GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO %s", role),
	} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), ownerURL)
		if err == nil {
			_, _ = c.Exec(context.Background(), "DROP OWNED BY "+role)
			_, _ = c.Exec(context.Background(), "DROP ROLE "+role)
			c.Close(context.Background())
		}
	})
	u, err := url.Parse(ownerURL)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	app, err := postgres.Open(ctx, u.String(), postgres.Options{Logger: quiet, Instance: "app"})
	if err != nil {
		t.Fatalf("a server as %s on an up-to-date schema: %v", role, err)
	}
	defer app.Close()
	k := domain.ProjectGraph("example.com/least/privilege")
	g := domain.NewGraph(k)
	if _, err := g.PutNode(domain.NodeInput{ID: "fact", Gist: "written by a role that cannot change the schema"}, domain.Stamp{Now: domain.Micros(time.Now().UnixMicro())}); err != nil {
		t.Fatal(err)
	}
	if err := app.Commit(ctx, k, g, g.Pending()); err != nil {
		t.Fatalf("a commit as %s: %v", role, err)
	}

	// A schema that is behind is the owner's to bring up to date.
	if _, err := conn.Exec(ctx, "DELETE FROM schema_migrations WHERE version = $1", postgres.SchemaVersion()); err != nil {
		t.Fatal(err)
	}
	_, err = postgres.Open(ctx, u.String(), postgres.Options{Logger: quiet})
	if err == nil || !strings.Contains(err.Error(), "run kg once as the role that owns it") {
		t.Errorf("a server as %s on a schema behind: %v, want a refusal saying the owner migrates", role, err)
	}
}
