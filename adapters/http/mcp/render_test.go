package mcp

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/changes"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/domain/duplicates"
	"github.com/kg-memory/kg/domain/fullread"
	"github.com/kg-memory/kg/domain/graphsearch"
	"github.com/kg-memory/kg/domain/secrets"
)

func TestHealthLine(t *testing.T) {
	tests := []struct {
		name string
		h    fullread.Health
		want string
	}{
		{"empty", fullread.Health{MaxTokens: 4000}, "HEALTH: 0 nodes, 0 edges, 0 unconnected (0%), avg 0 edges/node, ~0/4000 tokens"},
		{"the example of docs/design/mcp.md", fullread.Health{Nodes: 12, Edges: 9, Unconnected: 2, AvgEdgesPerNode: 0.8, Estimate: 2310, MaxTokens: 4000},
			"HEALTH: 12 nodes, 9 edges, 2 unconnected (17%), avg 0.8 edges/node, ~2310/4000 tokens"},
		{"rounds the average", fullread.Health{Nodes: 3, Edges: 2, AvgEdgesPerNode: 4.0 / 3, Estimate: 90, MaxTokens: 4000},
			"HEALTH: 3 nodes, 2 edges, 0 unconnected (0%), avg 1.3 edges/node, ~90/4000 tokens"},
		{"over budget", fullread.Health{Nodes: 1, Unconnected: 1, Estimate: 5000, MaxTokens: 4000, OverBudget: true},
			"HEALTH: 1 nodes, 0 edges, 1 unconnected (100%), avg 0 edges/node, ~5000/4000 tokens (over budget: what is left is new, in its grace period)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := healthLine(tc.h); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// exampleRead is the full read of the example of docs/design/mcp.md#full-read,
// more or less.
func exampleRead() app.FullRead {
	n := func(id, gist string) *domain.Node { return &domain.Node{ID: id, Gist: gist} }
	e := func(from, rel, to string, notes ...string) *domain.Edge {
		return &domain.Edge{From: from, Rel: rel, To: to, Notes: notes}
	}
	return app.FullRead{
		User: app.GraphView{Key: domain.UserGraph, View: fullread.View{
			Active:   []*domain.Node{n("auth-token-refresh", "JWT refresh uses sliding window; silent failure if session expired"), n("auth-module", "wraps the IdP")},
			Archived: []string{"old-build-notes"},
			Edges:    []*domain.Edge{e("auth-module", "requires-init", "session-handler", "init order matters", "the handler owns the\ncookie jar"), e("auth-token-refresh", "touches", "src/auth/refresh.py")},
			Health:   fullread.Health{Active: 2, Archived: 1, Orphaned: 4, Nodes: 2, Edges: 2, Unconnected: 0, AvgEdgesPerNode: 1, Estimate: 93, MaxTokens: 4000},
		}},
		Project: &app.GraphView{Key: domain.ProjectGraph("/src/my-app"), Name: "my-app", View: fullread.View{
			Health: fullread.Health{MaxTokens: 4000},
		}},
	}
}

func TestRenderFullReadGolden(t *testing.T) {
	gs := fitFullRead(exampleRead(), "3fa29c0d1e7b4a55", maxReadChars)
	golden(t, "render/full_read.txt", []byte(renderFullRead(gs, "3fa29c0d1e7b4a55")+"\n"))
}

func TestRenderNodeReadGolden(t *testing.T) {
	tier := func(t domain.Tier) *domain.Tier { return &t }
	ts := domain.Micros(t0.UnixMicro())
	r := app.NodeRead{
		Level: domain.LevelProject, Project: "/src/my-app", WasTier: domain.Archived, Rescued: []string{"lost-neighbour"},
		Node: &domain.Node{ID: "auth-token-refresh", Gist: "JWT refresh uses sliding window", Tier: domain.Active,
			Notes: []string{"silent failure if the session expired"}, Touches: []string{"src/auth/refresh.py"},
			Created: ts, Version: domain.Version{V: 3, TS: ts + domain.Days(2)},
			Use: domain.Use{Count: 98303, Day: domain.UseDay(ts + domain.Days(2)), Known: true}},
		Out: []app.EdgeEnd{
			{Edge: &domain.Edge{From: "auth-token-refresh", Rel: "requires-init", To: "session-handler",
				Notes: []string{"init order matters", "see the startup sequence"}}, OtherTier: tier(domain.Active), OtherLevel: domain.LevelProject},
			{Edge: &domain.Edge{From: "auth-token-refresh", Rel: "touches", To: "src/auth/refresh.py"}},
		},
		In: []app.EdgeEnd{
			{Edge: &domain.Edge{From: "lost-neighbour", Rel: "explains", To: "auth-token-refresh", Notes: []string{"written first"}},
				OtherTier: tier(domain.Archived), OtherLevel: domain.LevelProject},
			{Edge: &domain.Edge{From: "jwt-basics", Rel: "generalises", To: "auth-token-refresh"},
				OtherTier: tier(domain.Active), OtherLevel: domain.LevelUser},
		},
	}
	golden(t, "render/node_read.txt", []byte(renderNodeReads([]app.NodeRead{r}, "3fa29c0d1e7b4a55")+"\n"))
}

// TestRenderNodeReadNotSavedGolden holds the read by id of a stale node of
// the user graph whose restore could not be saved, and of a node never
// written nor counted, beside it.
func TestRenderNodeReadNotSavedGolden(t *testing.T) {
	rs := []app.NodeRead{
		{Level: domain.LevelUser, WasTier: domain.Archived, RecallNotSaved: "the recall could not be saved (the user graph is unavailable); the node stays archived",
			Node: &domain.Node{ID: "jwt-basics", Gist: "tokens expire", Tier: domain.Archived, Version: domain.Version{V: 1},
				Stale: []domain.StaleFile{{Path: "src/auth/refresh.py", Change: domain.FileChanged}, {Path: "docs/a.md", Change: domain.FileVanished}}}},
		{Level: domain.LevelProject, WasTier: domain.Active, Node: &domain.Node{ID: "bare", Gist: "g", Tier: domain.Active}},
	}
	golden(t, "render/node_read_not_saved.txt", []byte(renderNodeReads(rs, "3fa29c0d1e7b4a55")+"\n"))
}

// bigRead is a user graph whose archived ids and edges to archived nodes
// can each go far past the cap, beside edges between active nodes with
// long notes.
func bigRead(archived, edgesToArchived, notedEdges int) app.FullRead {
	v := fullread.View{Health: fullread.Health{MaxTokens: 4000}}
	for i := range 50 {
		v.Active = append(v.Active, &domain.Node{ID: fmt.Sprintf("active-%02d", i), Gist: strings.Repeat("g", 200)})
	}
	for i := range archived {
		v.Archived = append(v.Archived, fmt.Sprintf("archived-node-with-a-long-name-%05d", i))
	}
	v.Edges = append(v.Edges, &domain.Edge{From: "active-00", Rel: "uses", To: "active-01"})
	for i := range edgesToArchived {
		v.Edges = append(v.Edges, &domain.Edge{From: "active-02", Rel: "recalls", To: v.Archived[i%len(v.Archived)],
			Notes: []string{"why"}})
	}
	for i := range notedEdges {
		v.Edges = append(v.Edges, &domain.Edge{From: "active-03", Rel: fmt.Sprintf("r%03d", i), To: "active-04",
			Notes: []string{strings.Repeat("n", 300), "second\nnote"}})
	}
	v.Health.Active, v.Health.Archived, v.Health.Nodes, v.Health.Edges = len(v.Active), len(v.Archived), len(v.Active), len(v.Edges)
	return app.FullRead{User: app.GraphView{Key: domain.UserGraph, View: v}}
}

func TestFullReadCap(t *testing.T) {
	tests := []struct {
		name                    string
		archived, edges, noted  int
		wantArchived, wantEdges bool // whether some are left out
	}{
		{"fits", 10, 10, 10, false, false},
		{"archived ids go first", 1500, 5, 5, true, false},
		{"then edges to archived nodes", 5, 2000, 5, true, true},
		// Notes are never printed, so 200 edges with 300-character notes
		// leave out nothing.
		{"edges with long notes fit", 5, 5, 200, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fr := bigRead(tc.archived, tc.edges, tc.noted)
			gs := fitFullRead(fr, "s", maxReadChars)
			text := renderFullRead(gs, "s")
			if n := utf8.RuneCountInString(text); n > maxReadChars {
				t.Errorf("%d characters, over the cap", n)
			}
			g := gs[0]
			if (g.archivedOmitted > 0) != tc.wantArchived || (g.edgesOmitted > 0) != tc.wantEdges {
				t.Errorf("omitted %d archived, %d edges", g.archivedOmitted, g.edgesOmitted)
			}
			if g.edgesOmitted > 0 && g.archivedOmitted != tc.archived {
				t.Errorf("edges dropped while %d archived ids remain", tc.archived-g.archivedOmitted)
			}
			if shown := strings.Count(text, "--> active-04 (+2 notes)\n"); shown != tc.noted {
				t.Errorf("%d of the %d edges with two notes shown with their count", shown, tc.noted)
			}
			mustNotContain(t, text, strings.Repeat("n", 300), "second note", "recalls--> archived-node-with-a-long-name-00000 — ")
			for _, n := range fr.User.View.Active {
				if !strings.Contains(text, "  "+n.ID+": "+n.Gist) {
					t.Fatalf("active gist %s dropped", n.ID)
				}
			}
			if !strings.Contains(text, "active-00 --uses--> active-01\n") {
				t.Error("an edge between active nodes was dropped")
			}
			if tc.wantArchived {
				mustContain(t, text, fmt.Sprintf("(%d archived ids and %s left out to stay under 40000 characters; kg_search finds them)",
					g.archivedOmitted, plural(g.edgesOmitted, "edge to archived nodes", "edges to archived nodes")))
			} else {
				mustNotContain(t, text, "left out")
			}
			if shown := strings.Count(text, "\n  archived-"); shown+g.archivedOmitted != tc.archived {
				t.Errorf("%d archived ids shown and %d left out, of %d", shown, g.archivedOmitted, tc.archived)
			}
			if shown := strings.Count(text, "-->"); shown+g.edgesOmitted != tc.edges+tc.noted+1 {
				t.Errorf("%d edges shown and %d left out, of %d", shown, g.edgesOmitted, tc.edges+tc.noted+1)
			}
			counted := 0
			for _, e := range g.view.Edges {
				counted += len(e.Notes)
			}
			if want := tc.edges - g.edgesOmitted + 2*tc.noted; counted != want {
				t.Errorf("%d notes on the shown edges, want %d", counted, want)
			}
			if len(fr.User.View.Archived) != tc.archived || len(fr.User.View.Edges) != tc.edges+tc.noted+1 {
				t.Error("fitting changed the app's view")
			}
		})
	}
}

// Edge notes are not printed in the full read (docs/design/mcp.md#full-read):
// an edge with notes ends with how many it has. So two different edges
// never print the same line (an edge to "Design — draft" and one to
// "Design" with the note "draft"), and notes of any length on many edges
// keep the read within what its token estimate charges (15 tokens, about
// 60 characters, an edge).
func TestFullReadPrintsNoEdgeNotes(t *testing.T) {
	at := domain.Stamp{Now: domain.Micros(t0.UnixMicro()), Session: "s"}
	g := domain.NewGraph(domain.UserGraph)
	for _, id := range []string{"x", "n"} {
		if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: "g"}, at); err != nil {
			t.Fatal(err)
		}
	}
	for _, in := range []domain.EdgeInput{
		{From: "x", Rel: "cites", To: "Design — draft"},
		{From: "x", Rel: "cites", To: "Design", Notes: []string{"draft"}},
	} {
		if _, err := g.PutEdge(in, at); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 20 {
		if _, err := g.PutEdge(domain.EdgeInput{From: "n", Rel: fmt.Sprintf("r%02d", i), To: "x", Notes: []string{strings.Repeat("w", 1000)}}, at); err != nil {
			t.Fatal(err)
		}
	}
	view := fullread.Build(g, compaction.DefaultPolicy())
	fr := app.FullRead{User: app.GraphView{Key: domain.UserGraph, View: view}}
	text := renderFullRead(fitFullRead(fr, "s", maxReadChars), "s")
	lines := strings.Split(text, "\n")
	mustContain(t, text, "  x --cites--> Design — draft\n", "  x --cites--> Design (+1 note)\n")
	var cites []string
	for _, l := range lines {
		if strings.HasPrefix(l, "  x --cites--> ") {
			cites = append(cites, l)
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(cites)))) != 2 {
		t.Errorf("the two edges print %q", cites)
	}
	mustNotContain(t, text, strings.Repeat("w", 20))
	edgeChars := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "  n --r") {
			if !strings.HasSuffix(l, "--> x (+1 note)") {
				t.Errorf("edge line %q, want its note counted", l)
			}
			edgeChars += utf8.RuneCountInString(l) + 1
		}
	}
	if edgeChars == 0 || edgeChars > 20*15*4 {
		t.Errorf("the 20 edges take %d characters of the read, more than the %d tokens the estimate charges them",
			edgeChars, 20*15)
	}
	if n := utf8.RuneCountInString(text); n > 4*view.Health.Estimate+400 {
		t.Errorf("a read of %d characters for an estimate of %d tokens:\n%s", n, view.Health.Estimate, text)
	}
}

