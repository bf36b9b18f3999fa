package duplicates

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
)

// dupPairs is the labelled set of the thresholds
// (docs/design/trust.md#near-identical-gists): an existing gist, a new
// one, and whether the new one is a near-identical of it.
var dupPairs = []struct {
	stored, written string
	near            bool
}{
	// Near: the same sentence retyped, re-cased, re-punctuated, one word
	// changed or added, or a sentence that holds the other whole.
	{"JWT refresh uses a sliding window of 30 days", "JWT refresh uses a sliding window of 30 days.", true},
	{"JWT refresh uses a sliding window of 30 days", "jwt refresh uses a sliding-window of 30 days", true},
	{"JWT refresh uses a sliding window of 30 days", "JWT refresh uses sliding window of 30 days", true},
	{"JWT refresh uses a sliding window of 30 days", "JWT refresh uses a sliding window of 30 days (silent failure)", true},
	{"The build breaks when make runs with -j4 on the proto step", "The build breaks when make runs with -j8 on the proto step", true},
	{"Postgres advisory locks serialise the migration runner", "Postgres advisory locks serialize the migration runner", true},
	{"compaction keeps the active graph within the token budget", "Compaction keeps the active graph within the token budget!", true},
	{"retry the upload with exponential backoff capped at 30s", "retry the upload with exponential backoff, capped at 30s", true},
	{"use bbolt for the graph store", "use bbolt for the graph store when many projects are open", true},
	{"tests need the race detector on CI", "tests need the race detector on CI machines", true},
	// Far: the same subject, other claims; shared words, other sentences.
	{"JWT refresh uses a sliding window of 30 days", "JWT refresh fails silently when the session expired", false},
	{"JWT refresh uses a sliding window of 30 days", "session cookies use a fixed window of 7 days", false},
	{"The build breaks when make runs with -j4 on the proto step", "The proto step generates Go and TypeScript stubs", false},
	{"Postgres advisory locks serialise the migration runner", "Postgres row locks are held until the transaction commits", false},
	{"compaction keeps the active graph within the token budget", "the token budget is 5000 by default", false},
	{"retry the upload with exponential backoff capped at 30s", "the upload endpoint streams the body to disk", false},
	{"use bbolt for the graph store", "use json files for the graph store", false},
	{"tests need the race detector on CI", "tests use t.TempDir for every folder they write", false},
	{"search ranks by BM25 over a word index", "search used to rank by substring counts", false},
	{"fix", "fix the flaky test in the sync suite", false}, // too short to be contained
}

func TestDuplicateThresholdsOnLabelledPairs(t *testing.T) {
	for i, p := range dupPairs {
		g := domain.NewGraph(domain.UserGraph)
		corePut(t, g, "stored", p.stored)
		corePut(t, g, "other", "an unrelated lesson about logging levels")
		dups := Possible(g, fmt.Sprintf("new-%d", i), p.written)
		got := len(dups) == 1 && dups[0].ID == "stored" && !dups[0].ByID
		var sc gramScratch
		score, _ := gistsAlike(slices.Clone(sc.grams(p.stored)), sc.grams(p.written))
		if got != p.near || len(dups) > 1 {
			t.Errorf("%q vs %q (score %.2f): duplicates %+v; want near=%v", p.stored, p.written, score, dups, p.near)
		}
		if p.near && got && (dups[0].Score != score || score < Jaccard) {
			t.Errorf("%q vs %q: score %.2f; want %.2f", p.stored, p.written, dups[0].Score, score)
		}
	}
}

func TestPossibleDuplicatesByID(t *testing.T) {
	g := domain.NewGraph(domain.UserGraph)
	corePut(t, g, "auth-token-refresh", "JWT refresh uses a sliding window")
	corePut(t, g, "cache-keys", "cache keys hold the tenant")
	for _, id := range []string{"Auth_Token_Refresh", "auth-token-refreshs", "AUTH-TOKEN-REFRESH"} {
		d := Possible(g, id, "something else entirely")
		if len(d) != 1 || d[0] != (Match{ID: "auth-token-refresh", ByID: true, Score: 1}) {
			t.Errorf("%s: %+v", id, d)
		}
	}
	if d := Possible(g, "cache-key", "cache keys hold the tenant"); len(d) != 1 || !d[0].ByID {
		t.Errorf("by id and gist: one finding, by id; got %+v", d)
	}
	// The node itself, written again, is no duplicate of itself.
	if d := Possible(g, "auth-token-refresh", "JWT refresh uses a sliding window"); len(d) != 0 {
		t.Errorf("a node is its own duplicate: %+v", d)
	}
	// The counts follow deletes and rollbacks.
	g.Checkpoint()
	corePut(t, g, "Cache_Keys", "x")
	if _, err := g.DeleteNode("cache-keys", coreAt(2, "")); err != nil {
		t.Fatal(err)
	}
	g.Rollback()
	if d := Possible(g, "cache-key", "y"); len(d) != 1 || d[0].ID != "cache-keys" {
		t.Errorf("after rollback: %+v", d)
	}
}

