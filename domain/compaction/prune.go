package compaction

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kg-memory/kg/domain"
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
func Prune(g *domain.Graph, at domain.Stamp, p Policy) Moves {
	est := p.Estimate(g)
	m := Moves{EstimateBefore: est, EstimateAfter: est, OverBudget: est > p.MaxTokens}
	if g.Stats().Orphaned == 0 {
		return m
	}
	var due []*domain.Node
	for n := range g.AllNodes() {
		if n.Tier == domain.Orphaned && n.OrphanedAt != 0 && at.Now-n.OrphanedAt > p.OrphanGrace {
			due = append(due, n)
		}
	}
	slices.SortFunc(due, func(a, b *domain.Node) int { return strings.Compare(a.ID, b.ID) })
	for _, n := range due {
		edges, _ := g.PruneNode(n.ID, at) // due holds only nodes of g
		m.Pruned = append(m.Pruned, n.ID)
		m.Steps = append(m.Steps, Move{ID: n.ID, From: domain.Orphaned, To: domain.Orphaned, Pruned: true, Pass: PassPrune,
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
func ExpireTombstones(g *domain.Graph, now domain.Micros, p Policy) int {
	var nodes []string
	for id, t := range g.AllNodeTombstones() {
		if now-t.TS > p.TombstoneTTL {
			nodes = append(nodes, id)
		}
	}
	var edges []domain.EdgeKey
	for k, t := range g.AllEdgeTombstones() {
		if now-t.TS > p.TombstoneTTL {
			edges = append(edges, k)
		}
	}
	// Sorted so that the journal and its replay are the same on every run.
	slices.Sort(nodes)
	slices.SortFunc(edges, func(a, b domain.EdgeKey) int {
		switch {
		case a.Less(b):
			return -1
		case b.Less(a):
			return 1
		}
		return 0
	})
	g.DropTombstones(nodes, edges)
	return len(nodes) + len(edges)
}

// days renders a duration in days for a reason line, e.g. "365.0 days".
func days(d domain.Micros) string {
	return fmt.Sprintf("%.1f days", float64(d)/float64(domain.Day))
}
