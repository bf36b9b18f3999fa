package changes

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/internal/graphtest"
)

// syncLines renders a report's items as "seq kind name" lines.
func syncLines(r Report) []string {
	out := []string{}
	for _, it := range r.Items {
		var s string
		switch {
		case it.Node != nil:
			s = "node " + it.Node.ID
		case it.Edge != nil:
			s = "edge " + it.Edge.Key().String()
		case it.Deleted && it.EdgeKey != nil:
			s = "deleted edge " + it.EdgeKey.String()
		case it.Deleted:
			s = "deleted node " + it.NodeID
		default:
			s = "?"
		}
		out = append(out, s)
	}
	return out
}

// syncGraph builds a graph with changes by sessions "A", "B" and none:
//
//	seq 1 A  put a
//	seq 2 B  put b
//	seq 3 -  put c
//	seq 4 B  put edge a --uses--> b
//	seq 5 A  put edge b --uses--> c
//	seq 6 B  delete edge a --uses--> b
//	seq 7 B  put d
//	seq 8 B  delete b: edge b --uses--> c (seq 8), node b (seq 9)
//	seq 10 - put e
func syncGraph(t *testing.T) *domain.Graph {
	t.Helper()
	g := domain.NewGraph(domain.UserGraph)
	graphtest.PutAt(t, g, graphtest.At(10, "A"), "a", "gist a", nil, nil)
	graphtest.PutAt(t, g, graphtest.At(20, "B"), "b", "gist b", nil, nil)
	graphtest.PutAt(t, g, graphtest.At(30, ""), "c", "gist c", nil, nil)
	graphtest.Edge(t, g, graphtest.At(40, "B"), "a", "uses", "b")
	graphtest.Edge(t, g, graphtest.At(50, "A"), "b", "uses", "c")
	if !g.DeleteEdge(domain.EdgeKey{From: "a", To: "b", Rel: "uses"}, graphtest.At(60, "B")) {
		t.Fatal("DeleteEdge: edge missing")
	}
	graphtest.PutAt(t, g, graphtest.At(70, "B"), "d", "gist d", nil, nil)
	if _, err := g.DeleteNode("b", graphtest.At(80, "B")); err != nil {
		t.Fatal(err)
	}
	graphtest.PutAt(t, g, graphtest.At(100, ""), "e", "gist e", nil, nil)
	if g.Seq() != 10 {
		t.Fatalf("setup: seq = %d, want 10", g.Seq())
	}
	g.Checkpoint() // sync reports what is durable
	return g
}

func TestSince(t *testing.T) {
	g := syncGraph(t)
	tests := []struct {
		name     string
		from, to uint64
		exclude  string
		want     []string
	}{
		{
			name: "everything for nobody in particular",
			from: 0, to: 10, exclude: "",
			want: []string{"node a", "node c", "deleted edge a --uses--> b", "node d",
				"deleted edge b --uses--> c", "deleted node b", "node e"},
		},
		{
			name: "session A does not hear of its own writes",
			from: 0, to: 10, exclude: "A",
			want: []string{"node c", "deleted edge a --uses--> b", "node d",
				"deleted edge b --uses--> c", "deleted node b", "node e"},
		},
		{
			name: "session B hears of A's writes and of writes without a session",
			from: 0, to: 10, exclude: "B",
			want: []string{"node a", "node c", "node e"},
		},
		{
			name: "from is exclusive and to inclusive",
			from: 3, to: 7, exclude: "",
			want: []string{"deleted edge a --uses--> b", "node d"},
		},
		{
			name: "changes after to are not reported yet",
			from: 0, to: 2, exclude: "",
			want: []string{"node a"},
		},
		{
			name: "empty range",
			from: 10, to: 10, exclude: "",
			want: []string{},
		},
		{
			name: "an unknown session hears everything",
			from: 0, to: 10, exclude: "Z",
			want: []string{"node a", "node c", "deleted edge a --uses--> b", "node d",
				"deleted edge b --uses--> c", "deleted node b", "node e"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Since(g, tc.from, tc.to, tc.exclude)
			if diff := cmp.Diff(tc.want, syncLines(r)); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			for i := 1; i < len(r.Items); i++ {
				if r.Items[i-1].Seq >= r.Items[i].Seq {
					t.Errorf("items not sorted by seq: %d then %d", r.Items[i-1].Seq, r.Items[i].Seq)
				}
			}
			if r.Archived+r.Restored+r.Orphaned+r.Pruned != 0 {
				t.Errorf("compaction counts = %+v, want none", r)
			}
		})
	}
}

