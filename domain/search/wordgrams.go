package search

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// WordGrams is the trigram index of a lexicon of numbered words (not of the
// text): for each trigram of a word padded at both ends, the set of the
// numbers of the words holding it. It finds the words holding a term
// (substring matches) and the words a few edits from one (the typo
// fallback) without reading every word (docs/decisions/0013-search-index.md).
// The lexicon keeps the words' texts; WordGrams asks for them by number.
type WordGrams struct {
	// grams holds, for each trigram, the position in sets of the set of
	// word numbers holding it; free the positions of sets that emptied.
	grams GramTable
	sets  []Postings
	free  []int32
	buf   []uint32 // the trigrams of the word being added or removed
}

// Add records that word w, of text text, holds its padded trigrams; nwords
// is the lexicon's number of word numbers.
func (x *WordGrams) Add(text string, w int32, nwords int) {
	x.buf = AppendPaddedGrams(x.buf[:0], text)
	for _, t := range x.buf {
		x.add(t, w, nwords)
	}
}

// Remove takes word w, of text text, out of the sets of its trigrams.
func (x *WordGrams) Remove(text string, w int32, nwords int) {
	x.buf = AppendPaddedGrams(x.buf[:0], text)
	for _, t := range x.buf {
		x.remove(t, w, nwords)
	}
}

func (x *WordGrams) add(t uint32, w int32, nwords int) {
	i, ok := x.grams.Get(t)
	if !ok {
		i = x.takeSet()
		x.grams.Put(t, i)
	}
	x.sets[i].Add(w, nwords)
}

func (x *WordGrams) remove(t uint32, w int32, nwords int) {
	i, ok := x.grams.Get(t)
	if !ok {
		return
	}
	p := &x.sets[i]
	p.Remove(w, nwords)
	if p.Len() == 0 {
		*p = Postings{}
		x.grams.Remove(t)
		x.free = append(x.free, i)
	}
}

// takeSet returns the position of an empty set: one given back, or a new one.
func (x *WordGrams) takeSet() int32 {
	if n := len(x.free); n > 0 {
		i := x.free[n-1]
		x.free = x.free[:n-1]
		return i
	}
	x.sets = append(x.sets, Postings{})
	return int32(len(x.sets) - 1)
}

// set returns the set of words holding trigram t; nil if none does.
func (x *WordGrams) set(t uint32) *Postings {
	if i, ok := x.grams.Get(t); ok {
		return &x.sets[i]
	}
	return nil
}

// All calls f for every trigram and the set of words holding it, in no
// particular order: for the index's consistency checks.
func (x *WordGrams) All(f func(t uint32, words *Postings)) {
	x.grams.All(func(t uint32, i int32) { f(t, &x.sets[i]) })
}

// Holding calls f with every word of the lexicon that holds term as a
// substring, and returns how many words it read to find them: only the
// words holding all of the term's trigrams. A term of fewer than three
// bytes has no trigram and holds nothing (domain's search never asks for
// one: subMinRunes). text gives a word's text by its number.
func (x *WordGrams) Holding(term string, text func(w int32) string, f func(w int32)) int {
	if len(term) < 3 {
		return 0
	}
	grams := SortedGrams(term)
	sets := make([]*Postings, len(grams))
	for i, t := range grams {
		if sets[i] = x.set(t); sets[i] == nil {
			return 0
		}
	}
	slices.SortFunc(sets, func(a, b *Postings) int { return int(a.Len() - b.Len()) })
	read := 0
	sets[0].Each(func(w int32) {
		read++
		for _, p := range sets[1:] {
			if !p.Has(w) {
				return
			}
		}
		if strings.Contains(text(w), term) {
			f(w)
		}
	})
	return read
}

// Near calls f with every word of the lexicon within max edits of
// term (EditDistance), and the distance. For a term in ASCII the words
// are first narrowed by their padded trigrams: an edit of the term takes
// at most four of its trigrams away (a swap of two letters; other edits
// three), so a word within max edits shares all but 4×max of them. A term
// with other letters, or too short to narrow that way, is compared with
// every word of a fitting length. text gives a word's text by its number,
// empty for a number the lexicon does not use; nwords is how many numbers
// it has.
func (x *WordGrams) Near(term string, max, nwords int, text func(w int32) string, f func(w int32, dist int)) {
	tr := []rune(term)
	check := func(w int32) {
		word := text(w)
		if word == "" {
			return
		}
		if n := utf8.RuneCountInString(word); n < len(tr)-max || n > len(tr)+max {
			return
		}
		if d := EditDistance(tr, []rune(word), max); d <= max {
			f(w, d)
		}
	}
	grams := SortedGrams(PadWord(term))
	need := len(grams) - 4*max
	if len(tr) != len(term) || need <= 0 {
		for w := range nwords {
			check(int32(w))
		}
		return
	}
	shared := map[int32]int{}
	for _, t := range grams {
		if p := x.set(t); p != nil {
			p.Each(func(w int32) { shared[w]++ })
		}
	}
	ws := make([]int32, 0, len(shared))
	for w, c := range shared {
		if c >= need {
			ws = append(ws, w)
		}
	}
	slices.Sort(ws)
	for _, w := range ws {
		check(w)
	}
}
