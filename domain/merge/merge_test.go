package merge_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/merge"
	"github.com/kg-memory/kg/domain/secretscreen"
)

// mergeGraph is a graph of two near-duplicates, a and b, with edges in and
// out of b (one to a file path), edges between them, a loop of b, and an
// edge a already has.
func mergeGraph(t *testing.T) *domain.Graph {
	t.Helper()
	g := domain.NewGraph(domain.GraphKey{Level: domain.LevelUser})
	at := domain.Stamp{Now: 1}
	for _, n := range []domain.NodeInput{
		{ID: "a", Gist: "JWT refresh uses a sliding window", Notes: []string{"n1", "shared"}, Touches: []string{"src/auth.go"}},
		{ID: "b", Gist: "JWT refresh uses a sliding window of 5 min", Notes: []string{"shared", "n2", "n2"}, Touches: []string{"src/jwt.go", "src/auth.go"}},
		{ID: "c", Gist: "c"},
		{ID: "d", Gist: "d"},
	} {
		if _, err := g.PutNode(n, at); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range []domain.EdgeInput{
		{From: "b", To: "c", Rel: "uses", Notes: []string{"b uses c"}},   // out: rewired
		{From: "d", To: "b", Rel: "refines", Notes: []string{"from b"}},  // in: united with d → a
		{From: "d", To: "a", Rel: "refines", Notes: []string{"from a"}},  // a's own
		{From: "b", To: "src/jwt.go", Rel: "touches"},                    // to a file path: rewired
		{From: "a", To: "b", Rel: "same-as"},                             // between them: dropped
		{From: "b", To: "a", Rel: "refines"},                             // between them: dropped
		{From: "b", To: "b", Rel: "loops", Notes: []string{"self"}},      // a loop of b: one of a
		{From: "c", To: "d", Rel: "unrelated", Notes: []string{"stays"}}, // not b's
	} {
		if _, err := g.PutEdge(e, at); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func TestMergeNodesUnitesContentAndRewiresEveryEdge(t *testing.T) {
	g := mergeGraph(t)
	seq := g.Seq()
	res, err := merge.MergeNodes(g, merge.MergeInput{Into: "a", From: "b"}, secretscreen.Block, domain.Stamp{Now: 2, Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := g.Node("a")
	if a.Gist != "JWT refresh uses a sliding window" || a.Version.V != 2 || a.Tier != domain.Active {
		t.Errorf("a = %q v%d %s; want its own gist at v2, active", a.Gist, a.Version.V, a.Tier)
	}
	if d := cmp.Diff([]string{"n1", "shared", "n2"}, a.Notes); d != "" {
		t.Errorf("notes: a's first, then b's new ones, each once (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"src/auth.go", "src/jwt.go"}, a.Touches); d != "" {
		t.Errorf("touches (-want +got):\n%s", d)
	}
	if _, ok := g.Node("b"); ok {
		t.Fatal("b is still there")
	}
	if tomb, ok := g.NodeTombstone("b"); !ok || tomb.Pruned {
		t.Errorf("b's tombstone = %+v, %v; want a client's delete", tomb, ok)
	}
	var got []string
	for _, e := range g.Edges() {
		got = append(got, e.Key().String()+" "+strings.Join(e.Notes, "|"))
	}
	want := []string{
		"a --loops--> a self",
		"a --touches--> src/jwt.go ",
		"a --uses--> c b uses c",
		"c --unrelated--> d stays",
		"d --refines--> a from a|from b",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("edges after the merge (-want +got):\n%s", d)
	}
	actions := map[string]merge.MergeEdgeAction{}
	for _, me := range res.Edges {
		actions[me.Was.String()] = me.Action
	}
	if d := cmp.Diff(map[string]merge.MergeEdgeAction{
		"a --same-as--> b": merge.MergeDropped, "b --refines--> a": merge.MergeDropped,
		"b --loops--> b": merge.MergeRewired, "b --touches--> src/jwt.go": merge.MergeRewired,
		"b --uses--> c": merge.MergeRewired, "d --refines--> b": merge.MergeUnited,
	}, actions); d != "" {
		t.Errorf("plan actions (-want +got):\n%s", d)
	}
	if res.EdgesDeleted != 6 || len(res.Written) != 4 {
		t.Errorf("edges deleted %d, written %d; want 6 and 4", res.EdgesDeleted, len(res.Written))
	}
	// One change: 1 node + 4 edges written, 6 edge tombstones and 1 node tombstone.
	if g.Seq()-seq != 12 {
		t.Errorf("the merge took %d seqs; want 12", g.Seq()-seq)
	}
}

func TestMergeNodesTakesTheGistChosen(t *testing.T) {
	g := mergeGraph(t)
	if _, err := merge.MergeNodes(g, merge.MergeInput{Into: "a", From: "b", Gist: "  edited gist  "}, secretscreen.Block, domain.Stamp{Now: 2}); err != nil {
		t.Fatal(err)
	}
	if a, _ := g.Node("a"); a.Gist != "edited gist" {
		t.Errorf("gist = %q; want the edited one, trimmed", a.Gist)
	}
}

func TestMergeNodesRefusesBadInputAndChangesNothing(t *testing.T) {
	one, two := uint64(1), uint64(2)
	key := "AK" + "IA" + "QWERTYUIOPASDFGH"
	for _, c := range []struct {
		name  string
		in    merge.MergeInput
		field string
		kind  domain.Kind
	}{
		{"no into", merge.MergeInput{From: "b"}, "into", domain.KindInvalid},
		{"bad from", merge.MergeInput{Into: "a", From: "b c"}, "from", domain.KindInvalid},
		{"the same node", merge.MergeInput{Into: "a", From: "a"}, "from", domain.KindInvalid},
		{"into missing", merge.MergeInput{Into: "zz", From: "b"}, "into", domain.KindNotFound},
		{"from missing", merge.MergeInput{Into: "a", From: "zz"}, "from", domain.KindNotFound},
		{"into changed", merge.MergeInput{Into: "a", From: "b", IntoVersion: &two}, "into_version", domain.KindConflict},
		{"from changed", merge.MergeInput{Into: "a", From: "b", IntoVersion: &one, FromVersion: &two}, "from_version", domain.KindConflict},
		{"gist too long", merge.MergeInput{Into: "a", From: "b", Gist: strings.Repeat("x", 1001)}, "gist", domain.KindInvalid},
		{"a secret in the gist", merge.MergeInput{Into: "a", From: "b", Gist: "key " + key}, "gist", domain.KindInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := mergeGraph(t)
			before := g.Data()
			_, err := merge.MergeNodes(g, c.in, secretscreen.Block, domain.Stamp{Now: 2})
			if err == nil {
				t.Fatal("merged")
			}
			if domain.KindOf(err) != c.kind || fieldOf(err) != c.field {
				t.Errorf("error %q: kind %s field %q; want %s %q", err, domain.KindOf(err), fieldOf(err), c.kind, c.field)
			}
			if strings.Contains(err.Error(), key) {
				t.Errorf("the error echoes the secret: %q", err)
			}
			if d := cmp.Diff(before, g.Data()); d != "" {
				t.Errorf("a refused merge changed the graph:\n%s", d)
			}
		})
	}
}

func TestMergeNodesOverTheNotesLimitIsRefused(t *testing.T) {
	g := domain.NewGraph(domain.GraphKey{Level: domain.LevelUser})
	notes := func(p string) []string {
		out := make([]string, 30)
		for i := range out {
			out[i] = p + strings.Repeat("x", i+1)
		}
		return out
	}
	for _, id := range []string{"a", "b"} {
		if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: id, Notes: notes(id)}, domain.Stamp{Now: 1}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := merge.MergeNodes(g, merge.MergeInput{Into: "a", From: "b"}, secretscreen.Block, domain.Stamp{Now: 2})
	if fieldOf(err) != "notes" || !strings.Contains(err.Error(), "60 items, limit 50") {
		t.Fatalf("err = %v; want notes: 60 items, limit 50", err)
	}
}

func TestMergeNodesRedactsTheMergedText(t *testing.T) {
	g := mergeGraph(t)
	key := "AK" + "IA" + "QWERTYUIOPASDFGH"
	// Stored before scanning (allow): the merge writes it again, so it is screened.
	if _, err := g.PutEdge(domain.EdgeInput{From: "b", To: "d", Rel: "keys", Notes: []string{"key " + key}}, domain.Stamp{Now: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := merge.PlanMerge(g, merge.MergeInput{Into: "a", From: "b"}, secretscreen.Block); fieldOf(err) != "edges[1].notes[0]" {
		t.Fatalf("block: err = %v; want it refused at edges[1].notes[0]", err)
	}
	res, err := merge.MergeNodes(g, merge.MergeInput{Into: "a", From: "b"}, secretscreen.Redact, domain.Stamp{Now: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Redacted) != 1 || res.Redacted[0].Field != "edges[1].notes[0]" || res.Redacted[0].Kind.ID != "aws-access-key" {
		t.Fatalf("redacted = %+v", res.Redacted)
	}
	if e, _ := g.Edge(domain.EdgeKey{From: "a", To: "d", Rel: "keys"}); e == nil || e.Notes[0] != "key [REDACTED:aws-access-key]" {
		t.Fatalf("the rewired edge = %+v", e)
	}
}

func TestPlanMergeChangesNothing(t *testing.T) {
	g := mergeGraph(t)
	before := g.Data()
	p, err := merge.PlanMerge(g, merge.MergeInput{Into: "b", From: "a"}, secretscreen.Block)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, g.Data()); d != "" {
		t.Errorf("a plan changed the graph:\n%s", d)
	}
	if d := cmp.Diff([]string{"shared", "n2", "n1"}, p.Notes); d != "" {
		t.Errorf("notes merging a into b (-want +got):\n%s", d)
	}
	if p.IntoVersion != 1 || p.FromVersion != 1 {
		t.Errorf("versions %d, %d; want 1, 1", p.IntoVersion, p.FromVersion)
	}
}

// fieldOf is the field an error of the domain names, "" for none.
func fieldOf(err error) string {
	var e *domain.Error
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}
