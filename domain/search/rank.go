package search

import (
	"math"
	"unicode/utf8"
)

// The ranking of kg_search (docs/design/mcp.md#kg_search): BM25 over the words
// of a node's text, a word of the id or gist counting twice, each term
// scored by its best match (its stem, a longer word holding it, or, for a
// term that matches nothing, the nearest spelling in the graphs). The
// constants were chosen by recall on public data (docs/performance.md#search-quality).
const (
	// K1 is how fast repeats of a word saturate: the part of a word
	// counted tf times is tf×(k1+1)/(tf+k1), below k1+1.
	K1 = 1.2
	// A word of the id or gist counts HeadWeight times one of the notes,
	// touches or edge ends.
	HeadWeight = 2
	// A match inside a longer word ("auth" in "oauth") counts SubWeight of
	// a match of the word itself, with the rarity of that longer word but
	// never more than the term's own.
	SubWeight = 0.5
	// A correction counts TypoWeight of the word it stands for.
	TypoWeight = 0.75
	// A stop word of English ("the", "when", "did") counts StopWeight of
	// another word, on top of its low rarity: in a small graph even "the"
	// is rare enough to outvote a word that matters.
	StopWeight = 0.1
	// A term of fewer than SubMinRunes letters ("n", "a", "go") matches
	// only the words of its stem, never inside longer words: a letter or
	// two is inside most words of a graph, so the match says nothing, and
	// looking for it would read the whole lexicon and score every node
	// (docs/decisions/0073-short-terms-match-whole-words.md).
	SubMinRunes = 3
	// A term held by more than CommonShare of the nodes searched, and by
	// at least CommonMinDF of them, is common. A common term, or one of
	// fewer than SubMinRunes letters, is weak: when the query holds a term
	// that is not, it counts only in the nodes such a term matches
	// (docs/decisions/0074-weak-terms-count-only-beside-a-strong-one.md).
	CommonShare = 0.1
	CommonMinDF = 64
)

// IsWeak reports whether a term of stem document frequency df among n
// nodes is weak: short, or common.
func IsWeak(term string, df, n int) bool {
	return utf8.RuneCountInString(term) < SubMinRunes || df >= CommonMinDF && float64(df) > CommonShare*float64(n)
}

// Typo fallback: a term of TypoMinRunes or more that matches nothing is
// matched by words TypoEdits away (TypoFarEdits from TypoFarRunes).
const (
	TypoMinRunes = 5
	TypoFarRunes = 9
	TypoEdits    = 1
	TypoFarEdits = 2
)

// TypoMax returns how many edits a correction of a term of n runes may be
// away; 0 when the term has no correction.
func TypoMax(n int) int {
	switch {
	case n < TypoMinRunes:
		return 0
	case n < TypoFarRunes:
		return TypoEdits
	}
	return TypoFarEdits
}

// NearMax returns how many edits the nearest spelling of a term of n runes
// shown with no hits may be away: one more than a correction, and one for a
// short term.
func NearMax(n int) int { return TypoMax(n) + 1 }

// IDF is the BM25 rarity weight of a match held by df of n nodes, always
// above 0: ln(1 + (n − df + 0.5)/(df + 0.5)).
func IDF(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// Saturate is the BM25 part of a word counted tf times (b = 0: a node's
// length does not count, docs/design/mcp.md#kg_search).
func Saturate(tf float64) float64 { return tf * (K1 + 1) / (tf + K1) }
