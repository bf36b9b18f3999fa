package domain

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// failer is what the helpers need of a test: *testing.T, *testing.B and
// *rapid.T all have it.
type failer interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// coreAt is the stamp of a change made at now by session.
func coreAt(now Micros, session string) Stamp { return Stamp{Now: now, Session: session} }

// corePut puts a node at time 1 without a session and fails the test on
// error.
func corePut(t failer, g *Graph, id, gist string, notes, touches []string) *Node {
	t.Helper()
	return corePutAt(t, g, coreAt(1, ""), id, gist, notes, touches)
}

// corePutAt puts a node with stamp at and fails the test on error.
func corePutAt(t failer, g *Graph, at Stamp, id, gist string, notes, touches []string) *Node {
	t.Helper()
	n, err := g.PutNode(NodeInput{ID: id, Gist: gist, Notes: notes, Touches: touches}, at)
	if err != nil {
		t.Fatalf("PutNode(%q): %v", id, err)
	}
	return n
}

// coreEdge puts an edge with stamp at and fails the test on error.
func coreEdge(t failer, g *Graph, at Stamp, from, rel, to string) *Edge {
	t.Helper()
	e, err := g.PutEdge(EdgeInput{From: from, To: to, Rel: rel}, at)
	if err != nil {
		t.Fatalf("PutEdge(%s --%s--> %s): %v", from, rel, to, err)
	}
	return e
}

// scratchStats computes the stats of g from scratch, from its data and the
// shown-edge rule of compaction.md, without any of the graph's indexes.
func scratchStats(g *Graph) Stats {
	d := g.Data()
	var s Stats
	tier := map[string]Tier{}
	for i := range d.Nodes {
		n := &d.Nodes[i]
		tier[n.ID] = n.Tier
		switch n.Tier {
		case Active:
			s.Active++
			gl := len([]rune(n.Gist))
			nl := gl
			for _, note := range n.Notes {
				nl += len([]rune(note))
			}
			s.GistCost += gl / 4
			s.NotesCost += nl / 4
		case Archived:
			s.Archived++
		case Orphaned:
			s.Orphaned++
		}
	}
	for _, e := range d.Edges {
		s.Edges++
		ft, fNode := tier[e.From]
		tt, tNode := tier[e.To]
		switch {
		case fNode && ft == Orphaned, tNode && tt == Orphaned:
		case fNode && ft == Active, tNode && tt == Active:
			s.ShownEdges++
		case !fNode && !tNode:
			s.ShownEdges++
		}
	}
	return s
}

// checkIndexes fails the test when the stats or the adjacency index of g
// differ from what its data says.
func checkIndexes(t failer, g *Graph) {
	t.Helper()
	if got, want := g.Stats(), scratchStats(g); got != want {
		t.Errorf("stats = %+v, from scratch %+v", got, want)
	}
	entries := 0
	for _, ix := range []map[string]map[EdgeKey]struct{}{g.out, g.in} {
		for end, keys := range ix {
			if len(keys) == 0 {
				t.Errorf("index keeps an empty set for %q", end)
			}
			entries += len(keys)
			for k := range keys {
				if _, ok := g.edges[k]; !ok {
					t.Errorf("index lists missing edge %s under %q", k, end)
				}
			}
		}
	}
	for k := range g.edges {
		if _, ok := g.out[k.From][k]; !ok {
			t.Errorf("edge %s missing from the out index", k)
		}
		if _, ok := g.in[k.To][k]; !ok {
			t.Errorf("edge %s missing from the in index", k)
		}
	}
	if entries != 2*len(g.edges) {
		t.Errorf("index holds %d entries, want %d", entries, 2*len(g.edges))
	}
}

func TestGraphAccessors(t *testing.T) {
	g := richGraph(t)
	if g.Key() != ProjectGraph("/p") {
		t.Errorf("key = %v", g.Key())
	}
	var ids []string
	for _, n := range g.Nodes() {
		ids = append(ids, n.ID)
	}
	if diff := cmp.Diff([]string{"a", "b", "c", "d"}, ids); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	var edges []string
	for _, e := range g.EdgesOf("c") {
		edges = append(edges, e.Key().String())
	}
	if diff := cmp.Diff([]string{"b --r--> c", "c --r--> d"}, edges); diff != "" {
		t.Errorf("edges of c (-want +got):\n%s", diff)
	}
	if g.NodeCount() != 4 || g.EdgeCount() != 4 || len(g.Edges()) != 4 {
		t.Errorf("counts: %d nodes, %d edges", g.NodeCount(), g.EdgeCount())
	}
	tests := []struct {
		name string
		k    EdgeKey
		want bool
	}{
		{"active to active", EdgeKey{"a", "b", "r"}, true},
		{"active to archived", EdgeKey{"b", "c", "r"}, true},
		{"archived to orphaned", EdgeKey{"c", "d", "r"}, false},
		{"orphaned to file", EdgeKey{"d", "d.go", "touches"}, false},
		{"file to file", EdgeKey{"x.md", "y.md", "links"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := g.Shown(tc.k); got != tc.want {
				t.Errorf("Shown(%s) = %v, want %v", tc.k, got, tc.want)
			}
		})
	}
	if n, _ := g.Node("a"); n.Recency() != 40 || n.LastWrite() != 10 {
		t.Errorf("a: recency %d, last write %d; want 40 and 10", n.Recency(), n.LastWrite())
	}
	checkIndexes(t, g)
}

func TestStatsEstimate(t *testing.T) {
	s := Stats{Active: 2, GistCost: 10, NotesCost: 30, ShownEdges: 3}
	if got := s.Estimate(false); got != 2*20+10+3*15 {
		t.Errorf("estimate = %d", got)
	}
	if got := s.Estimate(true); got != 2*20+30+3*15 {
		t.Errorf("estimate with notes = %d", got)
	}
}

func TestNames(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"user key", UserGraph.String(), "user"},
		{"project key", ProjectGraph("/home/me/app").String(), "project:/home/me/app"},
		{"active", Active.String(), "active"},
		{"archived", Archived.String(), "archived"},
		{"orphaned", Orphaned.String(), "orphaned"},
		{"unknown tier", Tier(7).String(), "tier(7)"},
		{"edge key", EdgeKey{From: "a", To: "b.go", Rel: "touches"}.String(), "a --touches--> b.go"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

func TestCmpGraphKey(t *testing.T) {
	user, pa, pb := UserGraph, ProjectGraph("/a"), ProjectGraph("/b")
	tests := []struct {
		name string
		a, b GraphKey
		want int
	}{
		{"user before project", user, pa, -1},
		{"project after user", pb, user, 1},
		{"projects by path", pa, pb, -1},
		{"same project", pb, pb, 0},
		{"same user", user, user, 0},
		{"unknown levels by name", GraphKey{Level: "team"}, pa, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := cmpGraphKey(tc.a, tc.b); got != tc.want {
				t.Errorf("cmpGraphKey(%v, %v) = %d, want %d", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

func TestCmpEdgeKeyAgreesWithLess(t *testing.T) {
	keys := []EdgeKey{{"a", "b", "r"}, {"a", "b", "s"}, {"a", "c", "r"}, {"b", "a", "a"}, {"a", "a", "s"}, {"", "", ""}}
	for _, x := range keys {
		for _, y := range keys {
			want := 0
			switch {
			case x.Less(y):
				want = -1
			case y.Less(x):
				want = 1
			}
			if got := cmpEdgeKey(x, y); got != want {
				t.Errorf("cmpEdgeKey(%v, %v) = %d, Less says %d", x, y, got, want)
			}
		}
	}
}
