package graphsearch

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/internal/graphtest"
	"github.com/kg-memory/kg/domain/search"
)

// TestFindRanking: rarer words count more, a word of the id or gist
// counts more than one of the notes, repeats saturate, stop words count
// little, and scores follow the formula of docs/design/mcp.md#kg_search.
func TestFindRanking(t *testing.T) {
	g := domain.NewGraph(domain.UserGraph)
	graphtest.Put(t, g, "alpha", "the cache of the pottery class", nil, nil)
	graphtest.Put(t, g, "beta", "the cache", nil, nil)
	graphtest.Put(t, g, "gamma", "a plain gist", []string{"pottery twice: pottery"}, nil)
	graphtest.Put(t, g, "delta", "the cache is warm", nil, nil)
	graphtest.Put(t, g, "epsilon", "pottery", nil, nil)

	// "pottery" is in 3 of 5 nodes, "cache" in 3: alpha holds both.
	res := searchOne(t, []*domain.Graph{g}, "When did the pottery cache?")
	if diff := cmp.Diff([]string{"user/alpha", "user/beta", "user/delta", "user/epsilon", "user/gamma"}, hitNames(res.Hits)); diff != "" {
		t.Fatalf("hits (-want +got):\n%s", diff)
	}
	// epsilon: "pottery" once in the gist, tf 2; gamma: twice in a note, tf 2
	// as well, and a shorter node is not favoured (b = 0): equal scores, by id.
	w := search.IDF(5, 3)
	if got, want := res.Hits[3].Score, w*search.Saturate(2); got != want {
		t.Errorf("epsilon scores %v, want search.IDF(5,3)×search.Saturate(2) = %v", got, want)
	}
	if res.Hits[3].Score != res.Hits[4].Score {
		t.Errorf("epsilon %v and gamma %v should tie", res.Hits[3].Score, res.Hits[4].Score)
	}
	// beta: the stop word "the" (in 3 of 5 nodes) at a tenth, then "cache"
	// in the gist (tf 2), added in query order.
	if got, want := res.Hits[1].Score, search.StopWeight*search.IDF(5, 3)*search.Saturate(2)+w*search.Saturate(2); got != want {
		t.Errorf("beta scores %v, want %v", got, want)
	}
	if diff := cmp.Diff([]string{"the", "pottery", "cache"}, res.Hits[0].Matched); diff != "" {
		t.Errorf("alpha matched (-want +got):\n%s", diff)
	}
	// A query of stop words only counts them fully: alpha holds "the" twice
	// in its gist.
	if got := searchOne(t, []*domain.Graph{g}, "the"); len(got.Hits) != 3 || got.Hits[0].Score != search.IDF(5, 3)*search.Saturate(4) {
		t.Errorf("search the: %v", hitNames(got.Hits))
	}
}

func TestFindWordForms(t *testing.T) {
	g := domain.NewGraph(domain.UserGraph)
	graphtest.Put(t, g, "n1", "She painted the fence", nil, nil)
	graphtest.Put(t, g, "n2", "Painting classes", nil, nil)
	graphtest.Put(t, g, "n3", "three paints", nil, nil)
	graphtest.Put(t, g, "n4", "potteries of the town", nil, nil)
	graphtest.Put(t, g, "n5", "a painter", nil, nil) // a longer word, another stem
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"paint", []string{"user/n1", "user/n2", "user/n3", "user/n5"}},
		{"painting?", []string{"user/n1", "user/n2", "user/n3"}},
		{"pottery", []string{"user/n4"}},
		{"class", []string{"user/n2"}},
	} {
		if diff := cmp.Diff(tc.want, hitNamesOf(t, g, tc.query)); diff != "" {
			t.Errorf("search %q (-want +got):\n%s", tc.query, diff)
		}
	}
	// The word form scores as the word; the longer word that holds it
	// at search.SubWeight.
	res := searchOne(t, []*domain.Graph{g}, "paint")
	if res.Hits[0].Score != res.Hits[2].Score || res.Hits[3].Score >= res.Hits[0].Score {
		t.Errorf("scores %v", res.Hits)
	}
}

