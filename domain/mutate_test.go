package domain

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPutNodeMerge(t *testing.T) {
	tests := []struct {
		name        string
		notes       []string
		touches     []string
		wantNotes   []string
		wantTouches []string
	}{
		{"omitted lists are kept", nil, nil, []string{"n1", "n2"}, []string{"a.go"}},
		{"empty lists clear", []string{}, []string{}, []string{}, []string{}},
		{"given lists replace", []string{"n3"}, []string{"b.go", "c.go"}, []string{"n3"}, []string{"b.go", "c.go"}},
		{"notes replaced, touches kept", []string{"n3"}, nil, []string{"n3"}, []string{"a.go"}},
		{"Windows line breaks stored as newlines", []string{"one\r\ntwo"}, nil, []string{"one\ntwo"}, []string{"a.go"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph(UserGraph)
			first := corePutAt(t, g, coreAt(100, "A"), "n", "old gist", []string{"n1", "n2"}, []string{"a.go"})
			g.StampRead("n", 150)
			n, err := g.PutNode(NodeInput{ID: "n", Gist: "  new gist ", Notes: tc.notes, Touches: tc.touches}, coreAt(200, "B"))
			if err != nil {
				t.Fatal(err)
			}
			want := Node{
				ID: "n", Gist: "new gist", Notes: tc.wantNotes, Touches: tc.wantTouches,
				Tier: Active, Created: 100, LastRead: 150,
				Version: Version{V: 2, TS: 200, Session: "B", Seq: 2},
			}
			if diff := cmp.Diff(want, *n); diff != "" {
				t.Errorf("node (-want +got):\n%s", diff)
			}
			if got, _ := g.Node("n"); got != n {
				t.Errorf("Node returned %p, PutNode %p", got, n)
			}
			if first.Gist != "old gist" || first.Version.V != 1 {
				t.Errorf("the earlier node value was changed in place: %+v", first)
			}
		})
	}
}

func TestPutNodeCopiesInput(t *testing.T) {
	g := NewGraph(UserGraph)
	notes, touches := []string{"n"}, []string{"t"}
	n := corePut(t, g, "n", "g", notes, touches)
	notes[0], touches[0] = "changed", "changed"
	if n.Notes[0] != "n" || n.Touches[0] != "t" {
		t.Errorf("the graph shares the caller's slices: %q %q", n.Notes, n.Touches)
	}
}

func TestPutNodeMakesActive(t *testing.T) {
	for _, tier := range []Tier{Archived, Orphaned} {
		t.Run(tier.String(), func(t *testing.T) {
			g := NewGraph(UserGraph)
			corePut(t, g, "n", "g", nil, nil)
			g.setTier("n", tier, 50)
			n := corePutAt(t, g, coreAt(60, ""), "n", "g2", nil, nil)
			if n.Tier != Active || n.OrphanedAt != 0 || n.TierSeq != 0 {
				t.Errorf("tier %v, orphaned at %d, tier seq %d; want active, 0, 0", n.Tier, n.OrphanedAt, n.TierSeq)
			}
			if n.Version.V != 2 || n.Version.Seq != 3 {
				t.Errorf("version %d seq %d, want 2 and 3 (the tier change took seq 2)", n.Version.V, n.Version.Seq)
			}
			if s := g.Stats(); s.Active != 1 || s.Archived+s.Orphaned != 0 {
				t.Errorf("stats = %+v", s)
			}
		})
	}
}

