package domain

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hitNames renders hits as "key/id" for compact comparisons.
func hitNames(hits []SearchHit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Key.String() + "/" + h.Node.ID
	}
	return out
}

// rrf returns the float64 sum of 1/k over ks, added in order as Search adds
// them (constant expressions would be exact and differ in the last bit).
func rrf(ks ...int) float64 {
	s := 0.0
	for _, k := range ks {
		s += 1 / float64(k)
	}
	return s
}

func TestSearchRanking(t *testing.T) {
	g := NewGraph(UserGraph)
	corePut(t, g, "alpha", "cache cache cache", nil, nil)
	corePut(t, g, "beta", "a Cache", nil, nil)
	corePut(t, g, "gamma", "token cache", nil, nil)
	corePut(t, g, "delta", "unrelated", nil, nil)

	tests := []struct {
		name   string
		query  string
		want   []string
		scores []float64
	}{
		{
			name:  "one term ranked by occurrences then id",
			query: "cache",
			want:  []string{"user/alpha", "user/beta", "user/gamma"},
			// alpha 3 occurrences, beta and gamma 1 each (tie by id).
			scores: []float64{rrf(60), rrf(61), rrf(62)},
		},
		{
			name:   "scores add up over terms",
			query:  "cache token",
			want:   []string{"user/gamma", "user/alpha", "user/beta"},
			scores: []float64{rrf(62, 60), rrf(60), rrf(61)},
		},
		{
			name:   "query is lower-cased and repeated terms count once",
			query:  "TOKEN token Token",
			want:   []string{"user/gamma"},
			scores: []float64{rrf(60)},
		},
		{
			name:   "id is searched",
			query:  "delt",
			want:   []string{"user/delta"},
			scores: []float64{rrf(60)},
		},
		{
			name:  "no match",
			query: "zzz",
			want:  []string{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := Search([]*Graph{g}, tc.query, 0)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, hitNames(hits)); diff != "" {
				t.Fatalf("hits (-want +got):\n%s", diff)
			}
			for i, s := range tc.scores {
				if hits[i].Score != s {
					t.Errorf("score of %s = %v, want %v", hits[i].Node.ID, hits[i].Score, s)
				}
			}
		})
	}
}