func TestPossibleDuplicatesSkipOrphanedGists(t *testing.T) {
	data := domain.GraphData{Nodes: []domain.Node{
		{ID: "old", Gist: "JWT refresh uses a sliding window of 30 days", Tier: domain.Orphaned, Version: domain.Version{V: 1, TS: 1}},
		{ID: "kept", Gist: "JWT refresh uses a sliding window of 30 days", Tier: domain.Archived, Version: domain.Version{V: 1, TS: 1}},
	}}
	g, _ := domain.Restore(domain.UserGraph, data, domain.RestoreOptions{})
	d := Possible(g, "new", "JWT refresh uses a sliding window of 30 days")
	if len(d) != 1 || d[0].ID != "kept" || d[0].Score != 1 {
		t.Fatalf("duplicates = %+v; want the archived node only", d)
	}
	// An orphaned node's id still counts: re-creating it under another
	// spelling is the same mistake.
	if d := Possible(g, "OLD", "unrelated"); len(d) != 1 || d[0].ID != "old" {
		t.Fatalf("by id: %+v", d)
	}
}

func TestDuplicateClusters(t *testing.T) {
	g := domain.NewGraph(domain.UserGraph)
	corePut(t, g, "a", "JWT refresh uses a sliding window of 30 days")
	corePut(t, g, "b", "JWT refresh uses a sliding-window of 30 days")
	corePut(t, g, "c", "jwt refresh uses a sliding window of 30 days.")
	corePut(t, g, "cache-key", "cache keys hold the tenant")
	corePut(t, g, "Cache_Keys", "keys of the cache")
	corePut(t, g, "alone", "logging levels are set per package")
	got := Clusters(g)
	if len(got) != 2 || strings.Join(got[0].IDs, ",") != "a,b,c" || strings.Join(got[1].IDs, ",") != "Cache_Keys,cache-key" {
		t.Fatalf("clusters = %+v", got)
	}
	if len(got[0].Pairs) != 3 || !got[1].Pairs[0].ByID {
		t.Fatalf("pairs = %+v / %+v", got[0].Pairs, got[1].Pairs)
	}
}

// Many unrelated gists that share common words: the candidates are those
// holding the rarest words, and none is reported.
func TestPossibleDuplicatesAmongManyCommonWords(t *testing.T) {
	g := domain.NewGraph(domain.UserGraph)
	for i := range 3000 {
		corePut(t, g, fmt.Sprintf("n%d", i), fmt.Sprintf("the graph keeps node %d of the token budget", i))
	}
	if d := Possible(g, "x", "the graph keeps the token budget of every session"); len(d) != 0 {
		t.Fatalf("duplicates = %+v", d[:min(len(d), 3)])
	}
	d := Possible(g, "x", "the graph keeps node 1234 of the token budget")
	if len(d) == 0 || d[0].ID != "n1234" || d[0].Score != 1 {
		t.Fatalf("the identical gist: %+v", d[:min(len(d), 3)])
	}
}

func BenchmarkPossibleDuplicates(b *testing.B) {
	g := domain.NewGraph(domain.UserGraph)
	for i := range 20000 {
		corePut(b, g, fmt.Sprintf("n%06d", i), fmt.Sprintf("refresh window token %d session expiry handler graph budget", i))
	}
	b.ReportAllocs()
	for b.Loop() {
		Possible(g, "n-new", "refresh window token 777 session expiry handler graph budget ok")
	}
}

// corePut puts a node at time 1 without a session and fails the test on
// error.
func corePut(t testing.TB, g *domain.Graph, id, gist string) {
	t.Helper()
	if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: gist}, coreAt(1, "")); err != nil {
		t.Fatalf("PutNode(%q): %v", id, err)
	}
}

func coreAt(now domain.Micros, session string) domain.Stamp {
	return domain.Stamp{Now: now, Session: session}
}