func TestExpectedVersion(t *testing.T) {
	ev := func(v uint64) *uint64 { return &v }
	tests := []struct {
		name    string
		setup   func(t *testing.T, g *Graph) // leaves "n" at some version, or absent
		want    *uint64
		wantV   uint64 // version after a successful put
		wantErr string
	}{
		{"create only on a missing node", func(*testing.T, *Graph) {}, ev(0), 1, ""},
		{"create only on an existing node", func(t *testing.T, g *Graph) { corePut(t, g, "n", "g", nil, nil) }, ev(0), 0,
			`expected_version: node "n" is at version 1, not 0; read it and retry`},
		{"matching version", func(t *testing.T, g *Graph) {
			corePut(t, g, "n", "g", nil, nil)
			corePut(t, g, "n", "g", nil, nil)
		}, ev(2), 3, ""},
		{"stale version", func(t *testing.T, g *Graph) {
			corePut(t, g, "n", "g", nil, nil)
			corePut(t, g, "n", "g", nil, nil)
		}, ev(1), 0, `expected_version: node "n" is at version 2, not 1; read it and retry`},
		{"future version of a missing node", func(*testing.T, *Graph) {}, ev(4), 0,
			`expected_version: node "n" is at version 0, not 4; read it and retry`},
		{"create only re-creates a deleted node, continuing its tombstone's version", func(t *testing.T, g *Graph) {
			corePut(t, g, "n", "g", nil, nil)
			corePut(t, g, "n", "g", nil, nil)
			if _, err := g.DeleteNode("n", coreAt(2, "")); err != nil {
				t.Fatal(err)
			}
		}, ev(0), 3, ""},
		{"the version of a deleted node is stale", func(t *testing.T, g *Graph) {
			corePut(t, g, "n", "g", nil, nil)
			corePut(t, g, "n", "g", nil, nil)
			if _, err := g.DeleteNode("n", coreAt(2, "")); err != nil {
				t.Fatal(err)
			}
		}, ev(2), 0, `expected_version: node "n" was deleted (its last version was 2): it is at version 0, not 2; send 0 to re-create it`},
		{"the version after a tombstone is no version of a deleted node", func(t *testing.T, g *Graph) {
			corePut(t, g, "n", "g", nil, nil)
			if _, err := g.DeleteNode("n", coreAt(2, "")); err != nil {
				t.Fatal(err)
			}
		}, ev(2), 0, `expected_version: node "n" was deleted (its last version was 1): it is at version 0, not 2; send 0 to re-create it`},
		{"without expected version, last write wins", func(t *testing.T, g *Graph) {
			corePut(t, g, "n", "g", nil, nil)
		}, nil, 2, ""},
		{"re-creating a deleted node without expected version", func(t *testing.T, g *Graph) {
			corePut(t, g, "n", "g", nil, nil)
			if _, err := g.DeleteNode("n", coreAt(2, "")); err != nil {
				t.Fatal(err)
			}
		}, nil, 2, ""},
		{"a promotion is a version", func(t *testing.T, g *Graph) {
			corePut(t, g, "n", "g", nil, nil)
			g.setTier("n", Archived, 2)
			if _, err := g.RecallNode("n", coreAt(3, "")); err != nil {
				t.Fatal(err)
			}
		}, ev(2), 3, ""},
		{"a tier change is not a version", func(t *testing.T, g *Graph) {
			corePut(t, g, "n", "g", nil, nil)
			g.setTier("n", Archived, 2)
		}, ev(1), 2, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph(UserGraph)
			tc.setup(t, g)
			g.Checkpoint()
			before := g.Data()
			n, err := g.PutNode(NodeInput{ID: "n", Gist: "new", ExpectedVersion: tc.want}, coreAt(10, "S"))
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				if KindOf(err) != KindConflict {
					t.Errorf("kind = %v, want conflict", KindOf(err))
				}
				assertUntouched(t, g, before, g.Stats())
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n.Version.V != tc.wantV || g.NodeVersion("n") != tc.wantV {
				t.Errorf("version = %d (NodeVersion %d), want %d", n.Version.V, g.NodeVersion("n"), tc.wantV)
			}
			if _, ok := g.NodeTombstone("n"); ok {
				t.Error("the tombstone of a re-created node is still there")
			}
		})
	}
}

