package domain

import "testing"

// HoldsNothing: a graph holds something once it has a node, an edge, a
// tombstone (a node deleted) or a progress state, and a loaded schema stamp
// or seq alone is nothing.
func TestHoldsNothing(t *testing.T) {
	at := Stamp{Now: 1}
	g := NewGraph(ProjectGraph("/p"))
	if !g.HoldsNothing() {
		t.Fatal("a new graph holds something")
	}
	stamped, _ := Restore(ProjectGraph("/p"), GraphData{Schema: SchemaVersion, ProjectPath: "/p"}, RestoreOptions{})
	if !stamped.HoldsNothing() {
		t.Error("an empty graph with a schema holds something")
	}
	if _, err := g.PutNode(NodeInput{ID: "a", Gist: "x"}, at); err != nil {
		t.Fatal(err)
	}
	if g.HoldsNothing() {
		t.Error("a graph with a node holds nothing")
	}
	if _, err := g.DeleteNode("a", at); err != nil {
		t.Fatal(err)
	}
	if g.HoldsNothing() {
		t.Error("a graph with a tombstone holds nothing")
	}
	e, _ := Restore(UserGraph, GraphData{Edges: []Edge{{From: "x", To: "y", Rel: "r", Version: Version{V: 1}}}}, RestoreOptions{})
	p, _ := Restore(UserGraph, GraphData{Progress: map[string]RawJSON{"t": RawJSON(`{}`)}}, RestoreOptions{})
	for what, g := range map[string]*Graph{"an edge": e, "a progress state": p} {
		if g.HoldsNothing() {
			t.Errorf("a graph with %s holds nothing", what)
		}
	}
}
