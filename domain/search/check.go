package search

import (
	"fmt"
	"maps"
	"slices"
)

// Check compares the index with the text of its graph worked out from
// scratch, as bbolt's Tx.Check compares a database file with its pages: it
// is how the graph's tests hold the index exact through every change. want
// holds each word of the graph's nodes' texts with, by slot, how many
// times the node counts it (HeadWeight × its count in the id and gist, plus
// its count in the rest), and nodes is how many nodes the graph has.
//
// Each word must list exactly the slots of the nodes holding it, in order,
// each with its count, and have its stem; each stem must list its words
// and count the nodes holding one; each word's bound must be at least its
// most counted; each word must be in the set of each trigram of its padded
// text and no other; the free numbers must be free; and the block maxima
// must be those of the postings. Check returns one line per problem.
func (ix *Index) Check(nodes int, want map[string]map[int32]int32) []string {
	var probs []string
	bad := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }
	if ix.count != nodes {
		bad("the index counts %d nodes, the graph has %d", ix.count, nodes)
	}
	probs = append(probs, ix.checkWords(want)...)
	probs = append(probs, ix.checkStems(want)...)
	probs = append(probs, ix.checkGrams()...)
	return probs
}

// checkWords checks each word's postings, bound, number and stem.
func (ix *Index) checkWords(want map[string]map[int32]int32) []string {
	var probs []string
	bad := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }
	free := map[int32]bool{}
	for _, w := range ix.freeWords {
		free[w] = true
	}
	got := map[string]map[int32]int32{}
	for w, lw := range ix.words {
		if lw.text == "" {
			if !free[int32(w)] {
				bad("word %d is empty and not free", w)
			}
			continue
		}
		got[lw.text] = map[int32]int32{}
		for i, p := range lw.posts {
			got[lw.text][p.slot] = p.tf
			if i > 0 && lw.posts[i-1].slot >= p.slot {
				bad("word %q: slot %d listed after slot %d", lw.text, p.slot, lw.posts[i-1].slot)
			}
			if p.tf > lw.maxTF {
				bad("word %q: slot %d counts it %d times, above its bound %d", lw.text, p.slot, p.tf, lw.maxTF)
			}
		}
		if ix.wordIx[lw.text] != int32(w) {
			bad("word %q is number %d, its map says %d", lw.text, w, ix.wordIx[lw.text])
		}
		switch {
		case lw.stem == ownStem:
			if IsLetters(lw.text) {
				bad("word %q of letters has no stem entry", lw.text)
			}
		case !IsLetters(lw.text):
			bad("word %q, not of letters, has stem entry %d", lw.text, lw.stem)
		default:
			if st := ix.stems[lw.stem]; st.text != Stem(lw.text) || !slices.Contains(st.words, int32(w)) {
				bad("word %q has stem %q (words %v), want %q", lw.text, st.text, st.words, Stem(lw.text))
			}
		}
		probs = append(probs, ix.checkBlocks(int32(w))...)
	}
	if len(ix.wordIx) != len(got) {
		bad("the word map has %d entries for %d words", len(ix.wordIx), len(got))
	}
	for _, text := range slices.Sorted(maps.Keys(want)) {
		if !maps.Equal(want[text], got[text]) {
			bad("word %q: postings %v, want %v", text, got[text], want[text])
		}
	}
	for _, text := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[text]; !ok {
			bad("word %q: postings %v, want none", text, got[text])
		}
	}
	return probs
}

// checkStems checks each stem's words and the nodes holding one of them.
func (ix *Index) checkStems(want map[string]map[int32]int32) []string {
	var probs []string
	bad := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }
	stemNodes := map[string]map[int32]bool{}
	for w, slots := range want {
		if !IsLetters(w) {
			continue // its own stem, with no entry
		}
		s := Stem(w)
		if stemNodes[s] == nil {
			stemNodes[s] = map[int32]bool{}
		}
		for si := range slots {
			stemNodes[s][si] = true
		}
	}
	wantDF := map[string]int{}
	for s, nodes := range stemNodes {
		wantDF[s] = len(nodes)
	}
	gotDF := map[string]int{}
	for s, st := range ix.stems {
		if len(st.words) == 0 {
			continue
		}
		gotDF[st.text] = int(st.df)
		if ix.stemIx[st.text] != int32(s) {
			bad("stem %q is number %d, its map says %d", st.text, s, ix.stemIx[st.text])
		}
		for _, w := range st.words {
			if ix.words[w].stem != int32(s) {
				bad("stem %q lists word %q of stem %d", st.text, ix.words[w].text, ix.words[w].stem)
			}
		}
	}
	if !maps.Equal(wantDF, gotDF) {
		bad("stems and their nodes: %v, want %v", gotDF, wantDF)
	}
	return probs
}

// checkGrams checks the trigram index of the lexicon.
func (ix *Index) checkGrams() []string {
	var probs []string
	want := map[uint32][]int32{}
	for w, lw := range ix.words {
		if lw.text != "" {
			for _, t := range SortedGrams(PadWord(lw.text)) {
				want[t] = append(want[t], int32(w))
			}
		}
	}
	got := map[uint32][]int32{}
	ix.grams.All(func(t uint32, p *Postings) {
		var ws []int32
		p.Each(func(w int32) { ws = append(ws, w) })
		if int(p.Len()) != len(ws) || p.Len() == 0 {
			probs = append(probs, fmt.Sprintf("trigram %06x counts %d words and lists %d", t, p.Len(), len(ws)))
		}
		got[t] = ws
	})
	if !maps.EqualFunc(want, got, slices.Equal) {
		probs = append(probs, fmt.Sprintf("trigrams of the lexicon: %v, want %v", got, want))
	}
	return probs
}

// checkBlocks checks the block maxima of word w: a word held by fewer than
// blockMin/2 nodes has none; one that has them has, for each block of its
// postings, the most a node of the block counts it (capped), and 0 for a
// block of none.
func (ix *Index) checkBlocks(w int32) []string {
	lw := &ix.words[w]
	bm := ix.blocksOf(w)
	if bm == nil {
		return nil
	}
	var probs []string
	if len(lw.posts) < int(ix.blockMin)/2 {
		probs = append(probs, fmt.Sprintf("word %q: block maxima with %d postings, under %d", lw.text, len(lw.posts), ix.blockMin/2))
	}
	want := make([]uint8, len(bm))
	for _, p := range lw.posts {
		j := int(ix.block(p.slot))
		if j >= len(want) {
			return append(probs, fmt.Sprintf("word %q: slot %d is past its %d block maxima", lw.text, p.slot, len(bm)))
		}
		want[j] = max(want[j], capBlockTF(p.tf))
	}
	if !slices.Equal(want, bm) {
		probs = append(probs, fmt.Sprintf("word %q: block maxima %v, want %v", lw.text, bm, want))
	}
	return probs
}