func TestPutEdge(t *testing.T) {
	g := NewGraph(UserGraph)
	k := EdgeKey{From: "a", To: "src/a.go", Rel: "touches"}
	e, err := g.PutEdge(EdgeInput{From: k.From, To: k.To, Rel: k.Rel, Notes: []string{"why"}}, coreAt(10, "A"))
	if err != nil {
		t.Fatal(err)
	}
	want := Edge{From: "a", To: "src/a.go", Rel: "touches", Notes: []string{"why"}, Version: Version{V: 1, TS: 10, Session: "A", Seq: 1}}
	if diff := cmp.Diff(want, *e); diff != "" {
		t.Errorf("new edge (-want +got):\n%s", diff)
	}

	steps := []struct {
		name      string
		notes     []string
		wantNotes []string
	}{
		{"nil notes keep", nil, []string{"why"}},
		{"given notes replace", []string{"because"}, []string{"because"}},
		{"empty notes clear", []string{}, []string{}},
	}
	for i, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			e, err := g.PutEdge(EdgeInput{From: k.From, To: k.To, Rel: k.Rel, Notes: st.notes}, coreAt(Micros(20+i), "B"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(st.wantNotes, e.Notes); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
			if e.Version.V != uint64(2+i) || e.Version.Seq != uint64(2+i) || e.Version.Session != "B" {
				t.Errorf("version = %+v, want v%d at seq %d by B", e.Version, 2+i, 2+i)
			}
		})
	}
	if g.EdgeCount() != 1 {
		t.Errorf("edge count = %d, want 1 (upsert by key)", g.EdgeCount())
	}

	t.Run("re-creating a deleted edge continues its version", func(t *testing.T) {
		if !g.DeleteEdge(k, coreAt(30, "")) {
			t.Fatal("DeleteEdge: missing")
		}
		tomb, ok := g.EdgeTombstone(k)
		if !ok || tomb.V != 4 {
			t.Fatalf("tombstone = %+v, %v; want version 4", tomb, ok)
		}
		e, err := g.PutEdge(EdgeInput{From: k.From, To: k.To, Rel: k.Rel}, coreAt(31, ""))
		if err != nil {
			t.Fatal(err)
		}
		if e.Version.V != 5 || e.Notes != nil {
			t.Errorf("version %d notes %q; want 5 and none (the old notes died with it)", e.Version.V, e.Notes)
		}
		if _, ok := g.EdgeTombstone(k); ok {
			t.Error("tombstone kept after re-creation")
		}
	})
}

func TestDeleteNode(t *testing.T) {
	g := NewGraph(UserGraph)
	corePut(t, g, "a", "g", nil, nil)
	corePut(t, g, "b", "g", nil, nil)
	corePut(t, g, "c", "g", nil, nil)
	at := coreAt(5, "A")
	coreEdge(t, g, at, "a", "r", "b")
	coreEdge(t, g, at, "b", "r", "a")
	coreEdge(t, g, at, "b", "self", "b")
	coreEdge(t, g, at, "b", "touches", "b.go")
	coreEdge(t, g, at, "c", "r", "a") // not incident to b: stays
	coreEdge(t, g, at, "x.go", "r", "b")
	coreEdge(t, g, at, "a", "r", "b") // an update: version 2
	g.Checkpoint()
	seq := g.Seq() // 10

	n, err := g.DeleteNode("b", coreAt(50, "D"))
	if err != nil {
		t.Fatal(err)
	}
	if n != 5 {
		t.Errorf("edges deleted = %d, want 5", n)
	}
	if g.IsNode("b") || g.EdgeCount() != 1 {
		t.Errorf("node b still there: %v; %d edges left, want 1", g.IsNode("b"), g.EdgeCount())
	}
	if _, ok := g.Edge(EdgeKey{"c", "a", "r"}); !ok {
		t.Error("the edge c --r--> a was deleted")
	}
	// Edges go first in (from, rel, to) order, the node last.
	wantTombs := map[EdgeKey]Tombstone{
		{"a", "b", "r"}:          {V: 2, TS: 50, Session: "D", Seq: seq + 1},
		{"b", "a", "r"}:          {V: 1, TS: 50, Session: "D", Seq: seq + 2},
		{"b", "b", "self"}:       {V: 1, TS: 50, Session: "D", Seq: seq + 3},
		{"b", "b.go", "touches"}: {V: 1, TS: 50, Session: "D", Seq: seq + 4},
		{"x.go", "b", "r"}:       {V: 1, TS: 50, Session: "D", Seq: seq + 5},
	}
	if diff := cmp.Diff(wantTombs, g.Data().EdgeTombstones); diff != "" {
		t.Errorf("edge tombstones (-want +got):\n%s", diff)
	}
	if tomb, _ := g.NodeTombstone("b"); tomb != (Tombstone{V: 1, TS: 50, Session: "D", Seq: seq + 6}) {
		t.Errorf("node tombstone = %+v", tomb)
	}
	if len(g.EdgesOf("b")) != 0 {
		t.Errorf("adjacency still lists edges of b: %v", g.EdgesOf("b"))
	}
	wantPending := []string{"edge a --r--> b", "edge b --r--> a", "edge b --self--> b", "edge b --touches--> b.go",
		"edge x.go --r--> b", "meta", "node b", "node-tomb b", "edge-tomb a --r--> b", "edge-tomb b --r--> a",
		"edge-tomb b --self--> b", "edge-tomb b --touches--> b.go", "edge-tomb x.go --r--> b"}
	if diff := cmp.Diff(sortedStrings(wantPending), pendingNames(g.Pending())); diff != "" {
		t.Errorf("pending (-want +got):\n%s", diff)
	}
}

