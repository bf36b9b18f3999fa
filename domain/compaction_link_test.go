package domain

// The tests of domain that need a graph as compaction leaves it (the search
// tests and benchmarks on the compacted workload) and BenchmarkCompact, which
// times a run on domain's workload, reach compaction through these two.
// Compaction is a room of domain (domain/compaction), which an internal test
// cannot import, the cycle; the external test package, linked into the same
// test binary, can, and sets them before any test runs (link_test.go,
// docs/decisions/0101-compaction-a-room.md).
var (
	compactRun  func(g *Graph, now Micros, p Policy) Moves // compaction.Run
	compactPlan func(g *Graph, now Micros, p Policy) Moves // compaction.Plan
)

// LinkCompaction gives the internal tests compaction's Run and Plan; only
// link_test.go calls it, from package domain_test.
func LinkCompaction(run, plan func(*Graph, Micros, Policy) Moves) {
	compactRun, compactPlan = run, plan
}
