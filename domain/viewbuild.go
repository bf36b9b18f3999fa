package domain

import (
	"slices"
	"strings"
)

// View builds what the full read shows of the graph
// (docs/design/mcp.md#full-read), in the order it shows it: the active nodes by
// creation time, then id; the archived (not orphaned) ids by id; the shown
// edges (Shown) by (from, rel, to); and the health line.
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
func (g *Graph) View(p Policy) View {
	v := View{
		Active:   make([]*Node, 0, g.stats.Active),
		Archived: make([]string, 0, g.stats.Archived),
	}
	for _, n := range g.allNodes() {
		switch n.Tier {
		case Active:
			v.Active = append(v.Active, n)
		case Archived:
			v.Archived = append(v.Archived, n.ID)
		}
	}
	slices.SortFunc(v.Active, func(a, b *Node) int {
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
		if n, ok := g.node(end); ok && n.Tier == Active {
			activeEnds++
			connected[end] = struct{}{}
		}
	}
	v.Edges = make([]*Edge, 0, g.stats.ShownEdges)
	for _, x := range g.edgeSlots {
		if x.e == nil || !EdgeShown(g.endTiers[x.from], g.endTiers[x.to]) {
			continue
		}
		v.Edges = append(v.Edges, x.e)
		countEnd(x.e.From)
		countEnd(x.e.To)
	}
	slices.SortFunc(v.Edges, func(a, b *Edge) int {
		return cmpEdgeKey(EdgeKey{a.From, a.To, a.Rel}, EdgeKey{b.From, b.To, b.Rel})
	})

	est := p.Estimate(g)
	v.Health = Health{
		Active:      g.stats.Active,
		Archived:    g.stats.Archived,
		Orphaned:    g.stats.Orphaned,
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