// TestFindIdentifiers: identifiers are split into words on the node
// side, paths still match by substring, and an exact id ranks first.
func TestFindIdentifiers(t *testing.T) {
	g := domain.NewGraph(domain.ProjectGraph("/p"))
	graphtest.Put(t, g, "camel", "the tokenRefresh handler", nil, nil)
	graphtest.Put(t, g, "snake", "calls token_refresh on expiry", nil, nil)
	graphtest.Put(t, g, "path", "where it lives", nil, []string{"src/auth/refresh.py"})
	graphtest.Put(t, g, "author", "who wrote the authoring guide", nil, nil)
	graphtest.Put(t, g, "refresh", "an id that is the query", nil, nil)
	graphtest.Put(t, g, "mention", "refresh refresh refresh, and refresh again", []string{"refresh"}, nil)
	graphtest.Edge(t, g, graphtest.At(2, ""), "author", "edits", "docs/auth/guide.md")
	const p = "project:/p/"
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"auth/", []string{p + "author", p + "path"}},
		{"src/auth/refresh.py", []string{p + "path"}},
		{"refresh.py", []string{p + "path"}},
		{"token_refresh", []string{p + "snake"}},
		{"tokenRefresh", []string{p + "camel"}},
	} {
		if diff := cmp.Diff(tc.want, hitNamesOf(t, g, tc.query)); diff != "" {
			t.Errorf("search %q (-want +got):\n%s", tc.query, diff)
		}
	}
	// refresh finds all three spellings, and the node whose id it is
	// ranks first although "mention" holds the word five times.
	got := hitNamesOf(t, g, "refresh")
	if len(got) != 5 || got[0] != p+"refresh" {
		t.Fatalf("search refresh: %v, want refresh first, then mention, camel, snake and path", got)
	}
	for _, id := range []string{"camel", "snake", "path"} {
		if !strings.Contains(strings.Join(got, " "), p+id) {
			t.Errorf("search refresh misses %s: %v", id, got)
		}
	}
	// "auth" is a word of the path and of the edge end, and inside
	// "author" and "authoring": the words themselves first.
	res := searchOne(t, []*domain.Graph{g}, "auth")
	if diff := cmp.Diff([]string{p + "author", p + "path"}, hitNames(res.Hits)); diff != "" {
		t.Errorf("search auth (-want +got):\n%s", diff)
	}
}