func TestRenderResults(t *testing.T) {
	key := domain.EdgeKey{From: "a", To: "b", Rel: "uses"}
	tests := []struct {
		name, got, want string
	}{
		{"put node", renderPutNode(app.PutNodeResult{Level: domain.LevelProject, Node: &domain.Node{ID: "x", Version: domain.Version{V: 3}}}),
			`Node "x" saved to project graph (v3)`},
		{"put node with compaction", renderPutNode(app.PutNodeResult{Level: domain.LevelUser, Node: &domain.Node{ID: "x", Version: domain.Version{V: 1}},
			Compaction: compaction.Moves{Archived: []string{"p", "q"}, Orphaned: []string{"r"}}}),
			"Node \"x\" saved to user graph (v1)\nCompaction: archived p, q; orphaned r"},
		{"put edge", renderPutEdge(app.PutEdgeResult{Level: domain.LevelUser, Edge: &domain.Edge{From: "a", To: "b", Rel: "uses"}}),
			"Edge a --uses--> b saved to user graph"},
		{"delete edge", renderDeleteEdge(app.DeleteEdgeResult{Level: domain.LevelUser, Key: key, Deleted: true}), "Edge a --uses--> b deleted from user graph"},
		{"edge not found", renderDeleteEdge(app.DeleteEdgeResult{Key: key}), "Edge not found: a --uses--> b"},
		{"no progress", renderProgress("t", domain.LevelUser, nil, false), `No progress found for task "t"`},
		{"progress", renderProgress("t", domain.LevelProject, domain.RawJSON(`{"a":1}`), true), "Progress of task \"t\" (project graph):\n{\n  \"a\": 1\n}"},
		{"sync empty", renderSync(app.SyncResult{}), "No updates from other sessions"},
		{"sync", renderSync(app.SyncResult{
			User: changes.Report{Items: []changes.Item{
				{Node: &domain.Node{ID: "n1", Gist: "g1", Tier: domain.Archived}},
				{Node: &domain.Node{ID: "n2", Gist: "secret", Tier: domain.Orphaned}},
				{Edge: &domain.Edge{From: "a", To: "b", Rel: "uses"}},
				{Edge: &domain.Edge{From: "a", To: "c", Rel: "uses", Notes: []string{"since v2", "two\n  lines"}}},
				{Deleted: true, NodeID: "gone"},
				{Deleted: true, EdgeKey: &key},
			}, Archived: 1, Pruned: 2},
			Project:     &changes.Report{},
			ProjectPath: "/src/my-app",
		}), "USER GRAPH: 2 nodes and 2 edges updated, 1 node and 1 edge deleted\n" +
			"  node n1 [archived]: g1\n  node n2 [orphaned]\n  edge a --uses--> b\n  edge a --uses--> c — since v2; two lines\n" +
			"  deleted node gone\n  deleted edge a --uses--> b\n" +
			"  compaction: 1 archived, 0 restored, 0 orphaned, 2 pruned"},
		{"sync project only", renderSync(app.SyncResult{Project: &changes.Report{Restored: 1}, ProjectPath: "/src/my-app"}),
			"PROJECT GRAPH (my-app): 0 nodes and 0 edges updated, 0 nodes and 0 edges deleted\n  compaction: 0 archived, 1 restored, 0 orphaned, 0 pruned"},
		{"sync user unavailable", renderSync(app.SyncResult{UserUnavailable: "the user graph could not be loaded: damaged",
			Project: &changes.Report{Restored: 1}, ProjectPath: "/src/my-app"}),
			"USER GRAPH — unavailable: the user graph could not be loaded: damaged\n" +
				"PROJECT GRAPH (my-app): 0 nodes and 0 edges updated, 0 nodes and 0 edges deleted\n  compaction: 0 archived, 1 restored, 0 orphaned, 0 pruned"},
		{"sync user unavailable, nothing else", renderSync(app.SyncResult{UserUnavailable: "the user graph could not be loaded: damaged",
			Project: &changes.Report{}, ProjectPath: "/src/my-app"}),
			"USER GRAPH — unavailable: the user graph could not be loaded: damaged"},
		{"search none", renderSearch("q", app.SearchResult{}), `No nodes match "q"`},
		{"search", renderSearch("tok", app.SearchResult{Hits: []app.Hit{{Level: domain.LevelProject, Project: "/src/my-app", Score: 1.0 / 60,
			Node: &domain.Node{ID: "x", Gist: "g", Tier: domain.Archived, Notes: []string{"n"}}}}}),
			"1 node found for \"tok\" (kg_read with id shows one in full and restores it):\n  [project my-app] x (archived, score 0.0167): g\n    - n"},
		{"search with the user graph unavailable", renderSearch("tok", app.SearchResult{Hits: []app.Hit{{Level: domain.LevelProject, Project: "/src/my-app", Score: 1.0 / 60,
			Node: &domain.Node{ID: "x", Gist: "g", Tier: domain.Active}}}, Unavailable: []string{"the user graph could not be loaded: damaged"}}),
			"1 node found for \"tok\" (kg_read with id shows one in full and restores it):\n  [project my-app] x (active, score 0.0167): g\n" +
				"Not searched: the user graph could not be loaded: damaged"},
		{"search with a correction", renderSearch("authentcation flow", app.SearchResult{
			Corrections: []graphsearch.Correction{{Term: "authentcation", Used: "authentication"}},
			Hits: []app.Hit{{Level: domain.LevelUser, Score: 2.25, Matched: []string{"authentication", "flow"},
				Node: &domain.Node{ID: "login", Gist: "g", Tier: domain.Active}}}}),
			"No exact match for \"authentcation\"; showing \"authentication\"\n" +
				"1 node found for \"authentcation flow\" (kg_read with id shows one in full and restores it):\n" +
				"  [user] login (active, score 2.2500, matched authentication flow): g"},
		{"search none, with the nearest spelling", renderSearch("lgin pottary", app.SearchResult{
			Nearest: []graphsearch.Suggestion{{Term: "lgin", Nearest: "login"}, {Term: "pottary", Nearest: "pottery"}}}),
			"No nodes match \"lgin pottary\"\nNearest spelling of \"lgin\" in memory: \"login\"\nNearest spelling of \"pottary\" in memory: \"pottery\""},
		{"search none, the user graph unavailable", renderSearch("q", app.SearchResult{Unavailable: []string{"the user graph could not be loaded: damaged"}}),
			"No nodes match \"q\"\nNot searched: the user graph could not be loaded: damaged"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", tc.got, tc.want)
			}
		})
	}
}

