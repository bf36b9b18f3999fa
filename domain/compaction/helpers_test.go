package compaction

import (
	"reflect"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
)

// nodeMap is the nodes of g by id.
func nodeMap(g *domain.Graph) map[string]*domain.Node {
	m := map[string]*domain.Node{}
	for _, n := range g.Nodes() {
		m[n.ID] = n
	}
	return m
}

// quickDiff is cmp.Diff(want, got, opts...) with a fast path: values that
// are reflect.DeepEqual are equal under cmp too (the options here only
// loosen the comparison), so they get "" without cmp's walk, which sorts
// every map's keys and costs most of a property test's time under the
// race detector. Unequal values get cmp's diff, as before.
func quickDiff(want, got any, opts ...cmp.Option) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return cmp.Diff(want, got, opts...)
}

// withoutSeq is d without its seq, for comparing the data of two graphs
// whose seqs may differ.
func withoutSeq(d domain.GraphData) domain.GraphData {
	d.Seq = 0
	return d
}
