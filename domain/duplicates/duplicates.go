package duplicates

import (
	"slices"
	"strings"
	"unicode"

	"github.com/kg-memory/kg/domain"
)

// Duplicate warnings (docs/design/trust.md#duplicates): a new node whose id
// is an existing one's but for case, '-' or '_' and a plural s, or whose
// gist is near-identical to an active or archived node's, is written all the
// same, and its result names them. kg never drops or merges a write on
// this guess; merging is a person's act.

// The thresholds of a near-identical gist
// (docs/design/trust.md#near-identical-gists).
const (
	Jaccard     = 0.8 // trigram Jaccard of the two gists
	Containment = 0.9 // share of the smaller gist's trigrams in the other's
	// minGrams is the fewest trigrams the smaller gist must have for
	// containment to count: a gist of a word or two is contained in many.
	minGrams = 12
	// rareWords is how many of the new gist's rarest words at most lead
	// to the nodes compared with it, through the search index.
	rareWords = 3
	// wordBudget is the most nodes read from one word's postings.
	wordBudget = 256
)

// Match is a node a new one may duplicate.
type Match struct {
	ID string
	// ByID: its id is the new one's but for case, '-'/'_' and a plural s.
	ByID bool
	// Score is how alike the gists are, the larger of their trigram
	// Jaccard and containment when one of them reaches its threshold; 1 for
	// a match by id alone.
	Score float64
}

// By names what d matched by: "id" or "gist".
func By(d Match) string {
	if d.ByID {
		return "id"
	}
	return "gist"
}

// Possible returns the nodes a new node with this id and gist may
// duplicate: by id, any node; by gist, active and archived nodes. The id
// itself is never among them. Matches by id come first, then by score,
// highest first, then by id. It costs one map lookup for the id
// (Graph.IDFormHolders), and for the gist a comparison with the nodes that
// hold one of its rarest words (Graph.EachGistCandidate).
func Possible(g *domain.Graph, id, gist string) []Match {
	var out []Match
	for _, other := range g.IDFormHolders(id) {
		out = append(out, Match{ID: other, ByID: true, Score: 1})
	}
	byID := len(out)
	var sc gramScratch
	grams := slices.Clone(sc.grams(gist))
	if len(grams) > 0 {
		g.EachGistCandidate(gist, rareWords, wordBudget, func(n *domain.Node) {
			if n.ID == id || slices.ContainsFunc(out[:byID], func(d Match) bool { return d.ID == n.ID }) {
				return
			}
			if score, ok := gistsAlike(grams, sc.grams(n.Gist)); ok {
				out = append(out, Match{ID: n.ID, Score: score})
			}
		})
	}
	slices.SortFunc(out, func(a, b Match) int {
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
// near-identical when the Jaccard index reaches Jaccard or, the smaller
// having at least minGrams trigrams, its share in the other reaches
// Containment. The score is the larger of the two measures.
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
	if small >= minGrams {
		containment = float64(common) / float64(small)
	}
	if jaccard >= Jaccard || containment >= Containment {
		return max(jaccard, containment), true
	}
	return max(jaccard, containment), false
}

// Cluster is a set of nodes that may say one thing: each is a
// possible duplicate of another of the set.
type Cluster struct {
	IDs []string // sorted
	// Pairs are the links that made the cluster, each with its score.
	Pairs []Pair
}

// Pair is two nodes of a cluster and why they are in it.
type Pair struct {
	A, B  string
	ByID  bool
	Score float64
}

// Clusters returns the clusters of the graph's active and archived
// nodes that are possible duplicates of each other (kg doctor
// --duplicates), largest first, then by first id. Nothing is changed.
func Clusters(g *domain.Graph) []Cluster {
	parent := map[string]string{}
	find := func(x string) string {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	var pairs []Pair
	// A pair may be found from either end or both: the candidates of a
	// gist are led by its own rarest words.
	found := map[[2]string]bool{}
	for n := range g.AllNodes() {
		if n.Tier != domain.Active && n.Tier != domain.Archived {
			continue
		}
		for _, d := range Possible(g, n.ID, n.Gist) {
			a, b := min(n.ID, d.ID), max(n.ID, d.ID)
			if found[[2]string{a, b}] {
				continue
			}
			if dn, ok := g.Node(d.ID); !ok || (dn.Tier != domain.Active && dn.Tier != domain.Archived) {
				continue
			}
			found[[2]string{a, b}] = true
			pairs = append(pairs, Pair{A: a, B: b, ByID: d.ByID, Score: d.Score})
			for _, x := range []string{n.ID, d.ID} {
				if _, ok := parent[x]; !ok {
					parent[x] = x
				}
			}
			parent[find(n.ID)] = find(d.ID)
		}
	}
	byRoot := map[string]*Cluster{}
	for _, p := range pairs {
		r := find(p.A)
		c := byRoot[r]
		if c == nil {
			c = &Cluster{}
			byRoot[r] = c
		}
		c.Pairs = append(c.Pairs, p)
	}
	for x := range parent {
		byRoot[find(x)].IDs = append(byRoot[find(x)].IDs, x)
	}
	out := make([]Cluster, 0, len(byRoot))
	for _, c := range byRoot {
		slices.Sort(c.IDs)
		slices.SortFunc(c.Pairs, func(a, b Pair) int {
			return strings.Compare(a.A+"\x00"+a.B, b.A+"\x00"+b.B)
		})
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b Cluster) int {
		if len(a.IDs) != len(b.IDs) {
			return len(b.IDs) - len(a.IDs)
		}
		return strings.Compare(a.IDs[0], b.IDs[0])
	})
	return out
}
