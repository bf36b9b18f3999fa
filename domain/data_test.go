package domain

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// seqsOf returns the seq of every version entry and tombstone of d by name:
// "node:<id>", "edge:<key>", "tomb:<id>", "etomb:<key>".
func seqsOf(d GraphData) map[string]uint64 {
	m := map[string]uint64{}
	for _, n := range d.Nodes {
		m["node:"+n.ID] = n.Version.Seq
	}
	for _, e := range d.Edges {
		m["edge:"+e.Key().String()] = e.Version.Seq
	}
	for id, t := range d.NodeTombstones {
		m["tomb:"+id] = t.Seq
	}
	for k, t := range d.EdgeTombstones {
		m["etomb:"+k.String()] = t.Seq
	}
	return m
}

// schema1 is data as the replaced server wrote it: no seqs, a node without
// a version entry, ties in time.
func schema1() GraphData {
	return GraphData{
		Schema: 1,
		Nodes: []Node{
			{ID: "b", Gist: "node b", Version: Version{TS: 20}},
			{ID: "a", Gist: "node a", Version: Version{V: 3, TS: 20}},
			{ID: "c", Gist: "node c", Version: Version{V: 1, TS: 10}},
		},
		Edges: []Edge{
			{From: "a", To: "b", Rel: "r", Version: Version{TS: 20}},
		},
		NodeTombstones: map[string]Tombstone{"d": {V: 2, TS: 5}},
		EdgeTombstones: map[EdgeKey]Tombstone{{"x", "y", "r"}: {V: 1, TS: 20}},
	}
}

func TestRestoreSchema1(t *testing.T) {
	tests := []struct {
		name     string
		data     func() GraphData
		opt      RestoreOptions
		wantSeqs map[string]uint64
		wantSeq  uint64
	}{
		{
			// Time order; at ts 20 the keys sort "edge:a->b:r" <
			// "edge:x->y:r" < "node:a" < "node:b".
			name: "numbered in time order, ties by key",
			data: schema1,
			wantSeqs: map[string]uint64{
				"tomb:d": 1, "node:c": 2,
				"edge:a --r--> b": 3, "etomb:x --r--> y": 4, "node:a": 5, "node:b": 6,
			},
			wantSeq: 6,
		},
		{
			name: "numbered after the highest watermark",
			data: schema1,
			opt:  RestoreOptions{MinSeq: 100},
			wantSeqs: map[string]uint64{
				"tomb:d": 101, "node:c": 102,
				"edge:a --r--> b": 103, "etomb:x --r--> y": 104, "node:a": 105, "node:b": 106,
			},
			wantSeq: 106,
		},
		{
			name: "numbered after the stored seq and every stored entry's seq",
			data: func() GraphData {
				d := schema1()
				d.Seq = 7
				d.Nodes[1].Version.Seq = 9 // a
				return d
			},
			wantSeqs: map[string]uint64{
				"tomb:d": 10, "node:c": 11,
				"edge:a --r--> b": 12, "etomb:x --r--> y": 13, "node:a": 9, "node:b": 14,
			},
			wantSeq: 14,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, notes := Restore(UserGraph, tc.data(), tc.opt)
			if len(notes) != 0 {
				t.Errorf("notes = %q, want none", notes)
			}
			d := g.Data()
			if diff := cmp.Diff(tc.wantSeqs, seqsOf(d)); diff != "" {
				t.Errorf("seqs (-want +got):\n%s", diff)
			}
			if g.Seq() != tc.wantSeq || g.DurableSeq() != tc.wantSeq {
				t.Errorf("seq %d durable %d, want %d", g.Seq(), g.DurableSeq(), tc.wantSeq)
			}
			if n, _ := g.Node("b"); n.Version.V != 1 {
				t.Errorf("a node without a version entry has version %d, want 1", n.Version.V)
			}
			if e, _ := g.Edge(EdgeKey{"a", "b", "r"}); e.Version.V != 1 {
				t.Errorf("an edge without a version entry has version %d, want 1", e.Version.V)
			}
			if g.NodeVersion("d") != 0 || g.lastNodeVersion("d") != 2 {
				t.Errorf("deleted node d is at version %d (last %d), want 0 (last 2, its tombstone's)", g.NodeVersion("d"), g.lastNodeVersion("d"))
			}
			// The upgrade must be written back, item by item.
			p := g.Pending()
			if !p.Meta || len(p.Nodes) != 3 || len(p.Edges) != 1 || len(p.NodeTombstones) != 1 || len(p.EdgeTombstones) != 1 {
				t.Errorf("pending = %v, want every item and the metadata", pendingNames(p))
			}
			if s := g.Stats(); s.Active != 3 || s.Edges != 1 || s.ShownEdges != 1 {
				t.Errorf("stats = %+v", s)
			}
		})
	}
}

