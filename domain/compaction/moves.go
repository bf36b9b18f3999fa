package compaction

import "github.com/kg-memory/kg/domain"

// The passes a Move names (Move.Pass).
const (
	PassArchive        = "archive"          // pass 1: over max, archive in rank order down to the target
	PassResurrect      = "resurrect"        // pass 1b: an older archived node swapped back in
	PassArchiveForSwap = "archive-for-swap" // pass 1b: archived to make room for a resurrected node
	PassOrphan         = "orphan"           // pass 2: archived ids over the archived budget
	PassPrune          = "prune"            // maintenance: orphaned longer than the orphan grace
)

// Move is one tier change made by compaction or pruning, with the facts
// that decided it — what the dry-run plan, the compacted event and the web
// page show.
type Move struct {
	ID       string
	From, To domain.Tier
	Pruned   bool   // permanently deleted (To is meaningless)
	Pass     string // "archive", "resurrect", "archive-for-swap", "orphan", "prune"
	Rank     *Rank  // the scores the decision used; nil for orphan and prune
	Reason   string // one line for a person, e.g. "lowest score 0.1650; estimate 4120 > max 4000"
}

// Moves is the outcome of one compaction run (or one pruning pass).
type Moves struct {
	Archived []string // in the order archived, net of undone swaps
	Restored []string // archived before this run, made active by pass 1b
	Orphaned []string
	Pruned   []string
	Steps    []Move // every kept move, in the order made; only the first ones when the run listed fewer
	// Unlisted counts the kept moves left out of Steps by a run told to
	// list fewer (RunListing): they are in the id lists above,
	// without a rank or a reason.
	Unlisted int

	EstimateBefore, EstimateAfter int
	// OverBudget is true when the run ends with the estimate above max:
	// what is left is in grace, or shown edges between artifacts.
	OverBudget bool
}

// Empty reports whether the run moved nothing.
func (m Moves) Empty() bool {
	return len(m.Archived) == 0 && len(m.Restored) == 0 && len(m.Orphaned) == 0 && len(m.Pruned) == 0
}

// Rank is why a node ranks where it does in compaction: its figures, their
// percentiles in a population, its score and its grace. Which percentiles a
// ranked node carries depends on the scoring: PRecency and PConnectedness
// under ScoringSeed, PUse under ScoringUse.
type Rank struct {
	ID             string
	Recency        domain.Micros // max(last write, last read)
	Connectedness  int           // 66 × in + 33 × out, edges from/to active nodes; 0 in a ranked population under ScoringUse
	Use            uint64        // the use count decayed to the run's day, u(n)
	UseDay         int32         // the day the node was last counted (or given its default)
	PRecency       float64
	PConnectedness float64
	PUse           float64
	Score          float64
	Eligible       bool          // not orphaned and past grace
	GraceLeft      domain.Micros // 0 when past grace
	Scoring        Scoring       // the scoring the figures were computed under: which percentiles mean something
}
