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
