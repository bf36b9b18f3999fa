package app

import (
	"cmp"
	"context"
	"slices"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
)

// Explanation is what a compaction run of one graph would do now, and
// where every node of the graph stands in its rank order — the figures the
// web page shows to say why a node ranks where it does.
type Explanation struct {
	Key            domain.GraphKey
	Now            domain.Micros
	Plan           compaction.Moves // the moves a run would make now, each with its reason
	Ranking        []NodeRank       // every node: the ranked first, in rank order; then the others by tier, then id
	MaxTokens      int
	Target         int // the estimate a run that archives brings the graph down to
	ArchivedBudget int // tokens of archived id lines (5 per id) a run keeps the graph within
	// Weights are the weights of the score and of connectedness the
	// ranking was computed with (docs/design/compaction.md#scores), and
	// Margin how much better an archived node must score to swap with one
	// a run archives (pass 1b).
	Weights compaction.ScoreWeights
	Margin  float64
	// Scoring is the score the ranking is by (KG_SCORING); Weights are
	// those of ScoringSeed.
	Scoring compaction.Scoring
}

// NodeRank is one node's standing in compaction at Explanation.Now.
type NodeRank struct {
	compaction.Rank
	Tier domain.Tier
	// Position is the node's place in the rank order, 1 for the node a run
	// would archive first; 0 for a node outside the ranked population (the
	// active nodes past grace), which has no percentiles or score.
	Position int
}

// ExplainCompaction is GET /api/compaction/plan: the plan of a run of the
// graph named by the scope (Scope.Level required), and the rank of every
// node, computed by the domain's own scoring at one instant. It changes
// nothing, not even read stamps.
func (s *Service) ExplainCompaction(ctx context.Context, sc Scope) (_ Explanation, err error) {
	t, e, err := s.scope.graphOf(ctx, sc)
	if err != nil {
		return Explanation{}, err
	}
	defer s.countOp(t.session, &err)
	p := s.cfg.Policy
	ex := Explanation{Key: e.Key(), Now: s.clock.Now(), MaxTokens: p.MaxTokens, Target: p.Target(), ArchivedBudget: p.ArchivedBudget(),
		Weights: p.Weights(), Margin: compaction.ResurrectionMargin, Scoring: p.Scoring}
	e.RLock()
	ex.Plan = compaction.Plan(e.Graph(), ex.Now, p)
	ranked, others := compaction.Ranks(e.Graph(), ex.Now, p)
	ex.Ranking = make([]NodeRank, 0, len(ranked)+len(others))
	for i, r := range ranked {
		n, _ := e.Graph().Node(r.ID)
		ex.Ranking = append(ex.Ranking, NodeRank{Rank: r, Tier: n.Tier, Position: i + 1})
	}
	rest := make([]NodeRank, 0, len(others))
	for _, r := range others {
		n, _ := e.Graph().Node(r.ID)
		rest = append(rest, NodeRank{Rank: r, Tier: n.Tier})
	}
	e.RUnlock()
	// others come by id; stable, so within a tier they stay by id.
	slices.SortStableFunc(rest, func(a, b NodeRank) int { return cmp.Compare(a.Tier, b.Tier) })
	ex.Ranking = append(ex.Ranking, rest...)
	return ex, nil
}
