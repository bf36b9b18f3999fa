package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kg-memory/kg/adapters/storage/jsonfile"
	"github.com/kg-memory/kg/cmd/kg/internal/doctor"
	"github.com/kg-memory/kg/domain"
)

// A project folder whose graph.json and graph.prev were deleted by hand but
// whose graph.journal holds acknowledged writes is reported by kg doctor,
// with what the server does and how to get the rest back.
func TestDoctorReportsAJournalWithoutItsGraph(t *testing.T) {
	root := t.TempDir()
	s, err := jsonfile.Open(root, jsonfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	k := domain.ProjectGraph("/work/a/api")
	g := domain.NewGraph(k)
	for i, id := range []string{"w1", "w2"} {
		if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: "write " + id}, domain.Stamp{Now: domain.Micros(1716400000_000000 + i)}); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(ctx, k, g, g.Pending()); err != nil {
			t.Fatal(err)
		}
		g.Checkpoint()
	}
	dir := filepath.Join(root, "projects", "api")
	if err := os.Remove(filepath.Join(dir, "graph.json")); err != nil {
		t.Fatal(err)
	}
	_, by := doctorFindings(t, root)
	wantFinding(t, by, filepath.Join("projects", "api", "graph.journal"), doctor.LevelWarn, "graph.json and graph.prev are missing: only the journal is left")
	for _, f := range by[filepath.Join("projects", "api", "graph.journal")] {
		mustContain(t, f.Fix, "restore graph.json from a backup into projects/api")
	}
	// The project is listed (its journal names it) and loads from the
	// journal, without a second finding with the advice for a damaged file.
	wantFinding(t, by, filepath.Join("projects", "api", "graph.json"), doctor.LevelOK, "1 node(s)")
}
