package domain

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEverythingNamesEveryItem(t *testing.T) {
	g := NewGraph(ProjectGraph("/p"))
	at := coreAt(Days(1), "s")
	corePut(t, g, "a", "alpha", []string{"why"}, nil)
	corePut(t, g, "b", "beta", nil, nil)
	corePut(t, g, "gone", "to be deleted", nil, nil)
	coreEdge(t, g, at, "a", "uses", "b")
	coreEdge(t, g, at, "a", "touches", "src/a.go")
	coreEdge(t, g, at, "gone", "uses", "a")
	if _, err := g.DeleteNode("gone", at); err != nil {
		t.Fatal(err)
	}
	if err := g.SetProgress("task", RawJSON(`{"step":1}`)); err != nil {
		t.Fatal(err)
	}

	got := g.Everything()
	want := ChangeSet{
		Nodes:          map[string]struct{}{"a": {}, "b": {}},
		Edges:          map[EdgeKey]struct{}{{"a", "b", "uses"}: {}, {"a", "src/a.go", "touches"}: {}},
		NodeTombstones: map[string]struct{}{"gone": {}},
		EdgeTombstones: map[EdgeKey]struct{}{{"gone", "a", "uses"}: {}},
		Progress:       map[string]struct{}{"task": {}},
		Meta:           true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Everything() (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, g.Data().Items()); diff != "" {
		t.Fatalf("Data().Items() differs from Everything() (-want +got):\n%s", diff)
	}
}

func TestMergeUnitesChangeSets(t *testing.T) {
	c := NewChangeSet()
	if !c.Empty() {
		t.Fatalf("NewChangeSet() = %+v, want empty", c)
	}
	c.Nodes["a"] = struct{}{}
	o := NewChangeSet()
	o.Nodes["b"] = struct{}{}
	o.Edges[EdgeKey{"a", "b", "r"}] = struct{}{}
	o.NodeTombstones["x"] = struct{}{}
	o.EdgeTombstones[EdgeKey{"x", "y", "r"}] = struct{}{}
	o.Progress["t"] = struct{}{}
	c.Merge(o)
	if got, want := c.Size(), 6; got != want {
		t.Fatalf("merged size = %d, want %d: %+v", got, want, c)
	}
	if c.Meta {
		t.Fatal("Merge set Meta; it names items only")
	}
}

func TestGraphDataEmpty(t *testing.T) {
	if !(GraphData{}).Empty() {
		t.Fatal("zero GraphData is not Empty")
	}
	if (GraphData{Seq: 1}).Empty() {
		t.Fatal("GraphData with a seq is Empty: a graph whose items were all deleted was stored")
	}
	g := NewGraph(UserGraph)
	corePut(t, g, "a", "alpha", nil, nil)
	if g.Data().Empty() {
		t.Fatal("a graph with a node is Empty")
	}
}
