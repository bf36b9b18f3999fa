package domain

import (
	"maps"
	"slices"
)

// MetaNames returns the names of the unknown metadata values, sorted. A
// backend that stores metadata key by key needs them to write every value
// (Meta reads one) without copying the whole graph through Data.
func (g *Graph) MetaNames() []string {
	return slices.Sorted(maps.Keys(g.meta))
}
