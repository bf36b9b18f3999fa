package migrations_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/migrations"
	"github.com/kg-memory/kg/ports/porttest"
)

// TestCopyJSONBoltJSON copies the golden JSON root (the upgraded schema
// fixture plus rich data) to bolt and back to a fresh JSON root: every
// graph must restore to the same data, the source must be untouched, the
// bolt copy must match testdata/copy/want.json, and a second copy must
// write nothing.
func TestCopyJSONBoltJSON(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	copyTree(t, filepath.Join("testdata", "schema", "want"), src, src)
	js := openJSON(t, src)
	for _, k := range []domain.GraphKey{domain.ProjectGraph("/home/dev/rich"), domain.ProjectGraph("/srv/other/api")} {
		commitAll(t, js, k, porttest.RichData(k.Project))
	}
	before := snapshot(t, src)

	bs := openBolt(t, filepath.Join(t.TempDir(), "bolt"))
	if _, err := migrations.Copy(ctx, js, bs, migrations.Options{}); err != nil {
		t.Fatalf("json → bolt: %v", err)
	}
	golden(t, filepath.Join("testdata", "copy", "want.json"), dump(t, bs, src))

	back := openJSON(t, t.TempDir())
	if _, err := migrations.Copy(ctx, bs, back, migrations.Options{}); err != nil {
		t.Fatalf("bolt → json: %v", err)
	}
	list, err := js.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	keys := []domain.GraphKey{domain.UserGraph}
	for _, sg := range list {
		keys = append(keys, sg.Key)
	}
	if len(keys) != 4 {
		t.Fatalf("source lists %d graphs, want 4", len(keys))
	}
	for _, k := range keys {
		if diff := cmp.Diff(restored(t, js, k), restored(t, back, k)); diff != "" {
			t.Errorf("%s after json → bolt → json (-want +got):\n%s", k, diff)
		}
		if diff := cmp.Diff(restored(t, js, k), restored(t, bs, k)); diff != "" {
			t.Errorf("%s in bolt (-want +got):\n%s", k, diff)
		}
	}
	for _, pair := range []struct {
		name     string
		from, to migrations.Backend
	}{{"sessions json → bolt", js, bs}, {"sessions bolt → json", bs, back}} {
		a, _ := pair.from.LoadSessions(ctx)
		b, _ := pair.to.LoadSessions(ctx)
		if diff := cmp.Diff(a, b); diff != "" {
			t.Errorf("%s (-want +got):\n%s", pair.name, diff)
		}
	}
	if diff := cmp.Diff(before, snapshot(t, src)); diff != "" {
		t.Errorf("copy changed the source (-before +after):\n%s", diff)
	}

	var steps [][2]int
	res, err := migrations.Copy(ctx, js, bs, migrations.Options{Progress: func(done, total int) {
		steps = append(steps, [2]int{done, total})
	}})
	if err != nil {
		t.Fatal(err)
	}
	// Four graphs and the sessions: told before each graph, and at the end.
	if d := cmp.Diff([][2]int{{0, 5}, {1, 5}, {2, 5}, {3, 5}, {4, 5}, {5, 5}}, steps); d != "" {
		t.Errorf("progress (-want +got):\n%s", d)
	}
	if len(res.Changed) != 0 {
		t.Errorf("second copy changed %v", res.Changed)
	}
}

func restored(t *testing.T, b migrations.Backend, k domain.GraphKey) domain.GraphData {
	t.Helper()
	d, err := b.Load(context.Background(), k)
	if err != nil {
		t.Fatalf("load %s: %v", k, err)
	}
	g, _ := domain.Restore(k, d, domain.RestoreOptions{})
	return g.Data()
}
