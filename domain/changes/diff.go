package changes

import (
	"strings"

	"github.com/kg-memory/kg/domain"
)

// FieldDiff is one field of a readable diff: its value before and after,
// as text ("" for none; lists one item a line).
type FieldDiff struct {
	Field  string
	Before string
	After  string
}

// Diff is the readable diff of one item change c: gist, notes and touches of
// a node, notes of an edge; only the fields that differ. A move has none.
func Diff(c domain.ItemChange) []FieldDiff {
	var out []FieldDiff
	add := func(field, before, after string) {
		if before != after {
			out = append(out, FieldDiff{Field: field, Before: before, After: after})
		}
	}
	if c.Tier != nil {
		return nil
	}
	if c.Edge {
		var bn, an []string
		if c.BeforeEdge != nil {
			bn = c.BeforeEdge.Notes
		}
		if c.AfterEdge != nil {
			an = c.AfterEdge.Notes
		}
		add("notes", strings.Join(bn, "\n"), strings.Join(an, "\n"))
		return out
	}
	var b, a domain.Node
	if c.BeforeNode != nil {
		b = *c.BeforeNode
	}
	if c.AfterNode != nil {
		a = *c.AfterNode
	}
	add("gist", b.Gist, a.Gist)
	add("notes", strings.Join(b.Notes, "\n"), strings.Join(a.Notes, "\n"))
	add("touches", strings.Join(b.Touches, "\n"), strings.Join(a.Touches, "\n"))
	return out
}
