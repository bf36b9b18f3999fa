package domain_test

import (
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
)

// init links compaction into the internal tests of domain
// (compaction_link_test.go).
func init() {
	domain.LinkCompaction(
		func(g *domain.Graph, now domain.Micros, p domain.Policy) (int, bool) {
			m := compaction.Run(g, now, p)
			return len(m.Archived), m.Empty()
		},
		func(g *domain.Graph, now domain.Micros, p domain.Policy) { compaction.Plan(g, now, p) },
		func(g *domain.Graph, at domain.Stamp, p domain.Policy) { compaction.Prune(g, at, p) },
		func(g *domain.Graph, now domain.Micros, p domain.Policy) { compaction.ExpireTombstones(g, now, p) })
}
