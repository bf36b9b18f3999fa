package importing

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/internal/graphtest"
)

// importSource is a graph with every kind of item: nodes in the three
// tiers, an edge between nodes, an edge to a file, and a progress state.
func importSource(t *testing.T) *domain.Graph {
	t.Helper()
	g := domain.NewGraph(domain.ProjectGraph("/src"))
	graphtest.PutAt(t, g, graphtest.At(100, "s1"), "a", "first", []string{"why"}, []string{"a.go"})
	graphtest.PutAt(t, g, graphtest.At(200, "s1"), "b", "second", nil, nil)
	graphtest.PutAt(t, g, graphtest.At(300, "s1"), "c", "third", nil, nil)
	graphtest.Edge(t, g, graphtest.At(400, "s1"), "a", "uses", "b")
	if _, err := g.PutEdge(domain.EdgeInput{From: "a", To: "src/auth/refresh.py", Rel: "touches", Notes: []string{"edge note"}}, graphtest.At(500, "s1")); err != nil {
		t.Fatal(err)
	}
	g.StampRead("a", 600)
	graphtest.SetTier(t, g, "b", domain.Archived, 700)
	graphtest.SetTier(t, g, "c", domain.Orphaned, 800)
	if err := g.SetProgress("task", domain.RawJSON(`{"step":1}`)); err != nil {
		t.Fatal(err)
	}
	g.Checkpoint()
	return g
}

// content is what an import must carry over: each node's text, tier and
// times, each edge's notes and write time, the progress states.
type content struct {
	Nodes    map[string]domain.Node
	Edges    map[domain.EdgeKey][]string
	Progress map[string]string
}

func contentOf(g *domain.Graph) content {
	c := content{Nodes: map[string]domain.Node{}, Edges: map[domain.EdgeKey][]string{}, Progress: map[string]string{}}
	for _, n := range g.Nodes() {
		c.Nodes[n.ID] = domain.Node{ID: n.ID, Gist: n.Gist, Notes: n.Notes, Touches: n.Touches, Tier: n.Tier,
			Created: n.Created, LastRead: n.LastRead, OrphanedAt: n.OrphanedAt, Version: domain.Version{TS: n.Version.TS}}
	}
	for _, e := range g.Edges() {
		c.Edges[e.Key()] = e.Notes
	}
	for task, p := range g.AllProgress() {
		c.Progress[task] = string(p)
	}
	return c
}

