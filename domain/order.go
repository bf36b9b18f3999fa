package domain

import "strings"

// cmpGraphKey orders graph keys the way every listing across graphs does:
// the user graph first (it is read first), then project graphs by path.
func cmpGraphKey(a, b GraphKey) int {
	if a.Level != b.Level {
		if a.Level == LevelUser {
			return -1
		}
		if b.Level == LevelUser {
			return 1
		}
		return strings.Compare(string(a.Level), string(b.Level))
	}
	return strings.Compare(a.Project, b.Project)
}

// cmpEdgeKey orders edge keys by (from, rel, to), like EdgeKey.Less, with
// one three-way comparison per field: sorting the edges of a large graph
// spends most of its time here, and Less compares each field twice.
func cmpEdgeKey(a, b EdgeKey) int {
	if c := strings.Compare(a.From, b.From); c != 0 {
		return c
	}
	if c := strings.Compare(a.Rel, b.Rel); c != 0 {
		return c
	}
	return strings.Compare(a.To, b.To)
}

// Compare orders k against o by (from, rel, to), as cmpEdgeKey does, for
// the rooms of domain that sort or search edge keys.
func (k EdgeKey) Compare(o EdgeKey) int { return cmpEdgeKey(k, o) }

// Compare orders k against o as every listing across graphs does
// (cmpGraphKey), for domain/graphsearch, which ranks graphs by it.
func (k GraphKey) Compare(o GraphKey) int { return cmpGraphKey(k, o) }
