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

// SetMeta stores v as the metadata value name (nil removes it): a value kg
// keeps with the graph that is neither a node nor an edge, saved with the
// graph's next commit, taking no seq. Like every change it is undone by
// Rollback.
func (g *Graph) SetMeta(name string, v RawJSON) {
	old, had := g.meta[name]
	g.journalRare(rareUndo{kind: undoMeta, id: name, progress: old, had: had})
	if v == nil {
		delete(g.meta, name)
	} else {
		g.meta[name] = v
	}
	g.pending.Meta = true
}