func TestImportIntoEmptyGraphCarriesEverythingOver(t *testing.T) {
	src := importSource(t)
	dst := domain.NewGraph(domain.ProjectGraph("/dst"))
	r, err := Import(dst, src.Data(), Merge, graphtest.At(10_000, "imp"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(contentOf(src), contentOf(dst)); diff != "" {
		t.Errorf("imported content (-source +imported):\n%s", diff)
	}
	if len(r.Nodes) != 3 || len(r.Edges) != 2 || len(r.Progress) != 1 || r.Unchanged != 0 {
		t.Errorf("result = %+v", r)
	}
	for _, n := range r.Nodes {
		if n.Version.V != 1 || n.Version.Session != "imp" || n.Version.Seq == 0 {
			t.Errorf("node %s version = %+v, want v1 by the importing session with a seq", n.ID, n.Version)
		}
	}
	checkIndexes(t, dst)

	// The same document again changes nothing.
	seq := dst.Seq()
	r, err = Import(dst, src.Data(), Merge, graphtest.At(20_000, "imp"))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Nodes)+len(r.Edges)+len(r.Progress) != 0 || r.Unchanged != 6 || dst.Seq() != seq {
		t.Errorf("second import = %+v, seq %d → %d; want nothing written", r, seq, dst.Seq())
	}
}

func TestImportMergeAndReplace(t *testing.T) {
	doc := domain.GraphData{
		Nodes:    []domain.Node{{ID: "keep", Gist: "  new text  "}, {ID: "fresh", Gist: "added", Created: 50}},
		Edges:    []domain.Edge{{From: "keep", To: "fresh", Rel: "r"}},
		Progress: map[string]domain.RawJSON{"t2": domain.RawJSON(`{"x":true}`)},
	}
	setup := func(t *testing.T) *domain.Graph {
		g := domain.NewGraph(domain.UserGraph)
		graphtest.PutAt(t, g, graphtest.At(10, ""), "keep", "old text", nil, nil)
		graphtest.PutAt(t, g, graphtest.At(10, ""), "gone", "not in the document", nil, nil)
		graphtest.Edge(t, g, graphtest.At(10, ""), "keep", "r", "gone")
		graphtest.Edge(t, g, graphtest.At(10, ""), "x.go", "r", "y.go")
		if err := g.SetProgress("t1", domain.RawJSON(`{}`)); err != nil {
			t.Fatal(err)
		}
		g.Checkpoint()
		return g
	}
	t.Run("merge keeps what the document lacks", func(t *testing.T) {
		g := setup(t)
		r, err := Import(g, doc, Merge, graphtest.At(1000, ""))
		if err != nil {
			t.Fatal(err)
		}
		keep, _ := g.Node("keep")
		if keep.Gist != "new text" || keep.Version.V != 2 {
			t.Errorf("keep = %+v, want the document's trimmed gist at v2", keep)
		}
		for _, id := range []string{"gone", "fresh"} {
			if !g.IsNode(id) {
				t.Errorf("node %s missing after merge", id)
			}
		}
		if g.EdgeCount() != 3 || len(r.DeletedNodes) != 0 || len(r.DeletedEdges) != 0 {
			t.Errorf("edges %d, result %+v", g.EdgeCount(), r)
		}
		if _, ok := g.Progress("t1"); !ok {
			t.Error("merge dropped progress t1")
		}
		checkIndexes(t, g)
	})
	t.Run("replace deletes what the document lacks", func(t *testing.T) {
		g := setup(t)
		r, err := Import(g, doc, Replace, graphtest.At(1000, ""))
		if err != nil {
			t.Fatal(err)
		}
		want := domain.ImportResult{
			DeletedNodes:    []domain.DeletedNode{{ID: "gone", EdgesDeleted: 1}},
			DeletedEdges:    []domain.EdgeKey{{From: "x.go", To: "y.go", Rel: "r"}},
			Progress:        []string{"t2"},
			ProgressRemoved: []string{"t1"},
		}
		got := r
		got.Nodes, got.Edges = nil, nil
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("result (-want +got):\n%s", diff)
		}
		if g.IsNode("gone") || g.NodeCount() != 2 || g.EdgeCount() != 1 {
			t.Errorf("after replace: %d nodes, %d edges", g.NodeCount(), g.EdgeCount())
		}
		if tomb, ok := g.NodeTombstone("gone"); !ok || tomb.Pruned {
			t.Errorf("tombstone of gone = %+v, %v", tomb, ok)
		}
		if _, ok := g.Progress("t1"); ok {
			t.Error("replace kept progress t1")
		}
		checkIndexes(t, g)
	})
}

func TestImportTimes(t *testing.T) {
	g := domain.NewGraph(domain.UserGraph)
	doc := domain.GraphData{Nodes: []domain.Node{
		{ID: "future", Gist: "g", Created: 5000, LastRead: 9000, Version: domain.Version{TS: 7000}},
		{ID: "untimed", Gist: "g"},
		{ID: "orphan", Gist: "g", Tier: domain.Orphaned},
	}}
	if _, err := Import(g, doc, Merge, graphtest.At(1000, "")); err != nil {
		t.Fatal(err)
	}
	f, _ := g.Node("future")
	if f.Created != 1000 || f.LastRead != 1000 || f.Version.TS != 1000 {
		t.Errorf("times after now were not taken as now: %+v", f)
	}
	u, _ := g.Node("untimed")
	if u.Created != 0 || u.LastRead != 0 || u.Version.TS != 1000 {
		t.Errorf("missing times: %+v; want created and read unknown, written now", u)
	}
	o, _ := g.Node("orphan")
	if o.Tier != domain.Orphaned || o.OrphanedAt != 1000 {
		t.Errorf("orphan = %+v, want orphaned now", o)
	}
}

func TestImportContinuesDeletedVersions(t *testing.T) {
	g := domain.NewGraph(domain.UserGraph)
	graphtest.Put(t, g, "n", "one", nil, nil)
	graphtest.Put(t, g, "n", "two", nil, nil)
	if _, err := g.DeleteNode("n", graphtest.At(2, "")); err != nil {
		t.Fatal(err)
	}
	if _, err := Import(g, domain.GraphData{Nodes: []domain.Node{{ID: "n", Gist: "back"}}}, Merge, graphtest.At(3, "")); err != nil {
		t.Fatal(err)
	}
	n, _ := g.Node("n")
	if _, tomb := g.NodeTombstone("n"); n.Version.V != 3 || tomb {
		t.Errorf("re-created node at v%d (tombstone kept: %v); want v3 and no tombstone", n.Version.V, tomb)
	}
}

