package domain

import (
	"slices"
	"strings"
	"unicode"

	"github.com/kg-memory/kg/domain/search"
)

// Duplicate warnings (docs/design/trust.md#duplicates): a new node whose id
// is an existing one's but for case, '-' or '_' and a plural s, or whose
// gist is near-identical to an active or archived node's, is written all the
// same, and its result names them. kg never drops or merges a write on
// this guess; merging is a person's act.

// The thresholds of a near-identical gist
// (docs/design/trust.md#near-identical-gists).
const (
	DupJaccard     = 0.8 // trigram Jaccard of the two gists
	DupContainment = 0.9 // share of the smaller gist's trigrams in the other's
	// dupMinGrams is the fewest trigrams the smaller gist must have for
	// containment to count: a gist of a word or two is contained in many.
	dupMinGrams = 12
	// dupRareWords is how many of the new gist's rarest words at most lead
	// to the nodes compared with it, through the search index.
	dupRareWords = 3
	// dupWordBudget is the most nodes read from one word's postings.
	dupWordBudget = 256
)

// Duplicate is a node a new one may duplicate.
type Duplicate struct {
	ID string
	// ByID: its id is the new one's but for case, '-'/'_' and a plural s.
	ByID bool
	// Score is how alike the gists are, the larger of their trigram
	// Jaccard and containment when one of them reaches its threshold; 1 for
	// a match by id alone.
	Score float64
}

// DuplicateBy names what d matched by: "id" or "gist".
func DuplicateBy(d Duplicate) string {
	if d.ByID {
		return "id"
	}
	return "gist"
}

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