// A graph that cannot be loaded is one line in the full read; the other
// graph is shown as always.
func TestFullReadWithAnUnavailableGraph(t *testing.T) {
	fr := exampleRead()
	fr.User = app.GraphView{Key: domain.UserGraph, Unavailable: "the user graph could not be loaded: user.json is damaged"}
	gs := fitFullRead(fr, "s1", maxReadChars)
	text := renderFullRead(gs, "s1")
	want := "=== USER GRAPH — unavailable: the user graph could not be loaded: user.json is damaged ===\n=== PROJECT GRAPH (my-app) — 0 active, 0 archived ===\n"
	if !strings.HasPrefix(text, want) {
		t.Errorf("text starts\n%s\nwant\n%s", text, want)
	}
}

// TestRenderSyncGolden holds the text of kg_sync: every kind of change,
// a compaction's moves, a graph that could not be read, and nothing to
// report.
func TestRenderSyncGolden(t *testing.T) {
	key := domain.EdgeKey{From: "auth-module", Rel: "requires-init", To: "session-handler"}
	r := app.SyncResult{
		UserUnavailable: "the user graph is unavailable: disk full",
		ProjectPath:     "/src/my-app",
		Project: &changes.Report{Items: []changes.Item{
			{Node: &domain.Node{ID: "auth-module", Gist: "wraps the IdP", Tier: domain.Active}},
			{Node: &domain.Node{ID: "old-notes", Gist: "kept", Tier: domain.Archived}},
			{Node: &domain.Node{ID: "lost", Tier: domain.Orphaned}},
			{Edge: &domain.Edge{From: key.From, Rel: key.Rel, To: key.To, Notes: []string{"init order\n matters", "the handler owns the jar"}}},
			{Edge: &domain.Edge{From: "a", Rel: "uses", To: "b"}},
			{Deleted: true, EdgeKey: &key},
			{Deleted: true, NodeID: "gone"},
		}, Archived: 2, Restored: 1, Orphaned: 1, Pruned: 3},
	}
	text := renderSync(r) + "\n---\n" + renderSync(app.SyncResult{})
	golden(t, "render/sync.txt", []byte(text+"\n"))
}

