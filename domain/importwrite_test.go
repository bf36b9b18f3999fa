package domain

import (
	"slices"
	"testing"
)

// TestWriteImportKeepsIndexes: the bulk write of an import with replace
// deletes what the document does not hold, writes what it is given, and
// leaves the graph's indexes as a graph built from scratch would have them
// (the decisions of what to write are tested in domain/importing).
func TestWriteImportKeepsIndexes(t *testing.T) {
	g := NewGraph(UserGraph)
	corePutAt(t, g, coreAt(10, ""), "keep", "old", nil, nil)
	corePutAt(t, g, coreAt(10, ""), "gone", "not in the document", nil, nil)
	coreEdge(t, g, coreAt(10, ""), "keep", "r", "gone")
	coreEdge(t, g, coreAt(10, ""), "x.go", "r", "y.go")
	if err := g.SetProgress("old", RawJSON(`{}`)); err != nil {
		t.Fatal(err)
	}
	seq := g.Seq()
	doc := GraphData{
		Nodes:    []Node{{ID: "keep", Gist: "new"}, {ID: "added", Gist: "a"}},
		Edges:    []Edge{{From: "keep", To: "added", Rel: "r", Notes: []string{"why"}}},
		Progress: map[string]RawJSON{"task": RawJSON(`{"step":1}`)},
	}
	added := &Node{ID: "added", Gist: "a", Tier: Archived, Version: Version{TS: 500}}
	kept := &Node{ID: "keep", Gist: "new", Version: Version{TS: 600}}
	r := g.WriteImport(ImportWrite{Replace: true, Doc: doc, Nodes: []*Node{added, kept}, Progress: []string{"task"}, Unchanged: 2}, coreAt(1000, "imp"))

	if want := []DeletedNode{{ID: "gone", EdgesDeleted: 1}}; !slices.Equal(r.DeletedNodes, want) {
		t.Errorf("deleted nodes %+v, want %+v", r.DeletedNodes, want)
	}
	if want := []EdgeKey{{From: "x.go", To: "y.go", Rel: "r"}}; !slices.Equal(r.DeletedEdges, want) {
		t.Errorf("deleted edges %+v, want %+v", r.DeletedEdges, want)
	}
	if !slices.Equal(r.ProgressRemoved, []string{"old"}) || !slices.Equal(r.Progress, []string{"task"}) {
		t.Errorf("progress removed %v, written %v", r.ProgressRemoved, r.Progress)
	}
	if len(r.Nodes) != 2 || len(r.Edges) != 1 || r.Unchanged != 2 {
		t.Errorf("wrote %d nodes, %d edges, %d unchanged; want 2, 1, 2", len(r.Nodes), len(r.Edges), r.Unchanged)
	}
	if n, _ := g.Node("keep"); n.Gist != "new" || n.Version.V != 2 || n.Version.TS != 600 || n.Version.Session != "imp" || n.Version.Seq <= seq {
		t.Errorf("keep = %+v, want version 2 written at 600 by imp with a new seq", n)
	}
	if n, _ := g.Node("added"); n.Tier != Archived || n.Version.V != 1 {
		t.Errorf("added = %+v, want archived at version 1", n)
	}
	if _, ok := g.NodeTombstone("gone"); !ok {
		t.Error("gone left no tombstone")
	}
	checkIndexes(t, g)
}