// PossibleDuplicates returns the nodes a new node with this id and gist may
// duplicate: by id, any node; by gist, active and archived nodes. The id
// itself is never among them. Matches by id come first, then by score,
// highest first, then by id. It costs one map lookup for the id, and for
// the gist a comparison with the nodes that hold one of its rarest words.
func (g *Graph) PossibleDuplicates(id, gist string) []Duplicate {
	var out []Duplicate
	form := NormalizedID(id)
	own := int32(0)
	if _, ok := g.node(id); ok {
		own = 1
	}
	if g.idForms[form] > own {
		// Another node holds the form: find which. Only then are the ids
		// read, and only as often as a write names a duplicate.
		for i := range g.ends {
			s := &g.ends[i]
			if s.node != nil && s.name != id && NormalizedID(s.name) == form {
				out = append(out, Duplicate{ID: s.name, ByID: true, Score: 1})
			}
		}
	}
	byID := len(out)
	var sc gramScratch
	grams := slices.Clone(sc.grams(gist))
	if len(grams) > 0 {
		g.eachGistCandidate(gist, func(si int32) {
			s := &g.ends[si]
			if s.name == id || (g.endTiers[si] != endActive && g.endTiers[si] != endArchived) ||
				slices.ContainsFunc(out[:byID], func(d Duplicate) bool { return d.ID == s.name }) {
				return
			}
			if score, ok := gistsAlike(grams, sc.grams(s.node.Gist)); ok {
				out = append(out, Duplicate{ID: s.name, Score: score})
			}
		})
	}
	slices.SortFunc(out, func(a, b Duplicate) int {
		switch {
		case a.ByID != b.ByID:
			if a.ByID {
				return -1
			}
			return 1
		case a.Score != b.Score:
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// eachGistCandidate calls f with the slot of each node, once, that may hold
// a gist near-identical to gist (docs/design/trust.md#near-identical-gists):
// one that holds at least two of the dupRareWords rarest of its words
// known to the search index, read from at most dupWordBudget postings of
// each (search.Index.EachCandidate). So a write compares a handful of
// gists, whatever the size of the graph.
//
// The index is built here if no search has built it yet: a graph loads
// without it (docs/decisions/0053-search-index-on-first-search-and-block-max.md),
// and the first new node pays for it once rather than go unchecked.
func (g *Graph) eachGistCandidate(gist string, f func(si int32)) {
	g.searchIndex().EachCandidate(search.AppendWords(nil, gist), dupRareWords, dupWordBudget, func(si int32) {
		if g.ends[si].node != nil {
			f(si)
		}
	})
}

// gramScratch holds the buffers of gistGrams between calls.
type gramScratch struct {
	runes []rune
	out   []uint64
}

// grams returns the distinct trigrams of a gist read loosely: lower case,
// every run of characters other than letters and digits one space, sorted.
// The slice is reused by the next call.
func (sc *gramScratch) grams(gist string) []uint64 {
	rs := sc.runes[:0]
	space := true // no leading space
	for _, r := range gist {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			rs = append(rs, unicode.ToLower(r))
			space = false
		} else if !space {
			rs = append(rs, ' ')
			space = true
		}
	}
	if len(rs) > 0 && rs[len(rs)-1] == ' ' {
		rs = rs[:len(rs)-1]
	}
	sc.runes = rs
	if len(rs) < 3 {
		return nil
	}
	grams := sc.out[:0]
	for i := 0; i+3 <= len(rs); i++ {
		grams = append(grams, uint64(rs[i])<<42|uint64(rs[i+1])<<21|uint64(rs[i+2]))
	}
	slices.Sort(grams)
	sc.out = grams
	return slices.Compact(grams)
}

// gistsAlike compares two gists by their trigram sets (sorted, distinct):
// near-identical when the Jaccard index reaches DupJaccard or, the smaller
// having at least dupMinGrams trigrams, its share in the other reaches
// DupContainment. The score is the larger of the two measures.
func gistsAlike(a, b []uint64) (float64, bool) {
	if len(a) == 0 || len(b) == 0 {
		return 0, false
	}
	common := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			common++
			i++
			j++
		}
	}
	jaccard := float64(common) / float64(len(a)+len(b)-common)
	small := min(len(a), len(b))
	containment := 0.0
	if small >= dupMinGrams {
		containment = float64(common) / float64(small)
	}
	if jaccard >= DupJaccard || containment >= DupContainment {
		return max(jaccard, containment), true
	}
	return max(jaccard, containment), false
}

// DuplicateCluster is a set of nodes that may say one thing: each is a
// possible duplicate of another of the set.
type DuplicateCluster struct {
	IDs []string // sorted
	// Pairs are the links that made the cluster, each with its score.
	Pairs []DuplicatePair
}

// DuplicatePair is two nodes of a cluster and why they are in it.
type DuplicatePair struct {
	A, B  string
	ByID  bool
	Score float64
}

// DuplicateClusters returns the clusters of the graph's active and archived
// nodes that are possible duplicates of each other (kg doctor
// --duplicates), largest first, then by first id. Nothing is changed.
func (g *Graph) DuplicateClusters() []DuplicateCluster {
	parent := map[string]string{}
	find := func(x string) string {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	var pairs []DuplicatePair
	// A pair may be found from either end or both: the candidates of a
	// gist are led by its own rarest words.
	found := map[[2]string]bool{}
	for i := range g.ends {
		s := &g.ends[i]
		if t := g.endTiers[i]; s.node == nil || (t != endActive && t != endArchived) {
			continue
		}
		for _, d := range g.PossibleDuplicates(s.name, s.node.Gist) {
			a, b := min(s.name, d.ID), max(s.name, d.ID)
			if found[[2]string{a, b}] {
				continue
			}
			if dn, ok := g.node(d.ID); !ok || (dn.Tier != Active && dn.Tier != Archived) {
				continue
			}
			found[[2]string{a, b}] = true
			pairs = append(pairs, DuplicatePair{A: a, B: b, ByID: d.ByID, Score: d.Score})
			for _, x := range []string{s.name, d.ID} {
				if _, ok := parent[x]; !ok {
					parent[x] = x
				}
			}
			parent[find(s.name)] = find(d.ID)
		}
	}
	byRoot := map[string]*DuplicateCluster{}
	for _, p := range pairs {
		r := find(p.A)
		c := byRoot[r]
		if c == nil {
			c = &DuplicateCluster{}
			byRoot[r] = c
		}
		c.Pairs = append(c.Pairs, p)
	}
	for x := range parent {
		byRoot[find(x)].IDs = append(byRoot[find(x)].IDs, x)
	}
	out := make([]DuplicateCluster, 0, len(byRoot))
	for _, c := range byRoot {
		slices.Sort(c.IDs)
		slices.SortFunc(c.Pairs, func(a, b DuplicatePair) int {
			return strings.Compare(a.A+"\x00"+a.B, b.A+"\x00"+b.B)
		})
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b DuplicateCluster) int {
		if len(a.IDs) != len(b.IDs) {
			return len(b.IDs) - len(a.IDs)
		}
		return strings.Compare(a.IDs[0], b.IDs[0])
	})
	return out
}