func TestFindTypo(t *testing.T) {
	user := domain.NewGraph(domain.UserGraph)
	proj := domain.NewGraph(domain.ProjectGraph("/p"))
	graphtest.Put(t, user, "jwt", "JWT authentication with refresh tokens", nil, nil)
	graphtest.Put(t, proj, "login", "the login flow calls authentication twice", []string{"authentication, again"}, nil)
	graphtest.Put(t, proj, "poetry", "a poetry reading", nil, nil)
	graphtest.Put(t, proj, "battery", "the battery is low", nil, nil)
	graphs := []*domain.Graph{user, proj}

	res := searchOne(t, graphs, "authentcation flow")
	if diff := cmp.Diff([]Correction{{Term: "authentcation", Used: "authentication"}}, res.Corrections); diff != "" {
		t.Errorf("corrections (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"project:/p/login", "user/jwt"}, hitNames(res.Hits)); diff != "" {
		t.Fatalf("hits (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"authentication", "flow"}, res.Hits[0].Matched); diff != "" {
		t.Errorf("matched (-want +got):\n%s", diff)
	}
	// The correction counts search.TypoWeight of the word itself.
	exact := searchOne(t, graphs, "authentication")
	typo := searchOne(t, graphs, "authentcation")
	if got, want := typo.Hits[1].Score, search.TypoWeight*exact.Hits[1].Score; math.Abs(got-want) > 1e-12 {
		t.Errorf("corrected score %v, want %v × %v", got, search.TypoWeight, exact.Hits[1].Score)
	}
	for _, tc := range []struct {
		query string
		want  []Correction
	}{
		{"potery", []Correction{{"potery", "poetry"}}},                         // one edit from 5 letters
		{"authenticatoin", []Correction{{"authenticatoin", "authentication"}}}, // a swap
		{"autentcation", []Correction{{"autentcation", "authentication"}}},     // two edits from 9 letters
		{"poetr", []Correction(nil)},                                           // a substring of poetry: a match, no correction
		{"pottary", []Correction(nil)},                                         // two edits from poetry, 7 letters: none
		{"batt", []Correction(nil)},                                            // substring
		{"poatry", []Correction{{"poatry", "poetry"}}},
	} {
		if diff := cmp.Diff(tc.want, searchOne(t, graphs, tc.query).Corrections); diff != "" {
			t.Errorf("corrections of %q (-want +got):\n%s", tc.query, diff)
		}
	}
	// No hits: the nearest spelling of each term that matched nothing.
	none := searchOne(t, graphs, "pottary lgin")
	if len(none.Hits) != 0 {
		t.Fatalf("hits for pottary lgin: %v", hitNames(none.Hits))
	}
	if diff := cmp.Diff([]Suggestion{{"pottary", "poetry"}, {"lgin", "login"}}, none.Nearest); diff != "" {
		t.Errorf("nearest (-want +got):\n%s", diff)
	}
	if got := searchOne(t, graphs, "zzzzzzzzz").Nearest; got != nil {
		t.Errorf("nearest of a term near nothing: %v", got)
	}
}

func TestFindAcrossGraphsAndTiers(t *testing.T) {
	user := domain.NewGraph(domain.UserGraph)
	pa := domain.NewGraph(domain.ProjectGraph("/p/a"))
	pb := domain.NewGraph(domain.ProjectGraph("/p/b"))
	graphtest.Put(t, user, "same", "shared word", nil, nil)
	graphtest.Put(t, pb, "same", "shared word", nil, nil)
	graphtest.Put(t, pa, "same", "shared word", nil, nil)
	graphtest.Put(t, pa, "arch", "shared archived", nil, nil)
	graphtest.Put(t, pa, "orph", "shared orphaned", nil, nil)
	graphtest.SetTier(t, pa, "arch", domain.Archived, 10)
	graphtest.SetTier(t, pa, "orph", domain.Orphaned, 10)

	before := []domain.GraphData{user.Data(), pa.Data(), pb.Data()}
	pa.Checkpoint()

	// Input order of the graphs must not matter; ties by level, then id,
	// then project.
	res := searchOne(t, []*domain.Graph{pb, nil, pa, user}, "shared")
	want := []string{"user/same", "project:/p/a/arch", "project:/p/a/orph", "project:/p/a/same", "project:/p/b/same"}
	if diff := cmp.Diff(want, hitNames(res.Hits)); diff != "" {
		t.Fatalf("hits (-want +got):\n%s", diff)
	}
	if res.Hits[2].Node.Tier != domain.Orphaned || res.Hits[1].Node.Tier != domain.Archived {
		t.Errorf("tiers = %v, %v; want archived, orphaned", res.Hits[1].Node.Tier, res.Hits[2].Node.Tier)
	}
	// Rarity counts over every graph searched: "word" is in 3 of 5 nodes.
	if got, want := searchOne(t, []*domain.Graph{pb, pa, user}, "word").Hits[0].Score, search.IDF(5, 3)*search.Saturate(2); got != want {
		t.Errorf("score of word %v, want %v", got, want)
	}

	after := []domain.GraphData{user.Data(), pa.Data(), pb.Data()}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("search changed a graph (-before +after):\n%s", diff)
	}
	if !pa.Pending().Empty() {
		t.Errorf("search left pending changes: %+v", pa.Pending())
	}
}

func TestFindRejects(t *testing.T) {
	g := domain.NewGraph(domain.UserGraph)
	tests := []struct {
		name    string
		query   string
		limit   int
		wantErr string
	}{
		{"empty query", "", 0, "query: must not be empty"},
		{"blank query", " \t\n", 0, "query: must not be empty"},
		{"query too long", strings.Repeat("é", domain.MaxQueryLen+1), 0, "query: 1001 chars, limit 1000"},
		{"query with NUL", "a\x00b", 0, "query: must not contain NUL"},
		{"query not UTF-8", "a\xffb", 0, "query: must be valid UTF-8"},
		{"punctuation only", " ?! ", 0, `query: " ?! " holds no word to search for: only punctuation`},
		{"negative limit", "a", -1, "limit: -1 must be between 0 (default 20) and 100"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Find([]*domain.Graph{g}, tc.query, tc.limit)
			if err == nil {
				t.Fatalf("got %d hits and no error, want %q", len(res.Hits), tc.wantErr)
			}
			if err.Error() != tc.wantErr {
				t.Errorf("error = %q, want %q", err, tc.wantErr)
			}
			if domain.KindOf(err) != domain.KindInvalid {
				t.Errorf("kind = %v, want invalid", domain.KindOf(err))
			}
		})
	}
}

