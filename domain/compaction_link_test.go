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
// benchmark checks.
var (
	compactRun       func(g *Graph, now Micros, p Policy) (archived int, empty bool) // compaction.Run
	compactPlan      func(g *Graph, now Micros, p Policy)                            // compaction.Plan
	prune            func(g *Graph, at Stamp, p Policy)                              // compaction.Prune
	expireTombstones func(g *Graph, now Micros, p Policy)                            // compaction.ExpireTombstones
)

// LinkCompaction gives the internal tests compaction's Run and Plan, and
// Prune and ExpireTombstones; only link_test.go calls it, from package
// domain_test.
func LinkCompaction(run func(*Graph, Micros, Policy) (int, bool), plan func(*Graph, Micros, Policy),
	pruneFn func(*Graph, Stamp, Policy), expire func(*Graph, Micros, Policy)) {
	compactRun, compactPlan, prune, expireTombstones = run, plan, pruneFn, expire
}
