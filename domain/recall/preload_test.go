package recall

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
)

// preloadGraph is a graph of n active nodes created long before now (out
// of creation grace), node i read at i seconds, each linked to the next.
func preloadGraph(t testing.TB, key domain.GraphKey, n int, now domain.Micros) *domain.Graph {
	t.Helper()
	g := domain.NewGraph(key)
	old := now - domain.Days(60)
	for i := range n {
		id := fmt.Sprintf("n%05d", i)
		if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: "gist of node " + id + " with some words"}, domain.Stamp{Now: old + domain.Micros(i)}); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			if _, err := g.PutEdge(domain.EdgeInput{From: fmt.Sprintf("n%05d", i-1), To: id, Rel: "leads-to"}, domain.Stamp{Now: old + domain.Micros(i)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return g
}

func TestPreloadFitsItsBudgetAndCountsWhatItLeftOut(t *testing.T) {
	now := domain.Days(400)
	p := compaction.DefaultPolicy()
	user := preloadGraph(t, domain.UserGraph, 300, now)
	proj := preloadGraph(t, domain.ProjectGraph("/src/app"), 700, now)
	for _, budget := range []int{400, 2000, 8400} {
		pre, _ := BuildPreload([]PreloadGraph{{Graph: user}, {Graph: proj, Name: "app"}}, now, p, budget)
		if n := utf8.RuneCountInString(pre.Text); n > budget {
			t.Errorf("budget %d: text is %d characters", budget, n)
		}
		if pre.Active[0] != 300 || pre.Active[1] != 700 {
			t.Errorf("budget %d: active = %v, want [300 700]", budget, pre.Active)
		}
		if len(pre.Shown)+pre.Left != 1000 {
			t.Errorf("budget %d: shown %d + left %d, want 1000", budget, len(pre.Shown), pre.Left)
		}
		if pre.Left == 0 || !strings.Contains(pre.Text, fmt.Sprintf("(%d more active nodes not preloaded, to fit; kg_read shows them all)", pre.Left)) {
			t.Errorf("budget %d: no line counting the %d left out in\n%s", budget, pre.Left, pre.Text)
		}
		for _, h := range []string{"=== USER GRAPH — 300 active, 0 archived ===", "=== PROJECT GRAPH (app) — 700 active, 0 archived ==="} {
			if !strings.Contains(pre.Text, h) {
				t.Errorf("budget %d: header %q missing", budget, h)
			}
		}
		for _, s := range pre.Shown {
			if !strings.Contains(pre.Text, "  "+s.ID+": gist of node "+s.ID) {
				t.Errorf("budget %d: shown %s has no line", budget, s.ID)
			}
		}
	}
}

func TestPreloadShowsEveryNodeAndTheEdgesAmongThemWhenAllFit(t *testing.T) {
	now := domain.Days(400)
	g := preloadGraph(t, domain.ProjectGraph("/src/app"), 4, now)
	pre, _ := BuildPreload([]PreloadGraph{{Graph: domain.NewGraph(domain.UserGraph)}, {Graph: g, Name: "app"}}, now, compaction.DefaultPolicy(), 9000)
	if pre.Left != 0 || len(pre.Shown) != 4 {
		t.Fatalf("shown %d, left %d; want all 4", len(pre.Shown), pre.Left)
	}
	for _, e := range []string{"n00000 --leads-to--> n00001", "n00001 --leads-to--> n00002", "n00002 --leads-to--> n00003"} {
		if !strings.Contains(pre.Text, "EDGES:\n") || !strings.Contains(pre.Text, "  "+e+"\n") && !strings.HasSuffix(pre.Text, "  "+e) {
			t.Errorf("edge %q not shown in\n%s", e, pre.Text)
		}
	}
	if strings.Contains(pre.Text, "not preloaded") {
		t.Errorf("a left-out line with nothing left out:\n%s", pre.Text)
	}
}

func TestPreloadIsInRankOrderBestFirst(t *testing.T) {
	now := domain.Days(400)
	p := compaction.DefaultPolicy()
	g := preloadGraph(t, domain.ProjectGraph("/src/app"), 50, now)
	order := PreloadOrder(g, now, p)
	pre, _ := BuildPreload([]PreloadGraph{{Graph: g, Name: "app"}}, now, p, 600)
	if len(pre.Shown) == 0 || len(pre.Shown) == 50 {
		t.Fatalf("shown %d of 50; the budget should cut", len(pre.Shown))
	}
	for i, s := range pre.Shown {
		if s.ID != order[i].ID {
			t.Fatalf("shown[%d] = %s, want the rank order's %s", i, s.ID, order[i].ID)
		}
	}
}

// The fix of the replaced server's quadratic trimming: the build measures
// each node and each edge a bounded number of times, whatever the budget
// (docs/design/hooks.md#the-preload).
func TestPreloadBuildIsLinearAfterRanking(t *testing.T) {
	now := domain.Days(400)
	for _, n := range []int{1000, 4000} {
		g := preloadGraph(t, domain.ProjectGraph("/src/app"), n, now)
		pre, _ := BuildPreload([]PreloadGraph{{Graph: g}}, now, compaction.DefaultPolicy(), 9000)
		// n nodes, each edge seen from both ends (2(n-1)), each edge
		// among the shown measured once more.
		if limit := n + 3*(n-1); pre.work > limit {
			t.Errorf("%d nodes: %d steps, want at most %d", n, pre.work, limit)
		}
	}
}

func TestPromptTextKeepsOnlyThePersonsWords(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "why does the token refresh fail", "why does the token refresh fail"},
		{"notification", "<task-notification>build done</task-notification>fix the cache", " fix the cache"},
		{"system reminder", "look <system-reminder>be brief</system-reminder> here", "look   here"},
		{"unclosed tag", "fix this <system-reminder>never closed", "fix this "},
		{"other tags stay", "a <b>bold word", "a <b>bold word"},
		{"image", "what is in [Image #1] and [image: shot.png]?", "what is in   and  ?"},
		{"paths reduced", "see src/auth/refresh.py and C:\\x\\y.go", "see refresh.py and y.go"},
	}
	for _, tt := range tests {
		if got := PromptText(tt.in); got != tt.want {
			t.Errorf("%s: PromptText(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestRecallQuery(t *testing.T) {
	if _, ok := RecallQuery("ok thx"); ok {
		t.Error("5 letters searched; fewer than 8 must give nothing")
	}
	if _, ok := RecallQuery("   1234567890 !!!"); ok {
		t.Error("digits only searched")
	}
	q, ok := RecallQuery("Why does the token refresh fail? the TOKEN refresh, again")
	if !ok || q != "token refresh fail" {
		t.Errorf("query = %q, %v; want the distinct words, no stop words", q, ok)
	}
	long := strings.Repeat("alpha beta gamma ", 10) + strings.Join(strings.Fields(strings.Repeat("w ", 1)), "")
	for i := range 100 {
		long += fmt.Sprintf(" word%03dx", i)
	}
	q, ok = RecallQuery(long)
	if !ok || len(strings.Fields(q)) > MaxRecallTerms {
		t.Errorf("a long prompt gives %d terms, want at most %d", len(strings.Fields(q)), MaxRecallTerms)
	}
}

func TestRelevanceIsScaleFree(t *testing.T) {
	for _, n := range []int{10, 1000, 100000} {
		unit := 2 * math.Log1p((float64(n)-0.5)/1.5)
		if r := Relevance(unit, n); r < 0.999 || r > 1.001 {
			t.Errorf("nodes %d: relevance of one rare word = %v, want 1", n, r)
		}
	}
}

func TestTranscriptSessionIDsLastFirst(t *testing.T) {
	tail := []byte(`{"input":{"session_id":"0123456789abcdef"}}` + "\n" +
		`{"text":"kg memory preloaded. session_id: fedcba9876543210 — pass it"}` + "\n" +
		`{"content":"{\"session_id\":\"0123456789abcdef\"}"}` + "\n" +
		`{"content":"Session: deadbeef"}` + "\n" + `{"x":"session_id: 0123456789abcdefff"}`)
	got := TranscriptSessionIDs(tail)
	want := []string{"deadbeef", "0123456789abcdef", "fedcba9876543210"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ids = %v, want %v", got, want)
	}
}

// A kept ranking gives the preload a fresh one gives while it is Valid, and
// stops being Valid on any change of the graph, a rollback included, and
// when a node leaves its creation grace (docs/design/hooks.md#the-preload).
func TestPreloadRankingHoldsUntilTheGraphOrAGraceChanges(t *testing.T) {
	now := domain.Days(400)
	p := compaction.DefaultPolicy()
	user := preloadGraph(t, domain.UserGraph, 200, now)
	proj := preloadGraph(t, domain.ProjectGraph("/src/app"), 300, now)
	// One node still in its creation grace: ranked above every score
	// until it leaves it.
	fresh := now - p.Grace/2
	if _, err := proj.PutNode(domain.NodeInput{ID: "young", Gist: "a node in grace"}, domain.Stamp{Now: fresh}); err != nil {
		t.Fatal(err)
	}
	proj.Checkpoint()
	user.Checkpoint()
	build := func(at domain.Micros, rs []*PreloadRanking) (Preload, []*PreloadRanking) {
		parts := []PreloadGraph{{Graph: user}, {Graph: proj, Name: "app"}}
		for i := range rs {
			parts[i].Ranking = rs[i]
		}
		return BuildPreload(parts, at, p, 2000)
	}
	first, kept := build(now, nil)
	if len(kept) != 2 || !kept[0].Valid(user, now) || !kept[1].Valid(proj, now) {
		t.Fatalf("the rankings returned are not valid at once: %v", kept)
	}
	again, reused := build(now+1, kept)
	if again.Text != first.Text || reused[0] != kept[0] || reused[1] != kept[1] {
		t.Errorf("a valid ranking was not reused, or changed the preload")
	}
	if kept[0].Valid(proj, now) {
		t.Error("the user graph's ranking is valid for the project graph")
	}

	// Past the young node's grace the order changes: the kept ranking no
	// longer holds, and the preload is the fresh one's.
	later := fresh + p.Grace
	if kept[1].Valid(proj, later) {
		t.Error("the ranking holds past the end of a creation grace")
	}
	if !kept[0].Valid(user, later) {
		t.Error("the user graph, with no node in grace, lost its ranking to the clock")
	}
	got, _ := build(later, kept)
	want, _ := BuildPreload([]PreloadGraph{{Graph: user}, {Graph: proj, Name: "app"}}, later, p, 2000)
	if got.Text != want.Text {
		t.Errorf("past the grace, the kept rankings gave\n%s\nwant\n%s", got.Text, want.Text)
	}

	// A write, then its rollback: each a change.
	if _, err := proj.PutNode(domain.NodeInput{ID: "n00003", Gist: "rewritten"}, domain.Stamp{Now: now}); err != nil {
		t.Fatal(err)
	}
	if kept[1].Valid(proj, now) {
		t.Error("the ranking holds after a write")
	}
	_, kept = build(now, nil)
	proj.Rollback()
	if kept[1].Valid(proj, now) {
		t.Error("the ranking holds after a rollback")
	}
	if got, _ := build(now, kept); got.Text != first.Text {
		t.Errorf("after the rollback:\n%s\nwant the first preload:\n%s", got.Text, first.Text)
	}
}