func TestImportRejectsBadDocumentsWhole(t *testing.T) {
	good := domain.Node{ID: "ok", Gist: "fine"}
	tests := []struct {
		name  string
		doc   domain.GraphData
		mode  Mode
		field string
		msg   string
	}{
		{"long gist", domain.GraphData{Nodes: []domain.Node{good, {ID: "x", Gist: strings.Repeat("g", 1001)}}}, Merge, "nodes[1].gist", "1001 chars, limit 1000"},
		{"bad id", domain.GraphData{Nodes: []domain.Node{{ID: "a/b", Gist: "g"}}}, Merge, "nodes[0].id", "must start with"},
		{"two-line gist", domain.GraphData{Nodes: []domain.Node{{ID: "x", Gist: "a\nb"}}}, Merge, "nodes[0].gist", "one line"},
		{"too many notes", domain.GraphData{Nodes: []domain.Node{{ID: "x", Gist: "g", Notes: make([]string, 51)}}}, Merge, "nodes[0].notes", "51 items, limit 50"},
		{"empty note", domain.GraphData{Nodes: []domain.Node{{ID: "x", Gist: "g", Notes: []string{"a", ""}}}}, Merge, "nodes[0].notes[1]", "must not be empty"},
		{"duplicate node", domain.GraphData{Nodes: []domain.Node{good, good}}, Merge, "nodes[1].id", "also nodes[0]"},
		{"note with a lone carriage return", domain.GraphData{Nodes: []domain.Node{{ID: "x", Gist: "g", Notes: []string{"shown\rhidden"}}}}, Merge, "nodes[0].notes[0]", "a lone \\r makes a terminal write over the line"},
		{"edge note with a lone carriage return", domain.GraphData{Edges: []domain.Edge{{From: "a", To: "b", Rel: "r", Notes: []string{"x\r"}}}}, Merge, "edges[0].notes[0]", "carriage return"},
		{"unknown tier", domain.GraphData{Nodes: []domain.Node{{ID: "x", Gist: "g", Tier: 7}}}, Merge, "nodes[0].tier", "not one of"},
		{"negative time", domain.GraphData{Nodes: []domain.Node{{ID: "x", Gist: "g", Created: -1}}}, Merge, "nodes[0].created_ts", "negative"},
		{"bad rel", domain.GraphData{Edges: []domain.Edge{{From: "a", To: "b", Rel: "has space"}}}, Merge, "edges[0].rel", "must start with"},
		{"end with NUL", domain.GraphData{Edges: []domain.Edge{{From: "a\x00", To: "b", Rel: "r"}}}, Merge, "edges[0].from", "NUL"},
		{"duplicate edge", domain.GraphData{Edges: []domain.Edge{{From: "a", To: "b", Rel: "r"}, {From: "a", To: "b", Rel: "r"}}}, Merge, "edges[1]", "also edges[0]"},
		{"progress not an object", domain.GraphData{Progress: map[string]domain.RawJSON{"t": domain.RawJSON(`[1]`)}}, Merge, `progress["t"]`, "JSON object"},
		{"bad task id", domain.GraphData{Progress: map[string]domain.RawJSON{"no way": domain.RawJSON(`{}`)}}, Merge, `progress["no way"]`, "must start with"},
		{"bad mode", domain.GraphData{Nodes: []domain.Node{good}}, "overwrite", "mode", "not one of merge, replace"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := importSource(t)
			before := contentOf(g)
			seq := g.Seq()
			_, err := Import(g, tc.doc, tc.mode, graphtest.At(10_000, ""))
			de, ok := err.(*domain.Error)
			if !ok || de.Kind != domain.KindInvalid || de.Field != tc.field || !strings.Contains(de.Msg, tc.msg) {
				t.Fatalf("error = %#v, want invalid %s containing %q", err, tc.field, tc.msg)
			}
			if diff := cmp.Diff(before, contentOf(g)); diff != "" || g.Seq() != seq || !g.Pending().Empty() {
				t.Errorf("a rejected import changed the graph (seq %d → %d):\n%s", seq, g.Seq(), diff)
			}
		})
	}
}