// pendingNames renders a change set as sorted "kind name" strings.
func pendingNames(c ChangeSet) []string {
	var out []string
	for id := range c.Nodes {
		out = append(out, "node "+id)
	}
	for k := range c.Edges {
		out = append(out, "edge "+k.String())
	}
	for id := range c.NodeTombstones {
		out = append(out, "node-tomb "+id)
	}
	for k := range c.EdgeTombstones {
		out = append(out, "edge-tomb "+k.String())
	}
	for id := range c.Progress {
		out = append(out, "progress "+id)
	}
	if c.Meta {
		out = append(out, "meta")
	}
	return sortedStrings(out)
}

func sortedStrings(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	if s == nil {
		s = []string{}
	}
	return s
}

func TestDeleteEdge(t *testing.T) {
	g := NewGraph(UserGraph)
	coreEdge(t, g, coreAt(1, ""), "a", "r", "b")
	g.Checkpoint()
	before := g.Data()

	if g.DeleteEdge(EdgeKey{"a", "b", "other"}, coreAt(2, "")) {
		t.Error("deleting a missing edge reported true")
	}
	assertUntouched(t, g, before, g.Stats())

	if !g.DeleteEdge(EdgeKey{"a", "b", "r"}, coreAt(3, "S")) {
		t.Fatal("deleting an existing edge reported false")
	}
	if tomb, ok := g.EdgeTombstone(EdgeKey{"a", "b", "r"}); !ok || tomb != (Tombstone{V: 1, TS: 3, Session: "S", Seq: 2}) {
		t.Errorf("tombstone = %+v, %v", tomb, ok)
	}
	if g.EdgeCount() != 0 || g.Stats().Edges != 0 || g.Stats().ShownEdges != 0 {
		t.Errorf("edge count %d, stats %+v", g.EdgeCount(), g.Stats())
	}
	if g.DeleteEdge(EdgeKey{"a", "b", "r"}, coreAt(4, "S")) {
		t.Error("deleting it twice reported true")
	}
}

