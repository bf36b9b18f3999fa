package portable

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// sample is a graph's data with an item of every kind: nodes in the three
// tiers with all their times, an edge to a file with notes, an unknown
// time, and a progress state.
func sample() domain.GraphData {
	const t = domain.Micros(1_740_830_400_123_456)
	return domain.GraphData{
		Seq: 40,
		Nodes: []domain.Node{
			{ID: "a", Gist: "first", Notes: []string{"why"}, Touches: []string{"src/a.go"}, Created: t, LastRead: t + 5,
				Version: domain.Version{V: 3, TS: t + 2, Session: "s1", Seq: 30}, Use: domain.Use{Count: 98303, Day: 20148, Known: true}},
			{ID: "b", Gist: "archived one", Tier: domain.Archived, Created: t, TierSeq: 31,
				Version: domain.Version{V: 1, TS: t, Seq: 2}, Use: domain.Use{Count: domain.UseMax, Day: domain.MaxUseDay, Known: true}},
			{ID: "c", Gist: "orphaned one", Tier: domain.Orphaned, OrphanedAt: t + 9,
				Version: domain.Version{V: 1, TS: t, Seq: 3}},
		},
		Edges: []domain.Edge{
			{From: "a", To: "https://x/y", Rel: "cites", Notes: []string{"edge note"}, Version: domain.Version{V: 2, TS: t + 1, Seq: 4}},
			{From: "a", To: "src/auth/refresh.py", Rel: "touches", Version: domain.Version{V: 1, TS: t, Seq: 5}},
		},
		NodeTombstones: map[string]domain.Tombstone{"gone": {V: 2, TS: t, Seq: 6}},
		Progress:       map[string]domain.RawJSON{"task-1": domain.RawJSON(`{"step":2,"done":[1,2]}`)},
	}
}

func TestEncodeGolden(t *testing.T) {
	var buf bytes.Buffer
	key := domain.ProjectGraph("/work/app")
	if err := Encode(&buf, key, domain.Micros(1_740_830_500_000_000), sample()); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "project.json")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), buf.String()); diff != "" {
		t.Errorf("document (-golden +got):\n%s", diff)
	}
}

func TestRoundTripKeepsContentTiersAndTimes(t *testing.T) {
	var buf bytes.Buffer
	in := sample()
	if err := Encode(&buf, domain.UserGraph, 1, in); err != nil {
		t.Fatal(err)
	}
	doc, err := Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Level != domain.LevelUser || doc.ProjectPath != "" {
		t.Errorf("graph = %s %q", doc.Level, doc.ProjectPath)
	}
	// What the document carries: everything but the seqs, sessions, tier
	// seqs and tombstones.
	want := domain.GraphData{Nodes: in.Nodes, Edges: in.Edges, Progress: in.Progress}
	for i := range want.Nodes {
		n := &want.Nodes[i]
		n.Version = domain.Version{V: n.Version.V, TS: n.Version.TS}
		n.TierSeq = 0
	}
	for i := range want.Edges {
		e := &want.Edges[i]
		e.Version = domain.Version{V: e.Version.V, TS: e.Version.TS}
	}
	opts := cmp.Transformer("nilToEmpty", func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	})
	if diff := cmp.Diff(want, doc.Data, opts); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
}

func TestDecodeErrors(t *testing.T) {
	head := `{"format":"kg-graph","version":1,`
	tests := []struct {
		name, doc, field, msg string
	}{
		{"not JSON", `{"format":`, "body", "not valid JSON"},
		{"two values", head + `"nodes":[]} {}`, "body", "more than one JSON value"},
		{"a stray brace after it", head + `"nodes":[]} }`, "body", "text after its object"},
		{"not UTF-8", head + `"nodes":[{"id":"a","gist":"caf` + "\xe9" + `"}]}`, "body", "valid UTF-8"},
		{"no format", `{"version":1}`, "format", "missing"},
		{"other format", `{"format":"neo4j","version":1}`, "format", `"neo4j" is not "kg-graph"`},
		{"no version", `{"format":"kg-graph"}`, "version", "missing"},
		{"newer version", `{"format":"kg-graph","version":2}`, "version", "newer kg"},
		{"bad level", head + `"level":"team"}`, "level", "not one of user, project"},
		{"gist not a string", head + `"nodes":[{"id":"a","gist":"g"},{"id":"b","gist":7}]}`, "nodes[1].gist", "must be a string"},
		{"notes not a list", head + `"nodes":[{"id":"a","gist":"g","notes":"x"}]}`, "nodes[0].notes", "must be a list"},
		{"bad tier", head + `"nodes":[{"id":"a","gist":"g","tier":"frozen"}]}`, "nodes[0].tier", "not one of active"},
		{"negative time", head + `"nodes":[{"id":"a","gist":"g","created_ts":-5}]}`, "nodes[0].created_ts", "not a time"},
		{"orphaned time on an archived node", head + `"nodes":[{"id":"a","gist":"g","tier":"archived","orphaned_ts":5}]}`, "nodes[0].orphaned_ts", "only an orphaned node"},
		{"huge time", head + `"edges":[{"from":"a","to":"b","rel":"r","last_write_ts":1e300}]}`, "edges[0].last_write_ts", "not a time"},
		{"edge not an object", head + `"edges":[[1]]}`, "edges[0]", "must be an object"},
		{"progress not an object", head + `"progress":[1]}`, "progress", "must be an object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(strings.NewReader(tc.doc))
			de, ok := err.(*domain.Error)
			if !ok || de.Kind != domain.KindInvalid || de.Field != tc.field || !strings.Contains(de.Msg, tc.msg) {
				t.Errorf("error = %#v, want invalid %s containing %q", err, tc.field, tc.msg)
			}
		})
	}
}
