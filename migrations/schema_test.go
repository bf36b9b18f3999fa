package migrations_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/adapters/storage/jsonfile"
	"github.com/kg-memory/kg/migrations"
)

func openJSON(t *testing.T, root string) *jsonfile.Store {
	t.Helper()
	s, err := jsonfile.Open(root, jsonfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// goldenFiles are the files of a root the golden want/ folders hold.
var goldenFiles = []string{"user.json", "projects/api/graph.json", "sessions.json"}

// TestUpgradeSchema upgrades the schema-1 root under testdata/schema/in
// with the JSON backend and compares the files with testdata/schema/want;
// a second run writes nothing.
func TestUpgradeSchema(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	copyTree(t, filepath.Join("testdata", "schema", "in"), root, root)
	s := openJSON(t, root)

	res, err := migrations.UpgradeSchema(ctx, s, migrations.Options{})
	if err != nil {
		t.Fatalf("upgrade: %v", err)
	}
	if got, want := sortedNames(res), "changed=project:/home/dev/api,user unchanged="; got != want {
		t.Errorf("first run: %s, want %s", got, want)
	}
	want := filepath.Join("testdata", "schema", "want")
	for _, f := range goldenFiles {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(want, f)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		golden(t, filepath.Join(want, f), b)
	}

	after := snapshot(t, root)
	res, err = migrations.UpgradeSchema(ctx, openJSON(t, root), migrations.Options{})
	if err != nil {
		t.Fatalf("second upgrade: %v", err)
	}
	if len(res.Changed) != 0 {
		t.Errorf("second run changed %v", res.Changed)
	}
	if diff := cmp.Diff(after, snapshot(t, root)); diff != "" {
		t.Errorf("second run changed files (-first +second):\n%s", diff)
	}
}
