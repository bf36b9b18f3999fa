package domain

import (
	"fmt"
	"slices"
	"strings"
)

// Prune permanently deletes the nodes orphaned more than p.OrphanGrace before
// at.Now, with the edges of g that touch them, as the maintenance tick does
// (docs/design/compaction.md#pruning). Each deletion leaves a tombstone marked
// Pruned, so sync can tell it from a client's delete. Nodes are deleted in id
// order, so the seqs they take are deterministic.
//
// An orphaned node with no orphaned time is kept: without the time there is
// no way to know its grace is over, and deleting is the one move that cannot
// be undone.
func (g *Graph) Prune(at Stamp, p Policy) Moves {
	est := p.Estimate(g)
	m := Moves{EstimateBefore: est, EstimateAfter: est, OverBudget: est > p.MaxTokens}
	if g.stats.Orphaned == 0 {
		return m
	}
	var due []*Node
	for _, n := range g.allNodes() {
		if n.Tier == Orphaned && n.OrphanedAt != 0 && at.Now-n.OrphanedAt > p.OrphanGrace {
			due = append(due, n)
		}
	}
	slices.SortFunc(due, func(a, b *Node) int { return strings.Compare(a.ID, b.ID) })
	for _, n := range due {
		edges := g.removeNode(n.ID, at, true)
		m.Pruned = append(m.Pruned, n.ID)
		m.Steps = append(m.Steps, Move{ID: n.ID, From: Orphaned, To: Orphaned, Pruned: true, Pass: PassPrune,
			Reason: fmt.Sprintf("orphaned %s ago > orphan grace %s; %d edges deleted with it",
				days(at.Now-n.OrphanedAt), days(p.OrphanGrace), edges)})
	}
	// Only hidden edges went (every edge of an orphaned node is hidden), but
	// read the estimate again rather than assume it.
	m.EstimateAfter = p.Estimate(g)
	m.OverBudget = m.EstimateAfter > p.MaxTokens
	return m
}

// ExpireTombstones drops the tombstones of nodes and edges deleted more than
// p.TombstoneTTL before now, and returns how many it dropped. A dropped
// tombstone is journaled and pending like any change, so a backend deletes
// it too and a rollback brings it back.
func (g *Graph) ExpireTombstones(now Micros, p Policy) int {
	var nodes []string
	for id, t := range g.nodeTombs {
		if now-t.TS > p.TombstoneTTL {
			nodes = append(nodes, id)
		}
	}
	var edges []EdgeKey
	for k, t := range g.edgeTombs {
		if now-t.TS > p.TombstoneTTL {
			edges = append(edges, k)
		}
	}
	// Sorted so that the journal and its replay are the same on every run.
	slices.Sort(nodes)
	slices.SortFunc(edges, func(a, b EdgeKey) int {
		switch {
		case a.Less(b):
			return -1
		case b.Less(a):
			return 1
		}
		return 0
	})
	for _, id := range nodes {
		g.setNodeTomb(id, nil)
	}
	for _, k := range edges {
		g.setEdgeTomb(k, nil)
	}
	return len(nodes) + len(edges)
}

// days renders a duration in days for a reason line, e.g. "365.0 days".
func days(d Micros) string {
	return fmt.Sprintf("%.1f days", float64(d)/float64(Day))
}
