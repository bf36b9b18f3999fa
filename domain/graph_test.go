package domain

import (
	"fmt"
	"testing"
	"unicode/utf8"

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
// shown-edge rule of docs/design/compaction.md#shown-edges, without any of the
// graph's indexes.
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
	for _, p := range indexProblems(g) {
		t.Errorf("%s", p)
	}
}

// nodeMap returns every node of g by its id, as the slots hold them.
func nodeMap(g *Graph) map[string]*Node {
	m := map[string]*Node{}
	for i := range g.ends {
		if s := &g.ends[i]; s.node != nil {
			m[s.name] = s.node
		}
	}
	return m
}

// indexProblems compares the adjacency index of g (its end and edge slots)
// with one recomputed from scratch from its nodes and edges: every edge is
// indexed at both ends with the right positions, every end that names a
// node or an end of an edge has exactly one slot carrying its node, tier
// and text costs, no slot or entry is stale, and the free lists hold
// exactly the slots not in use. It returns one line per problem.
func indexProblems(g *Graph) []string {
	var probs []string
	bad := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }

	// From scratch: the keys going out of and coming into each end.
	out, in := map[string]map[EdgeKey]bool{}, map[string]map[EdgeKey]bool{}
	add := func(ix map[string]map[EdgeKey]bool, end string, k EdgeKey) {
		if ix[end] == nil {
			ix[end] = map[EdgeKey]bool{}
		}
		ix[end][k] = true
	}
	names := map[string]bool{}
	nodes := nodeMap(g)
	for id, n := range nodes {
		names[id] = true
		if n.ID != id {
			bad("node %q is kept under %q", n.ID, id)
		}
	}
	forms := map[string]int32{}
	for id := range nodes {
		forms[NormalizedID(id)]++
	}
	if len(forms) != len(g.idForms) {
		bad("%d id forms counted, %d from scratch", len(g.idForms), len(forms))
	}
	for f, c := range forms {
		if g.idForms[f] != c {
			bad("id form %q counted %d times, %d from scratch", f, g.idForms[f], c)
		}
	}
	if g.nodeCount != len(nodes) {
		bad("node count %d, %d nodes", g.nodeCount, len(nodes))
	}
	for k := range g.edges {
		add(out, k.From, k)
		add(in, k.To, k)
		names[k.From], names[k.To] = true, true
	}

	// Edge slots: one live slot per edge, holding that edge.
	usedEdge := map[int32]EdgeKey{}
	for k, ei := range g.edges {
		if ei < 0 || int(ei) >= len(g.edgeSlots) {
			bad("edge %s in slot %d of %d", k, ei, len(g.edgeSlots))
			continue
		}
		if o, dup := usedEdge[ei]; dup {
			bad("edges %s and %s share slot %d", o, k, ei)
		}
		usedEdge[ei] = k
		if e := g.edgeSlots[ei].e; e == nil || e.Key() != k {
			bad("slot %d of edge %s holds %v", ei, k, e)
		}
	}
	for _, ei := range g.freeEdges {
		if ei < 0 || int(ei) >= len(g.edgeSlots) {
			bad("free edge slot %d of %d", ei, len(g.edgeSlots))
			continue
		}
		if k, dup := usedEdge[ei]; dup {
			bad("edge slot %d is free and in use (%s)", ei, k)
		}
		usedEdge[ei] = EdgeKey{}
		if x := g.edgeSlots[ei]; x != (edgeSlot{}) {
			bad("free edge slot %d is not empty: %+v", ei, x)
		}
	}
	if len(usedEdge) != len(g.edgeSlots) {
		bad("%d edge slots in use or free, of %d", len(usedEdge), len(g.edgeSlots))
	}

	// End slots: one per name, nothing stale.
	if len(g.endTiers) != len(g.ends) {
		bad("%d end tiers for %d end slots", len(g.endTiers), len(g.ends))
		return probs
	}
	if len(g.endIx) != len(names) {
		bad("%d end slots indexed, want %d", len(g.endIx), len(names))
	}
	usedEnd := map[int32]string{}
	for name, si := range g.endIx {
		if !names[name] {
			bad("stale end slot %d for %q", si, name)
		}
		if si < 0 || int(si) >= len(g.ends) {
			bad("end %q in slot %d of %d", name, si, len(g.ends))
			continue
		}
		if o, dup := usedEnd[si]; dup {
			bad("ends %q and %q share slot %d", o, name, si)
		}
		usedEnd[si] = name
	}
	for _, si := range g.freeEnds {
		if si < 0 || int(si) >= len(g.ends) {
			bad("free end slot %d of %d", si, len(g.ends))
			continue
		}
		if name, dup := usedEnd[si]; dup {
			bad("end slot %d is free and in use (%q)", si, name)
		}
		usedEnd[si] = ""
		if s := g.ends[si]; s.name != "" || s.node != nil || g.endTiers[si] != EndRef || s.gistCost != 0 ||
			s.notesCost != 0 || len(s.out) != 0 || len(s.in) != 0 {
			bad("free end slot %d is not empty: %+v", si, s)
		}
	}
	if len(usedEnd) != len(g.ends) {
		bad("%d end slots in use or free, of %d", len(usedEnd), len(g.ends))
	}

	entries := 0
	for name := range names {
		si, ok := g.endIx[name]
		if !ok {
			bad("end %q has no slot", name)
			continue
		}
		if si < 0 || int(si) >= len(g.ends) {
			continue // reported above
		}
		s := g.ends[si]
		if s.name != name {
			bad("slot %d of %q is named %q", si, name, s.name)
		}
		n, isNode := nodes[name]
		if s.node != n {
			bad("slot of %q holds node %p, want %p", name, s.node, n)
		}
		if g.endTiers[si] != tierOf(n, isNode) {
			bad("slot of %q has tier %d, want %d", name, g.endTiers[si], tierOf(n, isNode))
		}
		var gc, nc int32
		if isNode {
			gl := utf8.RuneCountInString(n.Gist)
			nl := gl
			for _, note := range n.Notes {
				nl += utf8.RuneCountInString(note)
			}
			gc, nc = int32(gl/4), int32(nl/4)
		}
		if s.gistCost != gc || s.notesCost != nc {
			bad("slot of %q has costs %d/%d, want %d/%d", name, s.gistCost, s.notesCost, gc, nc)
		}
		for _, side := range []struct {
			name  string
			list  []SlotEdge
			want  map[EdgeKey]bool
			isOut bool
		}{{"out", s.out, out[name], true}, {"in", s.in, in[name], false}} {
			entries += len(side.list)
			seen := map[EdgeKey]bool{}
			for pos, a := range side.list {
				ei := a.edge
				if ei < 0 || int(ei) >= len(g.edgeSlots) || g.edgeSlots[ei].e == nil {
					bad("%s list of %q holds dead edge slot %d", side.name, name, ei)
					continue
				}
				x := g.edgeSlots[ei]
				k := x.e.Key()
				if seen[k] {
					bad("%s list of %q holds %s twice", side.name, name, k)
				}
				seen[k] = true
				if !side.want[k] {
					bad("%s list of %q holds %s, which does not belong there", side.name, name, k)
				}
				end, at, other := x.to, x.inPos, x.from
				if side.isOut {
					end, at, other = x.from, x.outPos, x.to
				}
				if end != si || int(at) != pos {
					bad("edge %s is at %d in the %s list of slot %d, its slot says %d in slot %d",
						k, pos, side.name, si, at, end)
				}
				if a.Other != other {
					bad("edge %s in the %s list of %q names other end slot %d, its slot says %d",
						k, side.name, name, a.Other, other)
				}
			}
			for k := range side.want {
				if !seen[k] {
					bad("edge %s missing from the %s list of %q", k, side.name, name)
				}
			}
		}
	}
	if entries != 2*len(g.edges) {
		bad("index holds %d entries, want %d", entries, 2*len(g.edges))
	}

	// The movable list: exactly the slots of active and archived nodes,
	// each knowing its position.
	movable := map[int32]bool{}
	for pos, si := range g.movable {
		if si < 0 || int(si) >= len(g.ends) {
			bad("movable slot %d of %d", si, len(g.ends))
			continue
		}
		if movable[si] {
			bad("slot %d is listed as movable twice", si)
		}
		movable[si] = true
		if got := g.ends[si].movable; int(got) != pos+1 {
			bad("movable slot %d is at %d, it says %d", si, pos+1, got)
		}
	}
	for si := range g.ends {
		n := g.ends[si].node
		want := n != nil && (n.Tier == Active || n.Tier == Archived)
		if want != movable[int32(si)] {
			bad("slot %d (%q) movable: listed %v, want %v", si, g.ends[si].name, movable[int32(si)], want)
		}
		if !want && g.ends[si].movable != 0 {
			bad("slot %d is not movable but says position %d", si, g.ends[si].movable)
		}
	}
	return append(probs, searchIndexProblems(g)...)
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
