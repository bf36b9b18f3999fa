package compaction

import (
	"strconv"

	"github.com/kg-memory/kg/domain"
)

// Policy holds the compaction settings of docs/design/compaction.md#settings.
type Policy struct {
	MaxTokens     int           // token budget per graph (KG_MAX_TOKENS)
	EstimateNotes bool          // count notes in the estimate (KG_ESTIMATE_NOTES)
	Grace         domain.Micros // creation grace: younger nodes are never archived (KG_GRACE_PERIOD_DAYS)
	OrphanGrace   domain.Micros // how long a node stays orphaned before pruning (KG_ORPHAN_GRACE_DAYS)
	TombstoneTTL  domain.Micros // how long tombstones are kept
	// Scoring is the score compaction ranks nodes by (KG_SCORING); the zero
	// value is ScoringUse, the default.
	Scoring Scoring
	// Score weighs what ranks a node under ScoringSeed; the zero value means
	// DefaultScoreWeights, so a Policy that leaves it out scores as the
	// spec does.
	Score ScoreWeights
}

// Scoring names the score of docs/design/compaction.md#score that ranks
// nodes in compaction.
type Scoring uint8

const (
	// ScoringUse is the default: score = p_use, the percentile of the
	// node's decayed use count (docs/design/compaction.md#the-use-count).
	ScoringUse Scoring = iota
	// ScoringSeed is the design description's formula:
	// score = 0.33 × p_recency + 0.66 × p_connectedness.
	ScoringSeed
)

// String is the name KG_SCORING takes: "use" or "seed".
func (s Scoring) String() string {
	switch s {
	case ScoringUse:
		return "use"
	case ScoringSeed:
		return "seed"
	}
	return "scoring(" + strconv.Itoa(int(s)) + ")"
}

// ParseScoring reads a scoring named by a setting.
func ParseScoring(field, s string) (Scoring, error) {
	switch s {
	case "use":
		return ScoringUse, nil
	case "seed":
		return ScoringSeed, nil
	}
	return 0, domain.Invalidf(field, "%q is not one of use, seed", s)
}

// ScoreWeights are the weights of a node's compaction score
// (docs/design/compaction.md#scores):
//
//	connectedness = In × in + Out × out
//	score         = Recency × p_recency + Connectedness × p_connectedness
//
// where in and out count the node's edges from and to active nodes. In and
// Out are integers (the spec's 0.66 and 0.33 in hundredths) so that equal
// connectedness values tie exactly.
type ScoreWeights struct {
	Recency, Connectedness float64
	In, Out                int
}

// DefaultScoreWeights returns the weights of
// docs/design/compaction.md#scores: score = 0.33 × p_recency +
// 0.66 × p_connectedness, connectedness = 66 × in + 33 × out.
func DefaultScoreWeights() ScoreWeights {
	return ScoreWeights{Recency: 0.33, Connectedness: 0.66, In: 66, Out: 33}
}

// Compaction defaults.
const (
	DefaultMaxTokens       = 4000
	DefaultGraceDays       = 5
	DefaultOrphanGraceDays = 365
	TombstoneTTLDays       = 30
	// ResurrectionMargin is how much better a node archived earlier must
	// score than one archived now for the two to swap (pass 1b).
	ResurrectionMargin = 0.05
)

// DefaultPolicy returns the defaults of docs/design/compaction.md#settings.
func DefaultPolicy() Policy {
	return Policy{
		MaxTokens:    DefaultMaxTokens,
		Grace:        domain.Days(DefaultGraceDays),
		OrphanGrace:  domain.Days(DefaultOrphanGraceDays),
		TombstoneTTL: domain.Days(TombstoneTTLDays),
		Score:        DefaultScoreWeights(),
	}
}

// Weights returns the weights the policy scores with: its own, or the
// defaults when it sets none. What explains a ranking to a person (the
// compaction plan of the API) reads them here, so it cannot tell another
// formula than the one compaction uses.
func (p Policy) Weights() ScoreWeights {
	if p.Score == (ScoreWeights{}) {
		return DefaultScoreWeights()
	}
	return p.Score
}

// Target is the estimate a run that archives brings the graph down to:
// floor(0.8 × max), in integer arithmetic so no float rounding can move it.
func (p Policy) Target() int { return p.MaxTokens * 8 / 10 }

// ArchivedBudget is the token budget of the archived id lines:
// floor(0.30 × max).
func (p Policy) ArchivedBudget() int { return p.MaxTokens * 3 / 10 }

// Estimate is the token estimate of g under this policy.
func (p Policy) Estimate(g *domain.Graph) int { return g.Stats().Estimate(p.EstimateNotes) }
