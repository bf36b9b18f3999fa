package domain

// The tests of domain that need a graph as compaction leaves it (the search
// tests and benchmarks on the compacted workload), BenchmarkCompact, which
// times a run on domain's workload, and the properties that prune and expire
// tombstones among other writes reach compaction through these function
// values. Compaction is a room of domain (domain/compaction), which an
// internal test cannot import, the cycle; the external test package, linked
// into the same test binary, can, and sets them before any test runs
// (link_test.go, docs/decisions/0101-compaction-a-room.md). A run's
// compaction.Moves, a type of the room, reaches them as the two figures the
// benchmark checks, and its compaction.Policy as a CompactionPolicy.
var (
	compactRun       func(g *Graph, now Micros, p CompactionPolicy) (archived int, empty bool) // compaction.Run
	compactPlan      func(g *Graph, now Micros, p CompactionPolicy)                            // compaction.Plan
	prune            func(g *Graph, at Stamp, p CompactionPolicy)                              // compaction.Prune
	expireTombstones func(g *Graph, now Micros, p CompactionPolicy)                            // compaction.ExpireTombstones
)

// CompactionPolicy is a compaction.Policy as the internal tests set one:
// link_test.go makes the room's Policy of it field for field, ScoringSeed
// when Seed is set, and the default score weights (those of a Policy whose
// Score is zero, compaction.Policy.Weights).
type CompactionPolicy struct {
	MaxTokens                        int
	EstimateNotes                    bool
	Grace, OrphanGrace, TombstoneTTL Micros
	Seed                             bool
}

// defaultPolicy is compaction.DefaultPolicy as a CompactionPolicy, set by
// LinkCompaction.
var defaultPolicy CompactionPolicy

// LinkCompaction gives the internal tests compaction's Run and Plan, Prune
// and ExpireTombstones, and its default policy; only link_test.go calls it,
// from package domain_test.
func LinkCompaction(defaults CompactionPolicy, run func(*Graph, Micros, CompactionPolicy) (int, bool), plan func(*Graph, Micros, CompactionPolicy),
	pruneFn func(*Graph, Stamp, CompactionPolicy), expire func(*Graph, Micros, CompactionPolicy)) {
	defaultPolicy = defaults
	compactRun, compactPlan, prune, expireTombstones = run, plan, pruneFn, expire
}
