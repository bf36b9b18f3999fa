package recall

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
)

var updatePreloadGolden = flag.Bool("update-preload-golden", false, "rewrite testdata/preload.golden from this code")

// TestPreloadTextGolden holds the bytes of a preload to a file: the model
// reads them at every session start (docs/design/hooks.md#the-preload), so
// a change to a line's shape must be a reviewed change to the file. The
// example has both graphs, a node marked stale, edges with no, one and two
// notes, and a budget that leaves nodes out.
func TestPreloadTextGolden(t *testing.T) {
	now := domain.Days(400)
	user := preloadGraph(t, domain.UserGraph, 3, now)
	proj := preloadGraph(t, domain.ProjectGraph("/src/my-app"), 6, now)
	stamp := domain.Stamp{Now: now - domain.Days(50)}
	for _, in := range []domain.EdgeInput{
		{From: "n00000", To: "n00002", Rel: "explains", Notes: []string{"one note"}},
		{From: "n00001", To: "n00003", Rel: "requires-init", Notes: []string{"init order matters", "the handler owns the jar"}},
	} {
		if _, err := proj.PutEdge(in, stamp); err != nil {
			t.Fatal(err)
		}
	}
	n, ok := proj.Node("n00004")
	if !ok {
		t.Fatal("no n00004")
	}
	n.Stale = []domain.StaleFile{{Path: "src/auth/refresh.py", Change: domain.FileChanged}}
	var got []byte
	for _, budget := range []int{1500, 500} { // all of it; then nodes left out
		pre, _ := BuildPreload([]PreloadGraph{{Graph: user}, {Graph: proj, Name: "my-app"}}, now, compaction.DefaultPolicy(), budget)
		got = append(got, "--- budget "+strconv.Itoa(budget)+"\n"+pre.Text+"\n"...)
	}
	path := filepath.Join("testdata", "preload.golden")
	if *updatePreloadGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update-preload-golden to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s is stale; review the change and run go test -update-preload-golden\n--- got:\n%s", path, got)
	}
}