func TestFindQueryAtLimit(t *testing.T) {
	g := domain.NewGraph(domain.UserGraph)
	graphtest.Put(t, g, "n", strings.Repeat("a", 10), nil, nil)
	if _, err := Find([]*domain.Graph{g}, strings.Repeat("a", domain.MaxQueryLen), 0); err != nil {
		t.Fatalf("a query of exactly %d chars: %v", domain.MaxQueryLen, err)
	}
}

// TestFindShortTermMatchesWholeWords: a term of one or two letters
// matches the words of its stem, never inside a longer word; from three
// letters it does (docs/decisions/0073-short-terms-match-whole-words.md).
func TestFindShortTermMatchesWholeWords(t *testing.T) {
	g := domain.NewGraph(domain.UserGraph)
	graphtest.Put(t, g, "loop-var", "take n items from the list", nil, nil)
	graphtest.Put(t, g, "mongo", "mongodb keeps the sessions", nil, nil)
	graphtest.Put(t, g, "names", "names are unique", nil, nil)
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"n", []string{"user/loop-var"}}, // not "names", "mongodb", "sessions" or the ids
		{"db", []string{}},               // not inside "mongodb"
		{"ngo", []string{"user/mongo"}},  // three letters: inside a longer word
		{"nam", []string{"user/names"}},  // ... and a part of the id
	} {
		if diff := cmp.Diff(tc.want, hitNamesOf(t, g, tc.q)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.q, diff)
		}
	}
}

// TestFindWeakTermsCountBesideAStrongOne: a weak term (short, or held by
// more than a tenth of the nodes and by 64 or more) finds no node of its
// own when the query holds a strong term that matches: it adds to the
// nodes that term finds. A query of weak terms only finds their nodes
// (docs/decisions/0074-weak-terms-count-only-beside-a-strong-one.md).
func TestFindWeakTermsCountBesideAStrongOne(t *testing.T) {
	g := domain.NewGraph(domain.UserGraph)
	for i := range 100 {
		graphtest.Put(t, g, fmt.Sprintf("f%03d", i), "filler words about common things", nil, nil)
	}
	graphtest.Put(t, g, "take-n", "take n items from a list", nil, nil)
	graphtest.Put(t, g, "rare-n", "rare zebra n", nil, nil)
	graphtest.Put(t, g, "rare", "rare zebra", nil, nil)
	graphtest.Put(t, g, "only-n", "n n n", nil, nil)
	for _, tc := range []struct {
		q    string
		want []string
	}{
		// "n" is weak: it ranks rare-n above rare, and finds neither
		// take-n nor only-n on its own.
		{"zebra n", []string{"user/rare-n", "user/rare"}},
		// "common" is held by 100 of 104 nodes: weak beside "zebra".
		{"zebra common", []string{"user/rare", "user/rare-n"}},
		// Only weak terms: each counts alone.
		{"n", []string{"user/only-n", "user/rare-n", "user/take-n"}},
		// The strong term matches nothing: the weak ones count alone.
		{"n quetzal", []string{"user/only-n", "user/rare-n", "user/take-n"}},
	} {
		if diff := cmp.Diff(tc.want, hitNamesOf(t, g, tc.q)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.q, diff)
		}
	}
}

// TestFindLimit: 0 means the default, and a limit above the maximum is
// clamped to it (domain's TestSearchLimit also checks the hits against a
// scan of the graph).
func TestFindLimit(t *testing.T) {
	g := domain.NewGraph(domain.UserGraph)
	for i := range 150 {
		graphtest.Put(t, g, "n"+strings.Repeat("x", i/26)+string(rune('a'+i%26)), "common "+strings.Repeat("rare ", i%3), nil, nil)
	}
	for _, tc := range []struct {
		limit, want int
	}{{0, domain.DefaultSearchLim}, {7, 7}, {domain.MaxSearchLimit, domain.MaxSearchLimit}, {500, domain.MaxSearchLimit}} {
		res, err := Find([]*domain.Graph{g}, "common rare", tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != tc.want {
			t.Errorf("limit %d: got %d hits, want %d", tc.limit, len(res.Hits), tc.want)
		}
	}
}
