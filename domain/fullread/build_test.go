package fullread

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/domain/internal/graphtest"
)

func TestBuild(t *testing.T) {
	g := domain.NewGraph(domain.UserGraph)
	// Created times out of id order, with a tie at 20.
	graphtest.PutAt(t, g, graphtest.At(30, ""), "first-by-id", "gist a", nil, nil)
	graphtest.PutAt(t, g, graphtest.At(20, ""), "zeta", "gist z", nil, nil)
	graphtest.PutAt(t, g, graphtest.At(20, ""), "eta", "gist e", nil, nil)
	graphtest.PutAt(t, g, graphtest.At(10, ""), "oldest", "12345678", nil, nil) // gist cost 2
	graphtest.PutAt(t, g, graphtest.At(40, ""), "lonely", "gist l", nil, nil)
	graphtest.PutAt(t, g, graphtest.At(5, ""), "arch-b", "gist", nil, nil)
	graphtest.PutAt(t, g, graphtest.At(5, ""), "arch-a", "gist", nil, nil)
	graphtest.PutAt(t, g, graphtest.At(5, ""), "orph", "gist", nil, nil)
	graphtest.SetTier(t, g, "arch-b", domain.Archived, 50)
	graphtest.SetTier(t, g, "arch-a", domain.Archived, 50)
	graphtest.SetTier(t, g, "orph", domain.Orphaned, 50)

	at := graphtest.At(60, "")
	graphtest.Edge(t, g, at, "zeta", "uses", "eta")         // active–active: shown, 2 active ends
	graphtest.Edge(t, g, at, "eta", "touches", "src/x.go")  // active–file: shown, 1 end
	graphtest.Edge(t, g, at, "oldest", "recalls", "arch-a") // active–archived: shown, 1 end
	graphtest.Edge(t, g, at, "oldest", "self", "oldest")    // self-loop: shown, 2 ends
	graphtest.Edge(t, g, at, "a.md", "links", "b.md")       // file–file: shown, 0 ends
	graphtest.Edge(t, g, at, "arch-a", "rel", "arch-b")     // archived–archived: hidden
	graphtest.Edge(t, g, at, "arch-b", "touches", "y.go")   // archived–file: hidden
	graphtest.Edge(t, g, at, "zeta", "rel", "orph")         // to an orphan: hidden

	p := compaction.DefaultPolicy()
	v := Build(g, p)

	var active []string
	for _, n := range v.Active {
		active = append(active, n.ID)
	}
	if diff := cmp.Diff([]string{"oldest", "eta", "zeta", "first-by-id", "lonely"}, active); diff != "" {
		t.Errorf("active (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"arch-a", "arch-b"}, v.Archived); diff != "" {
		t.Errorf("archived (-want +got):\n%s", diff)
	}
	var edges []string
	for _, e := range v.Edges {
		edges = append(edges, e.Key().String())
	}
	wantEdges := []string{
		"a.md --links--> b.md",
		"eta --touches--> src/x.go",
		"oldest --recalls--> arch-a",
		"oldest --self--> oldest",
		"zeta --uses--> eta",
	}
	if diff := cmp.Diff(wantEdges, edges); diff != "" {
		t.Errorf("edges (-want +got):\n%s", diff)
	}

	// 5 active nodes: cost 5×20 + gists (1+1+1+2+1) + 5 shown edges × 15.
	wantHealth := Health{
		Active: 5, Archived: 2, Orphaned: 1,
		Nodes: 5, Edges: 5,
		Unconnected:     2, // first-by-id and lonely
		AvgEdgesPerNode: 6.0 / 5,
		Estimate:        100 + 6 + 75, MaxTokens: 4000,
	}
	if diff := cmp.Diff(wantHealth, v.Health); diff != "" {
		t.Errorf("health (-want +got):\n%s", diff)
	}
	if v.Health.Estimate != p.Estimate(g) {
		t.Errorf("health estimate %d, policy estimate %d", v.Health.Estimate, p.Estimate(g))
	}
}

func TestBuildHealthEdgeCases(t *testing.T) {
	tests := []struct {
		name  string
		build func(t *testing.T, g *domain.Graph)
		max   int
		want  Health
	}{
		{
			name:  "empty graph",
			build: func(*testing.T, *domain.Graph) {},
			max:   4000,
			want:  Health{MaxTokens: 4000},
		},
		{
			name: "only archived nodes: no division by zero",
			build: func(t *testing.T, g *domain.Graph) {
				graphtest.Put(t, g, "a", "gist", nil, nil)
				graphtest.SetTier(t, g, "a", domain.Archived, 2)
			},
			max:  4000,
			want: Health{Archived: 1, MaxTokens: 4000},
		},
		{
			name: "over budget",
			build: func(t *testing.T, g *domain.Graph) {
				graphtest.Put(t, g, "a", "gist", nil, nil)
				graphtest.Put(t, g, "b", "gist", nil, nil)
			},
			max:  41,
			want: Health{Active: 2, Nodes: 2, Unconnected: 2, Estimate: 42, MaxTokens: 41, OverBudget: true},
		},
		{
			name: "at budget is not over",
			build: func(t *testing.T, g *domain.Graph) {
				graphtest.Put(t, g, "a", "gist", nil, nil)
				graphtest.Put(t, g, "b", "gist", nil, nil)
			},
			max:  42,
			want: Health{Active: 2, Nodes: 2, Unconnected: 2, Estimate: 42, MaxTokens: 42},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := domain.NewGraph(domain.UserGraph)
			tc.build(t, g)
			p := compaction.DefaultPolicy()
			p.MaxTokens = tc.max
			got := Build(g, p)
			if diff := cmp.Diff(tc.want, got.Health); diff != "" {
				t.Errorf("health (-want +got):\n%s", diff)
			}
			if len(got.Active) != tc.want.Nodes || len(got.Archived) != tc.want.Archived {
				t.Errorf("view lists %d active and %d archived, health says %d and %d",
					len(got.Active), len(got.Archived), tc.want.Nodes, tc.want.Archived)
			}
		})
	}
}

func TestBuildEstimateNotes(t *testing.T) {
	g := domain.NewGraph(domain.UserGraph)
	graphtest.Put(t, g, "a", "1234", []string{"12345678"}, nil)
	p := compaction.DefaultPolicy()
	if got := Build(g, p).Health.Estimate; got != 21 {
		t.Errorf("gist-only estimate = %d, want 21", got)
	}
	p.EstimateNotes = true
	if got := Build(g, p).Health.Estimate; got != 23 {
		t.Errorf("estimate with notes = %d, want 23", got)
	}
}
