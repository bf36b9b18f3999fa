package fullread

import (
	"slices"
	"strings"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
)

// Build builds what the full read shows of graph g
// (docs/design/mcp.md#full-read), in the order it shows it: the active nodes by
// creation time, then id; the archived (not orphaned) ids by id; the shown
// edges (Graph.Shown) by (from, rel, to); and the health line.
//
// Health is filled as follows: Active, Archived and Orphaned count the
// tiers; Nodes is the number of active nodes (what the read shows in full)
// and Edges the number of shown edges; Unconnected counts the active nodes
// that are an end of no shown edge; AvgEdgesPerNode is the number of
// shown-edge ends that are active nodes divided by the number of active
// nodes (0 when there is none), so an edge between two active nodes counts
// for both, an edge from an active node to a file counts once, and a
// self-loop counts twice; Estimate is p's token estimate of the graph,
// MaxTokens p's budget, and OverBudget whether the estimate exceeds it.
//
// It takes O(N log N + E log E) time: one pass over the nodes and edges and
// two sorts.
func Build(g *domain.Graph, p compaction.Policy) View {
	stats := g.Stats()
	v := View{
		Active:   make([]*domain.Node, 0, stats.Active),
		Archived: make([]string, 0, stats.Archived),
	}
	for n := range g.AllNodes() {
		switch n.Tier {
		case domain.Active:
			v.Active = append(v.Active, n)
		case domain.Archived:
			v.Archived = append(v.Archived, n.ID)
		}
	}
	slices.SortFunc(v.Active, func(a, b *domain.Node) int {
		switch {
		case a.Created < b.Created:
			return -1
		case a.Created > b.Created:
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	slices.Sort(v.Archived)

	connected := make(map[string]struct{})
	activeEnds := 0
	countEnd := func(end string) {
		if n, ok := g.Node(end); ok && n.Tier == domain.Active {
			activeEnds++
			connected[end] = struct{}{}
		}
	}
	v.Edges = make([]*domain.Edge, 0, stats.ShownEdges)
	for e := range g.ShownEdges() {
		v.Edges = append(v.Edges, e)
		countEnd(e.From)
		countEnd(e.To)
	}
	slices.SortFunc(v.Edges, func(a, b *domain.Edge) int {
		return domain.EdgeKey{From: a.From, To: a.To, Rel: a.Rel}.Compare(domain.EdgeKey{From: b.From, To: b.To, Rel: b.Rel})
	})

	est := p.Estimate(g)
	v.Health = Health{
		Active:      stats.Active,
		Archived:    stats.Archived,
		Orphaned:    stats.Orphaned,
		Nodes:       len(v.Active),
		Edges:       len(v.Edges),
		Unconnected: len(v.Active) - len(connected),
		Estimate:    est,
		MaxTokens:   p.MaxTokens,
		OverBudget:  est > p.MaxTokens,
	}
	if len(v.Active) > 0 {
		v.Health.AvgEdgesPerNode = float64(activeEnds) / float64(len(v.Active))
	}
	return v
}
