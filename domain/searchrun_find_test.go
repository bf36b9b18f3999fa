package domain_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/graphsearch"
)

// findLines is graphsearch.Find's answer as domain.SearchLinesForTest writes
// searchGraphs's.
func findLines(graphs []*domain.Graph, query string, limit int) ([]string, error) {
	res, err := graphsearch.Find(graphs, query, limit)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, h := range res.Hits {
		out = append(out, fmt.Sprintf("hit %s %p %v %q", h.Key, h.Node, h.Score, h.Matched))
	}
	for _, c := range res.Corrections {
		out = append(out, "correction "+c.Term+" "+c.Used)
	}
	for _, n := range res.Nearest {
		out = append(out, "nearest "+n.Term+" "+n.Nearest)
	}
	return out, nil
}

// TestSearchGraphsIsFind: the search the index tests of domain run
// (searchGraphs, searchrun_test.go) answers as graphsearch.Find does, hit
// for hit, error for error, across graphs given out of key order, a nil
// one and two of one key.
func TestSearchGraphsIsFind(t *testing.T) {
	user := domain.NewGraph(domain.UserGraph)
	pa := domain.NewGraph(domain.ProjectGraph("/a"))
	pb := domain.NewGraph(domain.ProjectGraph("/b"))
	pb2 := domain.NewGraph(domain.ProjectGraph("/b"))
	put := func(g *domain.Graph, id, gist string, notes ...string) {
		if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: gist, Notes: notes}, at(1, "")); err != nil {
			t.Fatal(err)
		}
	}
	put(user, "cache-invalidation", "Invalidate the cache on write, never on read")
	put(user, "poetry", "the poetry class meets on Tuesdays")
	put(pa, "cache-keys", "Cache keys include the tenant id", "A cache miss costs 40 ms.")
	put(pa, "login", "how the login flow starts a session")
	put(pb, "cache-keys", "the same id in another project", "cache cache cache")
	put(pb2, "token_refresh", "calls tokenRefresh on expiry")
	if _, err := pa.PutEdge(domain.EdgeInput{From: "login", To: "src/auth/login.go", Rel: "touches"}, at(2, "")); err != nil {
		t.Fatal(err)
	}
	graphs := []*domain.Graph{pb2, nil, pa, user, pb}
	for _, q := range []string{"cache", "Cache write", "invalidaton", "pottary lgin", "the", "auth/", "tokenRefresh",
		"refresh", "zzzz", "", " ?! ", "a\x00b"} {
		for _, limit := range []int{-1, 0, 1, 3, domain.MaxSearchLimit + 1} {
			want, wantErr := findLines(graphs, q, limit)
			got, gotErr := domain.SearchLinesForTest(graphs, q, limit)
			if q == "cache" && limit == 0 && len(want) != 3 {
				t.Fatalf("search cache: Find answers %q, want 3 hits", want)
			}
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Errorf("search %q limit %d: error %v, Find's %v", q, limit, gotErr, wantErr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("search %q limit %d (-Find +searchGraphs):\n%s", q, limit, diff)
			}
		}
	}
}