func TestSearchFields(t *testing.T) {
	g := NewGraph(UserGraph)
	corePut(t, g, "n-notes", "gist one", []string{"see Refresh handler", "refresh twice: refresh"}, nil)
	corePut(t, g, "n-touch", "gist two", nil, []string{"src/auth/REFRESH.py"})
	corePut(t, g, "n-split", "ends with foo", []string{"bar starts the note"}, nil)

	tests := []struct {
		name  string
		query string
		want  []string
	}{
		// n-notes has 3 occurrences across two notes, n-touch 1.
		{"notes and touches are searched, counts add across fields", "refresh", []string{"user/n-notes", "user/n-touch"}},
		{"a term never spans two fields", "foobar", []string{}},
		{"a term may hold punctuation", "src/auth/", []string{"user/n-touch"}},
		{"white space of any kind splits terms", "foo\tbar\nnothing", []string{"user/n-split"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := Search([]*Graph{g}, tc.query, 0)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, hitNames(hits)); diff != "" {
				t.Fatalf("hits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSearchAcrossGraphsAndTiers(t *testing.T) {
	user := NewGraph(UserGraph)
	pa := NewGraph(ProjectGraph("/p/a"))
	pb := NewGraph(ProjectGraph("/p/b"))
	corePut(t, user, "same", "shared word", nil, nil)
	corePut(t, pb, "same", "shared word", nil, nil)
	corePut(t, pa, "same", "shared word", nil, nil)
	corePut(t, pa, "arch", "shared archived", nil, nil)
	corePut(t, pa, "orph", "shared orphaned", nil, nil)
	pa.setTier("arch", Archived, 10)
	pa.setTier("orph", Orphaned, 10)

	before := []GraphData{user.Data(), pa.Data(), pb.Data()}
	pa.Checkpoint()

	// Input order of the graphs must not matter.
	hits, err := Search([]*Graph{pb, nil, pa, user}, "shared", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"project:/p/a/arch", "project:/p/a/orph", "user/same", "project:/p/a/same", "project:/p/b/same"}
	if diff := cmp.Diff(want, hitNames(hits)); diff != "" {
		t.Fatalf("hits (-want +got):\n%s", diff)
	}
	if hits[1].Node.Tier != Orphaned || hits[0].Node.Tier != Archived {
		t.Errorf("tiers = %v, %v; want archived, orphaned", hits[0].Node.Tier, hits[1].Node.Tier)
	}

	after := []GraphData{user.Data(), pa.Data(), pb.Data()}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("search changed a graph (-before +after):\n%s", diff)
	}
	if !pa.Pending().Empty() {
		t.Errorf("search left pending changes: %+v", pa.Pending())
	}
}

func TestSearchLimit(t *testing.T) {
	g := NewGraph(UserGraph)
	for i := range 150 {
		corePut(t, g, "n"+strings.Repeat("x", i/26)+string(rune('a'+i%26)), "common", nil, nil)
	}
	tests := []struct {
		name  string
		limit int
		want  int
	}{
		{"zero means the default", 0, DefaultSearchLim},
		{"below the maximum", 7, 7},
		{"the maximum", MaxSearchLimit, MaxSearchLimit},
		{"above the maximum is clamped", 500, MaxSearchLimit},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := Search([]*Graph{g}, "common", tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != tc.want {
				t.Fatalf("got %d hits, want %d", len(hits), tc.want)
			}
			for i := 1; i < len(hits); i++ {
				if hits[i-1].Score < hits[i].Score {
					t.Fatalf("hits not sorted by score at %d", i)
				}
			}
		})
	}
}

func TestSearchRejects(t *testing.T) {
	g := NewGraph(UserGraph)
	tests := []struct {
		name    string
		query   string
		limit   int
		wantErr string
	}{
		{"empty query", "", 0, "query: must not be empty"},
		{"blank query", " \t\n", 0, "query: must not be empty"},
		{"query too long", strings.Repeat("é", MaxQueryLen+1), 0, "query: 1001 chars, limit 1000"},
		{"query with NUL", "a\x00b", 0, "query: must not contain NUL"},
		{"query not UTF-8", "a\xffb", 0, "query: must be valid UTF-8"},
		{"negative limit", "a", -1, "limit: -1 must be between 0 (default 20) and 100"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := Search([]*Graph{g}, tc.query, tc.limit)
			if err == nil {
				t.Fatalf("got %d hits and no error, want %q", len(hits), tc.wantErr)
			}
			if err.Error() != tc.wantErr {
				t.Errorf("error = %q, want %q", err, tc.wantErr)
			}
			if KindOf(err) != KindInvalid {
				t.Errorf("kind = %v, want invalid", KindOf(err))
			}
		})
	}
}

func TestSearchQueryAtLimit(t *testing.T) {
	g := NewGraph(UserGraph)
	corePut(t, g, "n", strings.Repeat("a", 10), nil, nil)
	if _, err := Search([]*Graph{g}, strings.Repeat("a", MaxQueryLen), 0); err != nil {
		t.Fatalf("a query of exactly %d chars: %v", MaxQueryLen, err)
	}
}

// TestSearchEdgeEnds: the far ends of a node's edges that are not nodes
// (file paths, artifacts) are part of its text, once per edge, and stop
// being so when a node of that name appears (issue 10: "what touches
// src/auth.go?").
func TestSearchEdgeEnds(t *testing.T) {
	g := NewGraph(ProjectGraph("/p"))
	corePut(t, g, "login-flow", "how sessions start", nil, nil)
	corePut(t, g, "token-store", "where tokens live", nil, []string{"src/Auth.go"})
	corePut(t, g, "unrelated", "nothing here", nil, nil)
	coreEdge(t, g, coreAt(2, ""), "login-flow", "touches", "src/auth.go")
	coreEdge(t, g, coreAt(2, ""), "src/auth.go", "read-by", "login-flow") // a second edge: counts again
	coreEdge(t, g, coreAt(2, ""), "unrelated", "next-to", "token-store")  // between nodes: no text
	search := func(q string) []string {
		t.Helper()
		hits, err := Search([]*Graph{g}, q, 0)
		if err != nil {
			t.Fatal(err)
		}
		return hitNames(hits)
	}
	const p = "project:/p/"
	steps := []struct {
		name  string
		do    func()
		query string
		want  []string
	}{
		{"an end is found, counted once per edge", nil, "src/auth.go",
			[]string{p + "login-flow", p + "token-store"}},
		{"an end is lower-cased like the rest", nil, "AUTH.GO", []string{p + "login-flow", p + "token-store"}},
		{"a node at the far end is not text", nil, "token-store", []string{p + "token-store"}},
		{"an id not created yet is an end", func() {
			coreEdge(t, g, coreAt(3, ""), "token-store", "uses", "src-auth")
		}, "src-auth", []string{p + "token-store"}},
		{"an end that becomes a node leaves the text of its neighbours", func() {
			corePut(t, g, "src-auth", "placeholder", nil, nil)
		}, "src-auth", []string{p + "src-auth"}},
		{"a rewrite of that node changes nothing for them", func() {
			corePut(t, g, "src-auth", "now a node", nil, nil)
		}, "src-auth", []string{p + "src-auth"}},
		{"deleting it deletes its edges; an edge put again brings the end back", func() {
			if _, err := g.DeleteNode("src-auth", coreAt(4, "")); err != nil {
				t.Fatal(err)
			}
			coreEdge(t, g, coreAt(4, ""), "token-store", "uses", "src-auth")
		}, "src-auth", []string{p + "token-store"}},
		{"a deleted edge takes its end away", func() {
			g.DeleteEdge(EdgeKey{"login-flow", "src/auth.go", "touches"}, coreAt(5, ""))
			g.DeleteEdge(EdgeKey{"src/auth.go", "login-flow", "read-by"}, coreAt(5, ""))
		}, "src/auth.go", []string{p + "token-store"}},
	}
	for _, st := range steps {
		if st.do != nil {
			st.do()
		}
		if diff := cmp.Diff(st.want, search(st.query)); diff != "" {
			t.Errorf("%s: %q (-want +got):\n%s", st.name, st.query, diff)
		}
		for _, p := range searchIndexProblems(g) {
			t.Errorf("%s: %s", st.name, p)
		}
	}
}

// TestSearchEdgeEndsAfterRollback: a node created under a name that edges
// already pointed at, then rolled back, gives that name back to the text of
// its neighbours.
func TestSearchEdgeEndsAfterRollback(t *testing.T) {
	g := NewGraph(UserGraph)
	corePut(t, g, "a", "first", nil, nil)
	coreEdge(t, g, coreAt(2, ""), "a", "plans", "later-node")
	g.Checkpoint()
	corePut(t, g, "later-node", "made now", nil, nil)
	if got := hitNamesOf(t, g, "later-node"); !cmp.Equal(got, []string{"user/later-node"}) {
		t.Fatalf("before the rollback: %v", got)
	}
	g.Rollback()
	if diff := cmp.Diff([]string{"user/a"}, hitNamesOf(t, g, "later-node")); diff != "" {
		t.Errorf("after the rollback (-want +got):\n%s", diff)
	}
	for _, p := range searchIndexProblems(g) {
		t.Error(p)
	}
}

func hitNamesOf(t *testing.T, g *Graph, q string) []string {
	t.Helper()
	hits, err := Search([]*Graph{g}, q, 0)
	if err != nil {
		t.Fatal(err)
	}
	return hitNames(hits)
}
