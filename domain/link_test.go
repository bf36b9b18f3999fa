package domain_test

import (
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
)

// init links compaction into the internal tests of domain
// (compaction_link_test.go).
func init() {
	d := compaction.DefaultPolicy()
	domain.LinkCompaction(
		domain.CompactionPolicy{MaxTokens: d.MaxTokens, EstimateNotes: d.EstimateNotes, Grace: d.Grace,
			OrphanGrace: d.OrphanGrace, TombstoneTTL: d.TombstoneTTL, Seed: d.Scoring == compaction.ScoringSeed},
		func(g *domain.Graph, now domain.Micros, p domain.CompactionPolicy) (int, bool) {
			m := compaction.Run(g, now, policyOf(p))
			return len(m.Archived), m.Empty()
		},
		func(g *domain.Graph, now domain.Micros, p domain.CompactionPolicy) {
			compaction.Plan(g, now, policyOf(p))
		},
		func(g *domain.Graph, at domain.Stamp, p domain.CompactionPolicy) {
			compaction.Prune(g, at, policyOf(p))
		},
		func(g *domain.Graph, now domain.Micros, p domain.CompactionPolicy) {
			compaction.ExpireTombstones(g, now, policyOf(p))
		})
}

// policyOf is the compaction.Policy an internal test of domain sets
// (domain.CompactionPolicy).
func policyOf(p domain.CompactionPolicy) compaction.Policy {
	q := compaction.Policy{MaxTokens: p.MaxTokens, EstimateNotes: p.EstimateNotes, Grace: p.Grace,
		OrphanGrace: p.OrphanGrace, TombstoneTTL: p.TombstoneTTL}
	if p.Seed {
		q.Scoring = compaction.ScoringSeed
	}
	return q
}