func TestRecallNode(t *testing.T) {
	// hub is joined to: zo1 (orphaned, in), o2 (orphaned, out, two edges),
	// y9 (orphaned, by an edge that sorts first, so edge order is not id order),
	// arch (archived), act (active), o3 (orphaned, not a neighbour), a
	// file, itself, and a user-level id that is not a node here.
	build := func(t *testing.T, hubTier Tier) *Graph {
		g := NewGraph(ProjectGraph("/p"))
		for _, id := range []string{"hub", "zo1", "o2", "y9", "arch", "act", "o3"} {
			corePutAt(t, g, coreAt(1, "A"), id, "gist "+id, nil, nil)
		}
		at := coreAt(2, "A")
		coreEdge(t, g, at, "zo1", "r", "hub")
		coreEdge(t, g, at, "hub", "0", "y9")
		coreEdge(t, g, at, "hub", "a", "o2")
		coreEdge(t, g, at, "hub", "b", "o2")
		coreEdge(t, g, at, "hub", "r", "arch")
		coreEdge(t, g, at, "act", "r", "hub")
		coreEdge(t, g, at, "hub", "touches", "hub.go")
		coreEdge(t, g, at, "hub", "self", "hub")
		coreEdge(t, g, at, "hub", "r", "user-principle")
		coreEdge(t, g, at, "o3", "r", "arch")
		for _, id := range []string{"zo1", "o2", "y9", "o3"} {
			g.setTier(id, Orphaned, 3)
		}
		g.setTier("arch", Archived, 3)
		if hubTier != Active {
			g.setTier("hub", hubTier, 3)
		}
		g.Checkpoint()
		return g
	}

	t.Run("active: only the read stamp", func(t *testing.T) {
		g := build(t, Active)
		seq := g.Seq()
		before, _ := g.Node("hub")
		r, err := g.RecallNode("hub", coreAt(100, "R"))
		if err != nil {
			t.Fatal(err)
		}
		if r.Promoted() || r.WasTier != Active || r.Rescued != nil {
			t.Errorf("recall = %+v, want no promotion and no rescue", r)
		}
		want := *before
		want.LastRead = 100
		if diff := cmp.Diff(want, *r.Node); diff != "" {
			t.Errorf("node (-want +got):\n%s", diff)
		}
		if g.Seq() != seq {
			t.Errorf("seq moved from %d to %d", seq, g.Seq())
		}
		if diff := cmp.Diff([]string{"node hub"}, pendingNames(g.Pending())); diff != "" {
			t.Errorf("pending (-want +got):\n%s", diff)
		}
	})

	for _, tier := range []Tier{Archived, Orphaned} {
		t.Run(tier.String()+": promotion and chain rescue", func(t *testing.T) {
			g := build(t, tier)
			seq := g.Seq()
			before, _ := g.Node("hub")
			r, err := g.RecallNode("hub", coreAt(100, "R"))
			if err != nil {
				t.Fatal(err)
			}
			if !r.Promoted() || r.WasTier != tier {
				t.Errorf("promoted %v, was %v", r.Promoted(), r.WasTier)
			}
			if diff := cmp.Diff([]string{"o2", "y9", "zo1"}, r.Rescued); diff != "" {
				t.Errorf("rescued (-want +got):\n%s", diff)
			}
			want := *before
			want.Tier, want.OrphanedAt, want.TierSeq, want.LastRead = Active, 0, 0, 100
			want.Version = Version{V: 2, TS: 100, Session: "R", Seq: seq + 1}
			if diff := cmp.Diff(want, *r.Node); diff != "" {
				t.Errorf("node (-want +got):\n%s", diff)
			}
			// The rescues take the next seqs, in id order, and no version.
			for i, id := range []string{"o2", "y9", "zo1"} {
				n, _ := g.Node(id)
				if n.Tier != Archived || n.OrphanedAt != 0 || n.TierSeq != seq+2+uint64(i) || n.Version.V != 1 {
					t.Errorf("%s: tier %v, orphaned at %d, tier seq %d, version %d; want archived, 0, %d, 1",
						id, n.Tier, n.OrphanedAt, n.TierSeq, n.Version.V, seq+2+uint64(i))
				}
			}
			if n, _ := g.Node("o3"); n.Tier != Orphaned {
				t.Errorf("o3, not a neighbour, is %v", n.Tier)
			}
			if n, _ := g.Node("arch"); n.Tier != Archived || n.TierSeq > seq {
				t.Errorf("arch, already archived: tier %v, tier seq %d; want untouched", n.Tier, n.TierSeq)
			}
			if n, _ := g.Node("act"); n.Tier != Active || n.TierSeq != 0 {
				t.Errorf("act, active: tier %v, tier seq %d; want untouched", n.Tier, n.TierSeq)
			}
			if g.Seq() != seq+4 {
				t.Errorf("seq = %d, want %d", g.Seq(), seq+4)
			}
			if diff := cmp.Diff([]string{"meta", "node hub", "node o2", "node y9", "node zo1"}, pendingNames(g.Pending())); diff != "" {
				t.Errorf("pending (-want +got):\n%s", diff)
			}
			if s := g.Stats(); s.Active != 2 || s.Archived != 4 || s.Orphaned != 1 {
				t.Errorf("stats = %+v, want 2 active, 4 archived, 1 orphaned", s)
			}
		})
	}
}