// A document written on Windows breaks its notes' lines with CR LF: they
// are imported as newlines, in node and edge notes alike, and the document
// given is left as it was.
func TestImportNormalizesWindowsLineBreaks(t *testing.T) {
	doc := domain.GraphData{
		Nodes: []domain.Node{{ID: "x", Gist: "g", Notes: []string{"one\r\ntwo"}}},
		Edges: []domain.Edge{{From: "x", To: "y", Rel: "r", Notes: []string{"why\r\n"}}},
	}
	got, err := Validate(doc)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"one\ntwo"}, got.Nodes[0].Notes); d != "" {
		t.Errorf("node notes (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"why\n"}, got.Edges[0].Notes); d != "" {
		t.Errorf("edge notes (-want +got):\n%s", d)
	}
	if doc.Nodes[0].Notes[0] != "one\r\ntwo" || doc.Edges[0].Notes[0] != "why\r\n" {
		t.Errorf("the document given was modified: %+v", doc)
	}
}

// What decides whether an imported node is written is its content: the same
// gist, notes and touches under another tier or other times is left as
// stored (the stored tier is the newer word of compaction); other content is
// written, with the document's tier. A progress state that differs only in
// white space is the same state.
func TestImportComparesContentNotTiers(t *testing.T) {
	g := importSource(t) // a active, b archived, c orphaned
	doc := g.Data()
	for i := range doc.Nodes {
		doc.Nodes[i].Tier, doc.Nodes[i].OrphanedAt, doc.Nodes[i].LastRead = domain.Active, 0, 9_000
		if doc.Nodes[i].ID == "c" {
			doc.Nodes[i].Notes = []string{"new note"}
		}
	}
	doc.Progress = map[string]domain.RawJSON{"task": domain.RawJSON(`{ "step" : 1 }`)}
	before := g.Seq()
	r, err := Import(g, doc, Merge, graphtest.At(10_000, "imp"))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Nodes) != 1 || r.Nodes[0].ID != "c" || len(r.Progress) != 0 {
		t.Fatalf("import wrote nodes %v and progress %v; want only c, whose notes changed", nodeIDs(r.Nodes), r.Progress)
	}
	if b, _ := g.Node("b"); b.Tier != domain.Archived {
		t.Errorf("b, unchanged in content, is %s; want it left archived", b.Tier)
	}
	if c, _ := g.Node("c"); c.Tier != domain.Active || c.Notes[0] != "new note" {
		t.Errorf("c = %+v; want the document's content and tier", c)
	}
	if g.Seq() != before+1 {
		t.Errorf("seq moved %d, want one change", g.Seq()-before)
	}
}

func nodeIDs(ns []*domain.Node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.ID
	}
	return out
}

// TestImportKeepsTheDocumentsUse: an imported node keeps the document's
// count (its day no later than today); without one it keeps the graph's,
// or gets the default from the document's times.
func TestImportKeepsTheDocumentsUse(t *testing.T) {
	now := 50 * domain.Day
	g := domain.NewGraph(domain.UserGraph)
	graphtest.PutAt(t, g, graphtest.At(domain.Day, "A"), "old", "old gist", nil, nil)
	g.CountUse("old", 2*domain.Day)
	doc := domain.GraphData{Nodes: []domain.Node{
		{ID: "given", Gist: "g", Use: domain.Use{Count: 3 * domain.UseUnit, Day: 40, Known: true}},
		{ID: "future", Gist: "g", Use: domain.Use{Count: domain.UseUnit, Day: 60, Known: true}},
		{ID: "none", Gist: "g", LastRead: 30 * domain.Day, Version: domain.Version{TS: 20 * domain.Day}},
		{ID: "old", Gist: "new gist"},
	}}
	if _, err := Import(g, doc, Merge, domain.Stamp{Now: now}); err != nil {
		t.Fatal(err)
	}
	want := map[string]domain.Use{
		"given":  {Count: 3 * domain.UseUnit, Day: 40, Known: true},
		"future": {Count: domain.UseUnit, Day: 50, Known: true},
		"none":   {Count: domain.UseUnit, Day: 30, Known: true},
		"old":    {Count: domain.UseUnit, Day: 2, Known: true},
	}
	for id, w := range want {
		if n, _ := g.Node(id); n.Use != w {
			t.Errorf("%s: use %+v, want %+v", id, n.Use, w)
		}
	}
}