// TestRenderWriteAnswersGolden holds the texts of the write tools: a put
// with what it redacted, its possible duplicates and what compaction
// moved, a plain put, the deletes (an edge not found too), and kg_progress
// with and without a stored state.
func TestRenderWriteAnswersGolden(t *testing.T) {
	key := domain.EdgeKey{From: "auth-module", Rel: "requires-init", To: "session-handler"}
	moves := compaction.Moves{Archived: []string{"a", "b"}, Restored: []string{"c"}, Pruned: []string{"d"}}
	found := []secrets.Finding{
		{Field: "notes[1]", Secret: secrets.Secret{Kind: secrets.Kind{ID: "aws-access-key", Label: "an AWS access key"}, Start: 11, End: 31}},
		{Field: "gist", Secret: secrets.Secret{Kind: secrets.Kind{ID: "jwt", Label: "a JSON web token"}, Start: 0, End: 40}},
	}
	texts := []string{
		renderPutNode(app.PutNodeResult{Level: domain.LevelProject, Node: &domain.Node{ID: "auth", Version: domain.Version{V: 3}},
			Compaction: moves, Redacted: found,
			PossibleDuplicates: []duplicates.Match{{ID: "Auth", ByID: true, Score: 1}, {ID: "auth-module", Score: 0.8612}}}),
		renderPutNode(app.PutNodeResult{Level: domain.LevelUser, Node: &domain.Node{ID: "jwt-basics", Version: domain.Version{V: 1}}}),
		renderPutEdge(app.PutEdgeResult{Level: domain.LevelProject, Edge: &domain.Edge{From: key.From, Rel: key.Rel, To: key.To},
			Compaction: compaction.Moves{Orphaned: []string{"x"}}, Redacted: found[:1]}),
		renderPutEdge(app.PutEdgeResult{Level: domain.LevelUser, Edge: &domain.Edge{From: "a", Rel: "uses", To: "b"}}),
		renderDeleteEdge(app.DeleteEdgeResult{Level: domain.LevelProject, Key: key, Deleted: true}),
		renderDeleteEdge(app.DeleteEdgeResult{Level: domain.LevelProject, Key: key}),
		renderDeleteNode(app.DeleteNodeResult{Level: domain.LevelUser, ID: "auth", EdgesDeleted: 1}),
		renderDeleteNode(app.DeleteNodeResult{Level: domain.LevelProject, ID: "auth", EdgesDeleted: 3}),
		renderProgress("migrate db", domain.LevelProject, domain.RawJSON(`{"step":2,"done":["a","b"]}`), true),
		renderProgress("migrate db", domain.LevelUser, nil, false),
	}
	golden(t, "render/write_answers.txt", []byte(strings.Join(texts, "\n---\n")+"\n"))
}