func TestStampRead(t *testing.T) {
	tests := []struct {
		name        string
		id          string
		at          Micros
		wantRead    Micros
		wantPending []string
	}{
		{"newer stamp", "n", 500, 500, []string{"node n"}},
		{"same stamp", "n", 300, 300, []string{}},
		{"older stamp", "n", 200, 300, []string{}},
		{"missing node", "nope", 500, 300, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph(UserGraph)
			corePutAt(t, g, coreAt(100, "A"), "n", "g", nil, nil)
			g.StampRead("n", 300)
			g.Checkpoint()
			before, _ := g.Node("n")
			seq := g.Seq()
			g.StampRead(tc.id, tc.at)
			n, _ := g.Node("n")
			if n.LastRead != tc.wantRead {
				t.Errorf("last read = %d, want %d", n.LastRead, tc.wantRead)
			}
			if n.Version != before.Version || n.Tier != before.Tier || g.Seq() != seq {
				t.Errorf("a read stamp changed the version, tier or seq")
			}
			if before.LastRead != 300 {
				t.Errorf("the stored node was changed in place")
			}
			if diff := cmp.Diff(tc.wantPending, pendingNames(g.Pending())); diff != "" {
				t.Errorf("pending (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSetProgress(t *testing.T) {
	g := NewGraph(UserGraph)
	state := RawJSON(`{"step":1}`)
	if err := g.SetProgress("task-1", state); err != nil {
		t.Fatal(err)
	}
	state[2] = 'X' // the graph keeps its own copy
	if err := g.SetProgress("task-1", RawJSON(`{"step":2}`)); err != nil {
		t.Fatal(err)
	}
	got, ok := g.Progress("task-1")
	if !ok || string(got) != `{"step":2}` {
		t.Errorf("progress = %s, %v; want the second state whole", got, ok)
	}
	if _, ok := g.Progress("other"); ok {
		t.Error("an unknown task has progress")
	}
	if g.Seq() != 0 {
		t.Errorf("progress took a seq: %d", g.Seq())
	}
	if diff := cmp.Diff([]string{"progress task-1"}, pendingNames(g.Pending())); diff != "" {
		t.Errorf("pending (-want +got):\n%s", diff)
	}
}

func TestPendingNamesExactlyTheChanges(t *testing.T) {
	g := seededGraph(t)
	if !g.Pending().Empty() || g.Pending().Size() != 0 {
		t.Fatalf("pending after checkpoint: %+v", g.Pending())
	}
	corePutAt(t, g, coreAt(10, ""), "gone", "back again", nil, nil)
	coreEdge(t, g, coreAt(10, ""), "gone", "r", "keep")
	g.SetProjectPath("/work/moved")
	g.SetProjectPath("/work/moved")
	want := []string{"edge gone --r--> keep", "meta", "node gone", "node-tomb gone"}
	if diff := cmp.Diff(want, pendingNames(g.Pending())); diff != "" {
		t.Errorf("pending (-want +got):\n%s", diff)
	}
	if g.Pending().Size() != 4 {
		t.Errorf("size = %d, want 4", g.Pending().Size())
	}
	g.Checkpoint()
	if g.DurableSeq() != g.Seq() || !g.Pending().Empty() {
		t.Errorf("after checkpoint: durable %d, seq %d, pending %+v", g.DurableSeq(), g.Seq(), g.Pending())
	}
	if g.ProjectPath() != "/work/moved" {
		t.Errorf("project path = %q", g.ProjectPath())
	}
}

// Edge notes pasted from Windows are stored with newlines, as node notes
// are; a lone carriage return is refused and changes nothing.
func TestPutEdgeNormalizesNotes(t *testing.T) {
	g := NewGraph(UserGraph)
	e, err := g.PutEdge(EdgeInput{From: "a", To: "b", Rel: "r", Notes: []string{"why\r\nit holds"}}, coreAt(100, "A"))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"why\nit holds"}, e.Notes); d != "" {
		t.Errorf("notes (-want +got):\n%s", d)
	}
	_, err = g.PutEdge(EdgeInput{From: "a", To: "b", Rel: "r", Notes: []string{"shown\rhidden"}}, coreAt(200, "A"))
	checkErr(t, err, `notes[0]: must not contain a carriage return (\r) outside a \r\n line break: a lone \r makes a terminal write over the line; break lines with \n`, 0)
	if got, _ := g.Edge(EdgeKey{"a", "b", "r"}); got.Version.V != 1 || got.Notes[0] != "why\nit holds" {
		t.Errorf("the refused put changed the edge: %+v", got)
	}
}