func TestSinceReportsCurrentContent(t *testing.T) {
	g := domain.NewGraph(domain.UserGraph)
	graphtest.PutAt(t, g, graphtest.At(1, "A"), "n", "first", nil, nil) // seq 1
	graphtest.PutAt(t, g, graphtest.At(2, "A"), "n", "second", nil, nil)
	g.Checkpoint()
	r := Since(g, 0, g.Seq(), "B")
	if len(r.Items) != 1 || r.Items[0].Node.Gist != "second" || r.Items[0].Seq != 2 {
		t.Fatalf("items = %+v, want node n at seq 2 with gist \"second\"", r.Items)
	}
	// A node re-created after its deletion is an upsert, not a deletion.
	if _, err := g.DeleteNode("n", graphtest.At(3, "A")); err != nil {
		t.Fatal(err)
	}
	graphtest.PutAt(t, g, graphtest.At(4, "A"), "n", "third", nil, nil)
	g.Checkpoint()
	if diff := cmp.Diff([]string{"node n"}, syncLines(Since(g, 0, g.Seq(), ""))); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}

func TestSinceCompaction(t *testing.T) {
	g := domain.NewGraph(domain.UserGraph)
	for _, id := range []string{"a", "b", "c", "d", "e", "f"} {
		graphtest.PutAt(t, g, graphtest.At(1, "A"), id, "gist", nil, nil)
	}
	graphtest.Edge(t, g, graphtest.At(1, "A"), "c", "rel", "d")
	base := g.Seq() // 7
	graphtest.SetTier(t, g, "a", domain.Archived, 5)
	graphtest.SetTier(t, g, "b", domain.Orphaned, 6) // not due when d is pruned at 6
	graphtest.SetTier(t, g, "c", domain.Archived, 5)
	graphtest.SetTier(t, g, "c", domain.Active, 5) // archived then restored in the range: counts once, as restored
	graphtest.SetTier(t, g, "d", domain.Orphaned, 5)
	pruneAt(t, g, graphtest.At(6, ""), "d")                            // pruned with its edge
	if _, err := g.DeleteNode("e", graphtest.At(6, "B")); err != nil { // a client's deletion
		t.Fatal(err)
	}
	mid := g.Seq()
	graphtest.SetTier(t, g, "f", domain.Archived, 7)
	g.Checkpoint()

	tests := []struct {
		name      string
		from, to  uint64
		wantItems []string
		want      Report
	}{
		{
			name: "moves and pruning in range",
			from: base, to: mid,
			wantItems: []string{"deleted node e"},
			want:      Report{Archived: 1, Restored: 1, Orphaned: 1, Pruned: 1},
		},
		{
			name: "a move after to is not counted",
			from: mid, to: mid,
			wantItems: []string{},
		},
		{
			name: "a later range counts only its moves",
			from: mid, to: g.Seq(),
			wantItems: []string{},
			want:      Report{Archived: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Since(g, tc.from, tc.to, "A")
			if diff := cmp.Diff(tc.wantItems, syncLines(r)); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			r.Items = nil
			if diff := cmp.Diff(tc.want, r); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSinceRecall(t *testing.T) {
	g := domain.NewGraph(domain.UserGraph)
	graphtest.PutAt(t, g, graphtest.At(1, "A"), "hub", "gist", nil, nil)
	graphtest.PutAt(t, g, graphtest.At(1, "A"), "leaf", "gist", nil, nil)
	graphtest.Edge(t, g, graphtest.At(1, "A"), "hub", "rel", "leaf")
	graphtest.SetTier(t, g, "hub", domain.Archived, 2)
	graphtest.SetTier(t, g, "leaf", domain.Orphaned, 2)
	base := g.Seq()
	if _, err := g.RecallNode("hub", graphtest.At(3, "B")); err != nil {
		t.Fatal(err)
	}
	g.Checkpoint()
	r := Since(g, base, g.Seq(), "A")
	if diff := cmp.Diff([]string{"node hub"}, syncLines(r)); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if r.Archived != 1 || r.Restored != 0 || r.Orphaned != 0 {
		t.Errorf("counts = %+v, want the rescued leaf as 1 archived", r)
	}
	if got := Since(g, base, g.Seq(), "B"); len(got.Items) != 0 || got.Archived != 1 {
		t.Errorf("for the reader: %+v, want no items and 1 archived", got)
	}
}

// A batch whose save is in flight is not the durable state: sync reports
// what is on disk, so a failed save that rolls back loses nothing another
// session was due to hear of.
func TestSinceReadsTheDurableState(t *testing.T) {
	g := domain.NewGraph(domain.UserGraph)
	graphtest.PutAt(t, g, graphtest.At(1, "A"), "n", "first", nil, nil)     // seq 1
	graphtest.PutAt(t, g, graphtest.At(1, "A"), "gone", "doomed", nil, nil) // seq 2
	graphtest.Edge(t, g, graphtest.At(1, "A"), "n", "uses", "gone")         // seq 3
	g.Checkpoint()
	durable := g.DurableSeq()

	// A's next batch is applied but not yet saved: it rewrites n, deletes
	// gone with its edge, and creates fresh.
	graphtest.PutAt(t, g, graphtest.At(2, "A"), "n", "second", nil, nil)
	if _, err := g.DeleteNode("gone", graphtest.At(2, "A")); err != nil {
		t.Fatal(err)
	}
	graphtest.PutAt(t, g, graphtest.At(2, "A"), "fresh", "not saved yet", nil, nil)

	r := Since(g, 0, durable, "B")
	if diff := cmp.Diff([]string{"node n", "node gone", "edge n --uses--> gone"}, syncLines(r)); diff != "" {
		t.Fatalf("items while a save is in flight (-want +got):\n%s", diff)
	}
	if got := r.Items[0].Node.Gist; got != "first" {
		t.Errorf("node n reported with gist %q, want the durable %q", got, "first")
	}

	// The save fails: the graph rolls back to what B has now heard of, and
	// nothing in (0, durable] is left unreported.
	g.Rollback()
	if diff := cmp.Diff(syncLines(r), syncLines(Since(g, 0, durable, "B"))); diff != "" {
		t.Errorf("after rollback the durable range reads differently (-before +after):\n%s", diff)
	}
}

func TestSeqAt(t *testing.T) {
	g := syncGraph(t)
	// After syncGraph: live a(seq 1, ts 10), c(3, 30), d(7, 70), e(10, 100);
	// tombstones edge a-b (6, 60), edge b-c (8, 80), node b (9, 80).
	graphtest.Edge(t, g, graphtest.At(90, "B"), "c", "uses", "d") // seq 11
	graphtest.SetTier(t, g, "a", domain.Archived, 200)            // a tier change has no time: never counts
	tests := []struct {
		name string
		ts   domain.Micros
		want uint64
	}{
		{"before everything", 9, 0},
		{"exactly at the first change", 10, 1},
		{"between changes", 55, 3},
		{"a tombstone counts", 60, 6},
		{"the highest seq at one time", 80, 9},
		{"a live edge counts", 95, 11},
		{"after everything, but not the tier change (seq 12)", 1000, 11},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := SeqAt(g, tc.ts); got != tc.want {
				t.Errorf("SeqAt(g, %d) = %d, want %d", tc.ts, got, tc.want)
			}
		})
	}
}

// The tie-breaks of the item order only matter for data edited by hand,
// where two items may claim one seq; the order must still be total.
func TestCmpItemTies(t *testing.T) {
	n := &domain.Node{ID: "n"}
	e := &domain.Edge{From: "a", To: "b", Rel: "r"}
	k := domain.EdgeKey{From: "a", To: "c", Rel: "r"}
	items := []Item{
		{Seq: 5, EdgeKey: &k, Deleted: true},
		{Seq: 5, Edge: e},
		{Seq: 5, NodeID: "m", Deleted: true},
		{Seq: 5, Node: n},
		{Seq: 4, Node: &domain.Node{ID: "z"}},
	}
	slices.SortFunc(items, cmpItem)
	var got []string
	for _, it := range items {
		_, name := it.itemName()
		got = append(got, name)
	}
	want := []string{"z", "m", "n", "a --r--> b", "a --r--> c"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}
