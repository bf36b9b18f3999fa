package domain

import (
	"strings"

	"github.com/kg-memory/kg/domain/search"
)

// The graph's side of the duplicate warnings (docs/design/trust.md#duplicates):
// the count of the nodes by the normalised form of their id, which every
// write keeps exact, and the search index's lead to the gists alike. The
// warning itself is the room domain/duplicates (docs/decisions/0088-domain-rooms.md).

// NormalizedID is the form two ids that name one thing share: lower case,
// '_' read as '-', one plural s dropped (auth_Tokens → auth-token).
func NormalizedID(id string) string {
	n := strings.ToLower(id)
	if strings.IndexByte(n, '_') >= 0 {
		n = strings.ReplaceAll(n, "_", "-")
	}
	if len(n) > 3 && n[len(n)-1] == 's' {
		n = n[:len(n)-1]
	}
	return n
}

// noteIDForm counts (sign +1) or uncounts (-1) the normalised form of a
// node's id; putNodeAt calls it as a node appears in or leaves a slot.
func (g *Graph) noteIDForm(id string, sign int32) {
	if g.idForms == nil {
		g.idForms = map[string]int32{}
	}
	f := NormalizedID(id)
	if c := g.idForms[f] + sign; c > 0 {
		g.idForms[f] = c
	} else {
		delete(g.idForms, f)
	}
}

// IDFormHolders returns the nodes other than id whose id has id's
// normalised form (NormalizedID), in slot order: for the duplicate warning
// (domain/duplicates). It costs one map lookup, and reads the ids only when
// the count kept by putNodeAt says another node holds the form, which is
// only as often as a write names a duplicate.
func (g *Graph) IDFormHolders(id string) []string {
	form := NormalizedID(id)
	own := int32(0)
	if _, ok := g.node(id); ok {
		own = 1
	}
	if g.idForms[form] <= own {
		return nil
	}
	var out []string
	for i := range g.ends {
		s := &g.ends[i]
		if s.node != nil && s.name != id && NormalizedID(s.name) == form {
			out = append(out, s.name)
		}
	}
	return out
}

// EachGistCandidate calls f with each active or archived node, once, that
// may hold a gist near-identical to gist
// (docs/design/trust.md#near-identical-gists): one that holds at least two
// of the rareWords rarest of its words known to the search index, read
// from at most wordBudget postings of each (search.Index.EachCandidate). So
// a write compares a handful of gists, whatever the size of the graph.
//
// The index is built here if no search has built it yet: a graph loads
// without it (docs/decisions/0053-search-index-on-first-search-and-block-max.md),
// and the first new node pays for it once rather than go unchecked.
func (g *Graph) EachGistCandidate(gist string, rareWords, wordBudget int, f func(n *Node)) {
	g.searchIndex().EachCandidate(search.AppendWords(nil, gist), rareWords, wordBudget, func(si int32) {
		s := &g.ends[si]
		if t := g.endTiers[si]; s.node != nil && (t == EndActive || t == EndArchived) {
			f(s.node)
		}
	})
}
