package migrations_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/migrations"
	"github.com/kg-memory/kg/ports"
)

// TestImportLegacy imports the golden legacy folders into a bolt root and
// compares the result with want.json; a second import must change nothing,
// and the source files must be left as they were.
func TestImportLegacy(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		// before fills the destination before the import.
		before func(t *testing.T, dst migrations.Backend, tmp string)
		// wantChanged is what the first import reports written.
		wantChanged string
	}{
		{
			name:        "fresh",
			before:      func(*testing.T, migrations.Backend, string) {},
			wantChanged: "changed=project:$TMP/projects/app,project:$TMP/projects/lib,sessions,user",
		},
		{
			// The root already has: prefers-tabs at version 2 (kept), a
			// tombstone of old-lesson at version 1 (equal: stays deleted),
			// db-choice of app at version 2 (legacy has 3: replaced), and
			// session a1b2c3d4 (kept as it is).
			name: "merge",
			before: func(t *testing.T, dst migrations.Backend, tmp string) {
				v := func(n, seq uint64) domain.Version {
					return domain.Version{V: n, TS: 1716500000_000000, Session: "kgsess", Seq: seq}
				}
				// A progress task and a _meta key the root has are kept too.
				commitAll(t, dst, domain.UserGraph, domain.GraphData{Schema: 2, Seq: 5,
					Nodes:          []domain.Node{{ID: "prefers-tabs", Gist: "User prefers tabs, edited in kg", Version: v(2, 4)}},
					NodeTombstones: map[string]domain.Tombstone{"old-lesson": {V: 1, TS: 1716500000_000000, Seq: 5}},
					Progress:       map[string]domain.RawJSON{"refactor-auth": domain.RawJSON(`{"step":5}`)},
					Meta:           map[string]domain.RawJSON{"compaction_stats": domain.RawJSON(`{"runs":40}`)}})
				app := domain.ProjectGraph(tmp + "/projects/app")
				commitAll(t, dst, app, domain.GraphData{Schema: 2, Seq: 9, ProjectPath: app.Project,
					Nodes: []domain.Node{{ID: "db-choice", Gist: "MySQL", Version: v(2, 9)}}})
				err := dst.UpdateSessions(ctx, ports.PutSessions(map[string]ports.Session{"a1b2c3d4": {ID: "a1b2c3d4", Start: 1, OpCount: 99,
					Synced: map[domain.GraphKey]uint64{app: 12}}}))
				if err != nil {
					t.Fatal(err)
				}
			},
			wantChanged: "changed=project:$TMP/projects/app,project:$TMP/projects/lib,sessions,user",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			copyTree(t, filepath.Join("testdata", "legacy", c.name, "in"), tmp, tmp)
			before := snapshot(t, tmp)
			dst := openBolt(t, filepath.Join(t.TempDir(), "root"))
			c.before(t, dst, tmp)
			src := migrations.LegacySource{Home: filepath.Join(tmp, "home"), Projects: []string{filepath.Join(tmp, "projects", "lib")}}

			res, err := migrations.ImportLegacy(ctx, src, dst, migrations.Options{})
			if err != nil {
				t.Fatalf("import: %v", err)
			}
			if got := replaceTmp(sortedNames(res), tmp); got != c.wantChanged+" unchanged=" {
				t.Errorf("first import: %s, want %s", got, c.wantChanged)
			}
			// The one _meta key not carried (kg's own seq) is said, not dropped
			// in silence; the progress and the other keys are in want.json.
			if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "user.json: _meta.seq not carried over") {
				t.Errorf("notes %q do not say that _meta.seq was left out", res.Notes)
			}
			first := dump(t, dst, tmp)
			golden(t, filepath.Join("testdata", "legacy", c.name, "want.json"), first)

			res, err = migrations.ImportLegacy(ctx, src, dst, migrations.Options{})
			if err != nil {
				t.Fatalf("second import: %v", err)
			}
			if len(res.Changed) != 0 {
				t.Errorf("second import changed %v", res.Changed)
			}
			if diff := cmp.Diff(string(first), string(dump(t, dst, tmp))); diff != "" {
				t.Errorf("second import changed the root (-first +second):\n%s", diff)
			}
			if diff := cmp.Diff(before, snapshot(t, tmp)); diff != "" {
				t.Errorf("import changed the source (-before +after):\n%s", diff)
			}
		})
	}
}

// commitAll stores d as graph key in b.
func commitAll(t *testing.T, b migrations.Backend, key domain.GraphKey, d domain.GraphData) {
	t.Helper()
	g, notes := domain.Restore(key, d, domain.RestoreOptions{})
	if len(notes) > 0 {
		t.Fatalf("restore: %q", notes)
	}
	if err := b.Commit(context.Background(), key, g, g.Everything()); err != nil {
		t.Fatal(err)
	}
}

func replaceTmp(s, tmp string) string { return strings.ReplaceAll(s, tmp, "$TMP") }

// TestImportLeavesCompleteJSONFiles imports into a json root: the offline step
// folds every journal it wrote into its file, so that at rest the .json files
// hold everything (docs/design/storage.md#checkpoint).
func TestImportLeavesCompleteJSONFiles(t *testing.T) {
	tmp := t.TempDir()
	copyTree(t, filepath.Join("testdata", "legacy", "fresh", "in"), tmp, tmp)
	root := filepath.Join(t.TempDir(), "root")
	dst := openJSON(t, root)
	// A root with a graph and sessions already, so that the import's
	// writes would otherwise go to journals.
	commitAll(t, dst, domain.UserGraph, domain.GraphData{Schema: 2, Seq: 1,
		Nodes: []domain.Node{{ID: "already-there", Gist: "from before", Version: domain.Version{V: 1, Seq: 1}}}})
	if err := dst.UpdateSessions(context.Background(), ports.PutSessions(map[string]ports.Session{"ffff0000ffff0000": {ID: "ffff0000ffff0000", Start: 1}})); err != nil {
		t.Fatal(err)
	}
	src := migrations.LegacySource{Home: filepath.Join(tmp, "home"), Projects: []string{filepath.Join(tmp, "projects", "lib")}}
	if _, err := migrations.ImportLegacy(context.Background(), src, dst, migrations.Options{}); err != nil {
		t.Fatal(err)
	}
	journals, _ := filepath.Glob(filepath.Join(root, "*.journal"))
	more, _ := filepath.Glob(filepath.Join(root, "projects", "*", "*.journal"))
	for _, j := range append(journals, more...) {
		if fi, err := os.Stat(j); err != nil || fi.Size() != 0 {
			t.Errorf("%s holds %v bytes after the import, want none", j, fi.Size())
		}
	}
	user, err := os.ReadFile(filepath.Join(root, "user.json"))
	if err != nil || !strings.Contains(string(user), `"already-there"`) || !strings.Contains(string(user), `"prefers-tabs"`) {
		t.Errorf("user.json lacks the imported or the existing nodes: %v", err)
	}
	sessions, err := os.ReadFile(filepath.Join(root, "sessions.json"))
	if err != nil || !strings.Contains(string(sessions), "ffff0000ffff0000") || !strings.Contains(string(sessions), "a1b2c3d4") {
		t.Errorf("sessions.json lacks the imported or the existing sessions: %v", err)
	}
}