func TestRestoreDuplicates(t *testing.T) {
	data := GraphData{
		Schema: SchemaVersion,
		Nodes: []Node{
			{ID: "x", Gist: "two", Version: Version{V: 2, Seq: 1}},
			{ID: "x", Gist: "five", Version: Version{V: 5, Seq: 2}},
			{ID: "x", Gist: "five again", Version: Version{V: 5, Seq: 3}},
			{ID: "y", Gist: "y", Version: Version{V: 1, Seq: 4}},
		},
		Edges: []Edge{
			{From: "x", To: "y", Rel: "r", Notes: []string{"old"}, Version: Version{V: 1, Seq: 5}},
			{From: "x", To: "y", Rel: "r", Notes: []string{"new"}, Version: Version{V: 2, Seq: 6}},
			{From: "x", To: "y", Rel: "r", Notes: []string{"stale"}, Version: Version{V: 1, Seq: 7}},
		},
		// A tombstone next to a live item: the item wins.
		NodeTombstones: map[string]Tombstone{"y": {V: 9, Seq: 8}},
		EdgeTombstones: map[EdgeKey]Tombstone{{"x", "y", "r"}: {V: 9, Seq: 9}},
		Seq:            9,
	}
	g, notes := Restore(UserGraph, data, RestoreOptions{})
	wantNotes := []string{
		`node "x": two entries claim this id; kept version 5, dropped version 2`,
		`node "x": two entries claim this id; kept version 5, dropped version 5`,
		`edge x --r--> y: stored twice; kept one`,
		`edge x --r--> y: stored twice; kept one`,
	}
	if diff := cmp.Diff(wantNotes, notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if x, _ := g.Node("x"); x.Gist != "five" {
		t.Errorf("kept %q, want the first entry of the highest version", x.Gist)
	}
	if e, _ := g.Edge(EdgeKey{"x", "y", "r"}); e.Notes[0] != "new" {
		t.Errorf("kept edge notes %q, want the highest version's", e.Notes)
	}
	if _, ok := g.NodeTombstone("y"); ok {
		t.Error("the tombstone of a live node was kept")
	}
	if _, ok := g.EdgeTombstone(EdgeKey{"x", "y", "r"}); ok {
		t.Error("the tombstone of a live edge was kept")
	}
	if s := g.Stats(); s != (Stats{Active: 2, GistCost: 1, NotesCost: 1, Edges: 1, ShownEdges: 1}) {
		t.Errorf("stats = %+v", s)
	}
	if g.NodeCount() != 2 || g.EdgeCount() != 1 || len(g.EdgesOf("x")) != 1 {
		t.Errorf("counts: %d nodes, %d edges, %d edges of x", g.NodeCount(), g.EdgeCount(), len(g.EdgesOf("x")))
	}
	if g.Pending().Empty() {
		t.Error("a repaired graph must be written back")
	}
}

// richGraph is a graph with every kind of state: tiers, edges shown and
// hidden, tombstones (pruned too), progress, metadata.
func richGraph(t *testing.T) *Graph {
	t.Helper()
	g, _ := Restore(ProjectGraph("/p"), GraphData{Schema: SchemaVersion, Meta: map[string]RawJSON{"color": RawJSON(`"blue"`)}}, RestoreOptions{})
	for i, id := range []string{"a", "b", "c", "d", "e"} {
		corePutAt(t, g, coreAt(Micros(10+i), "S"), id, "gist of "+id, []string{"note " + id}, []string{id + ".go"})
	}
	at := coreAt(20, "S")
	coreEdge(t, g, at, "a", "r", "b")
	coreEdge(t, g, at, "b", "r", "c")
	coreEdge(t, g, at, "c", "r", "d")
	coreEdge(t, g, at, "d", "touches", "d.go")
	coreEdge(t, g, at, "x.md", "links", "y.md")
	g.setTier("c", Archived, 30)
	g.setTier("d", Orphaned, 30)
	g.StampRead("a", 40)
	if _, err := g.DeleteNode("e", coreAt(41, "S")); err != nil {
		t.Fatal(err)
	}
	g.DeleteEdge(EdgeKey{"x.md", "y.md", "links"}, coreAt(42, ""))
	corePutAt(t, g, coreAt(43, ""), "f", "pruned later", nil, nil)
	g.setTier("f", Orphaned, 43)
	g.removeNode("f", coreAt(44, ""), true)
	if err := g.SetProgress("task", RawJSON(`{"s":1}`)); err != nil {
		t.Fatal(err)
	}
	g.Checkpoint()
	return g
}

func TestRestoreRoundTrip(t *testing.T) {
	g := richGraph(t)
	d := g.Data()
	r, notes := Restore(g.Key(), d, RestoreOptions{})
	if len(notes) != 0 {
		t.Errorf("notes = %q", notes)
	}
	if diff := cmp.Diff(d, r.Data()); diff != "" {
		t.Errorf("data (-before +after):\n%s", diff)
	}
	if r.Stats() != g.Stats() || r.Seq() != g.Seq() {
		t.Errorf("stats %+v seq %d, want %+v seq %d", r.Stats(), r.Seq(), g.Stats(), g.Seq())
	}
	if !r.Pending().Empty() {
		t.Errorf("a current graph restored has pending changes: %v", pendingNames(r.Pending()))
	}
	if r.ProjectPath() != "/p" {
		t.Errorf("project path = %q, want the key's", r.ProjectPath())
	}
	if v, ok := r.Meta("color"); !ok || string(v) != `"blue"` {
		t.Errorf("meta color = %s, %v", v, ok)
	}
	if diff := cmp.Diff([]string{"color"}, r.MetaNames()); diff != "" {
		t.Errorf("meta names (-want +got):\n%s", diff)
	}
}

func TestRestoreKeepsStoredProjectPath(t *testing.T) {
	g, _ := Restore(ProjectGraph("/new"), GraphData{Schema: SchemaVersion, ProjectPath: "/old"}, RestoreOptions{})
	if g.ProjectPath() != "/old" {
		t.Errorf("project path = %q, want the stored one", g.ProjectPath())
	}
	if u := NewGraph(UserGraph); u.ProjectPath() != "" {
		t.Errorf("user graph project path = %q", u.ProjectPath())
	}
}

// withoutSeq blanks the one field Rollback does not restore.
func withoutSeq(d GraphData) GraphData {
	d.Seq = 0
	return d
}

// rollbackOp is a change of richGraph that a failed save takes back.
type rollbackOp struct {
	name string
	do   func(t *testing.T, g *Graph)
}

// rollbackOps are the changes TestRollback and TestRollbackAfterAnUpgrade
// take back: every primitive, alone and together.
func rollbackOps() []rollbackOp {
	return []rollbackOp{
		{"put a new node", func(t *testing.T, g *Graph) { corePut(t, g, "new", "gist", nil, nil) }},
		{"update a node", func(t *testing.T, g *Graph) { corePut(t, g, "a", "changed", []string{}, nil) }},
		{"re-create a deleted node", func(t *testing.T, g *Graph) { corePut(t, g, "e", "back", nil, nil) }},
		{"put edges", func(t *testing.T, g *Graph) {
			coreEdge(t, g, coreAt(50, ""), "a", "r", "c")
			coreEdge(t, g, coreAt(50, ""), "x.md", "links", "y.md")
		}},
		{"delete a node with edges", func(t *testing.T, g *Graph) {
			if _, err := g.DeleteNode("b", coreAt(50, "")); err != nil {
				t.Fatal(err)
			}
		}},
		{"delete an edge", func(t *testing.T, g *Graph) { g.DeleteEdge(EdgeKey{"a", "b", "r"}, coreAt(50, "")) }},
		{"recall with rescue", func(t *testing.T, g *Graph) {
			if _, err := g.RecallNode("c", coreAt(50, "")); err != nil {
				t.Fatal(err)
			}
		}},
		{"stamp a read", func(t *testing.T, g *Graph) { g.StampRead("b", 60) }},
		{"tier changes and pruning", func(t *testing.T, g *Graph) {
			g.setTier("a", Archived, 50)
			g.setTier("b", Orphaned, 50)
			g.removeNode("b", coreAt(51, ""), true)
		}},
		{"progress", func(t *testing.T, g *Graph) {
			if err := g.SetProgress("task", RawJSON(`{"s":2}`)); err != nil {
				t.Fatal(err)
			}
			if err := g.SetProgress("other", RawJSON(`{}`)); err != nil {
				t.Fatal(err)
			}
		}},
		{"project path", func(t *testing.T, g *Graph) { g.SetProjectPath("/moved") }},
		{"everything at once, twice over", func(t *testing.T, g *Graph) {
			for range 2 {
				corePut(t, g, "new", "gist", nil, nil)
				coreEdge(t, g, coreAt(50, ""), "new", "r", "a")
				if _, err := g.RecallNode("d", coreAt(50, "")); err != nil {
					t.Fatal(err)
				}
				if _, err := g.DeleteNode("new", coreAt(50, "")); err != nil {
					t.Fatal(err)
				}
				g.setTier("d", Orphaned, 50)
				g.SetProjectPath("/moved")
			}
		}},
	}
}

func TestRollback(t *testing.T) {
	for _, op := range rollbackOps() {
		t.Run(op.name, func(t *testing.T) {
			g := richGraph(t)
			before, stats, seq := g.Data(), g.Stats(), g.Seq()
			op.do(t, g)
			if g.Pending().Empty() {
				t.Fatal("the operation changed nothing")
			}
			after := g.Seq()
			g.Rollback()
			if diff := cmp.Diff(withoutSeq(before), withoutSeq(g.Data())); diff != "" {
				t.Errorf("data after rollback (-checkpoint +got):\n%s", diff)
			}
			if g.Stats() != stats {
				t.Errorf("stats = %+v, want %+v", g.Stats(), stats)
			}
			if g.Seq() != after {
				t.Errorf("seq went back from %d to %d; seqs must never be reused", after, g.Seq())
			}
			if g.DurableSeq() != seq {
				t.Errorf("durable seq = %d, want %d", g.DurableSeq(), seq)
			}
			// Only the moved counter is left to write.
			wantPending := []string{}
			if after != seq {
				wantPending = []string{"meta"}
			}
			if diff := cmp.Diff(wantPending, pendingNames(g.Pending())); diff != "" {
				t.Errorf("pending (-want +got):\n%s", diff)
			}
			checkIndexes(t, g)
			// The graph keeps working after a rollback.
			n := corePut(t, g, "later", "gist", nil, nil)
			if n.Version.Seq != after+1 {
				t.Errorf("next seq = %d, want %d", n.Version.Seq, after+1)
			}
		})
	}
}

// TestRollbackAfterAnUpgrade: a graph restored with an upgrade has every
// item pending though none changed since its checkpoint (with nodes stored
// without a use count, those nodes). When the save of the upgrade fails,
// the graph is served so (app/graphstore's load, which in team mode rolls
// back), and a later write whose save fails too must be taken back whole
// all the same: every item at its restored value, the upgrade still
// pending for the next save, and PendingBefore reading the restored values
// meanwhile. Twice over: a rollback ends nothing of it.
func TestRollbackAfterAnUpgrade(t *testing.T) {
	upgrades := []struct {
		name   string
		stored func(d *GraphData)
	}{
		{"older schema", func(d *GraphData) { d.Schema = SchemaVersion - 1 }},
		{"no use count", func(d *GraphData) {
			for i := range d.Nodes {
				if d.Nodes[i].ID == "a" || d.Nodes[i].ID == "b" {
					d.Nodes[i].Use = Use{}
				}
			}
		}},
	}
	for _, up := range upgrades {
		for _, op := range rollbackOps() {
			t.Run(up.name+"/"+op.name, func(t *testing.T) {
				testRollbackAfterAnUpgrade(t, up.stored, op)
			})
		}
	}
}

func testRollbackAfterAnUpgrade(t *testing.T, upgrade func(d *GraphData), op rollbackOp) {
	stored := richGraph(t).Data()
	upgrade(&stored)
	g, _ := Restore(ProjectGraph("/p"), stored, RestoreOptions{})
	before, stats, seq, pending := g.Data(), g.Stats(), g.Seq(), pendingNames(g.Pending())
	if len(pending) == 0 {
		t.Fatal("the upgrade left nothing pending")
	}
	for round := range 2 {
		op.do(t, g)
		checkBefore(t, before, g.PendingBefore())
		after := g.Seq()
		g.Rollback()
		if diff := cmp.Diff(withoutSeq(before), withoutSeq(g.Data())); diff != "" {
			t.Errorf("round %d: data after rollback (-restored +got):\n%s", round, diff)
		}
		if g.Stats() != stats {
			t.Errorf("round %d: stats = %+v, want %+v", round, g.Stats(), stats)
		}
		if g.Seq() != after || g.DurableSeq() != seq {
			t.Errorf("round %d: seq %d, durable %d; want %d, %d", round, g.Seq(), g.DurableSeq(), after, seq)
		}
		// What the upgrade left pending, and the moved counter.
		want := pending
		if after != seq && !slices.Contains(want, "meta") {
			want = sortedStrings(append([]string{"meta"}, want...))
		}
		if diff := cmp.Diff(want, pendingNames(g.Pending())); diff != "" {
			t.Errorf("round %d: pending after rollback (-want +got):\n%s", round, diff)
		}
		checkBefore(t, before, g.PendingBefore())
		checkIndexes(t, g)
	}
}

// Restore with Take builds the same graph as Restore that copies, schema 1
// upgrade and duplicates included; without Take the graph owns its nodes
// and edges, and what the caller does to its data later leaves it alone.
func TestRestoreTakeBuildsTheSameGraph(t *testing.T) {
	for _, tt := range []struct {
		name string
		data func() GraphData
	}{
		{"current", func() GraphData { return richGraph(t).Data() }},
		{"schema 1", schema1},
		{"duplicate ids", func() GraphData {
			d := richGraph(t).Data()
			dup := d.Nodes[0]
			dup.Version.V += 5
			dup.Gist = "the later twin"
			d.Nodes = append(d.Nodes, dup)
			return d
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			copied, notes := Restore(UserGraph, tt.data(), RestoreOptions{MinSeq: 7})
			taken, takenNotes := Restore(UserGraph, tt.data(), RestoreOptions{MinSeq: 7, Take: true})
			if diff := cmp.Diff(notes, takenNotes); diff != "" {
				t.Errorf("notes (-copied +taken):\n%s", diff)
			}
			if diff := cmp.Diff(copied.Data(), taken.Data()); diff != "" {
				t.Errorf("data (-copied +taken):\n%s", diff)
			}
			if diff := cmp.Diff(pendingNames(copied.Pending()), pendingNames(taken.Pending())); diff != "" {
				t.Errorf("pending (-copied +taken):\n%s", diff)
			}
			if copied.Stats() != taken.Stats() || copied.Seq() != taken.Seq() {
				t.Errorf("stats %+v seq %d, want %+v seq %d", taken.Stats(), taken.Seq(), copied.Stats(), copied.Seq())
			}
			if probs := indexProblems(taken); len(probs) > 0 {
				t.Errorf("index of the taken graph: %q", probs)
			}

			d := tt.data()
			g, _ := Restore(UserGraph, d, RestoreOptions{})
			before := g.Data()
			for i := range d.Nodes {
				d.Nodes[i].Gist = "changed by the caller"
			}
			for i := range d.Edges {
				d.Edges[i].Rel = "changed"
			}
			if diff := cmp.Diff(before, g.Data()); diff != "" {
				t.Errorf("the caller's later changes reached the graph (-before +after):\n%s", diff)
			}
		})
	}
}

func TestGraphDataLastChange(t *testing.T) {
	tests := []struct {
		name string
		data GraphData
		want Micros
	}{
		{name: "empty", data: GraphData{}, want: 0},
		{name: "a node", data: GraphData{Nodes: []Node{{ID: "a", Version: Version{TS: 7}}, {ID: "b", Version: Version{TS: 3}}}}, want: 7},
		{name: "an edge after the nodes", data: GraphData{
			Nodes: []Node{{ID: "a", Version: Version{TS: 7}}},
			Edges: []Edge{{From: "a", To: "b", Rel: "r", Version: Version{TS: 9}}},
		}, want: 9},
		{name: "a node deleted last", data: GraphData{
			Nodes:          []Node{{ID: "a", Version: Version{TS: 7}}},
			NodeTombstones: map[string]Tombstone{"b": {TS: 11}},
		}, want: 11},
		{name: "an edge deleted last", data: GraphData{
			Nodes:          []Node{{ID: "a", Version: Version{TS: 7}}},
			EdgeTombstones: map[EdgeKey]Tombstone{{"a", "b", "r"}: {TS: 12}},
		}, want: 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.data.LastChange(); got != tt.want {
				t.Errorf("LastChange() = %d, want %d", got, tt.want)
			}
		})
	}
}
