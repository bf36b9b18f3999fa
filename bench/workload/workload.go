// Package workload is the vocabulary and word distribution of the benchmark
// workload (docs/design/benchmarks.md#workload), in one place for every
// benchmark: the Go benchmarks of domain/ and the load tool cmd/kgbench,
// whose --print-workload document bench/peers replays against kg and the
// peer server.
//
// Words are drawn from a Zipf distribution (s = 1) over a vocabulary of
// Size made-up words, so that, as in real notes, a few words are in most
// nodes and most words in few. The vocabulary is generated, not a list of
// English words: the same on every machine, free of any licence, and each
// word is its own Snowball stem and no stop word, so that no two words of
// it are one word to kg's search.
package workload

import (
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/kljensen/snowball/english"
)

// Size is the number of words of the vocabulary.
const Size = 5000

// vocabSeed seeds the made-up words; changing it changes every figure.
const vocabSeed = 5000

// Words is the vocabulary, the most frequent word first.
type Words struct {
	list []string
	cum  []float64 // cum[i]: Σ 1/(k+1) for k ≤ i, the Zipf weights
}

// Vocabulary returns the vocabulary of Size words.
func Vocabulary() *Words {
	const consonants, vowels = "bdfgklmnprtvz", "aiou"
	r := rand.New(rand.NewPCG(vocabSeed, vocabSeed))
	seen := make(map[string]bool, Size)
	w := &Words{list: make([]string, 0, Size), cum: make([]float64, 0, Size)}
	var b strings.Builder
	for len(w.list) < Size {
		b.Reset()
		for range 2 + r.IntN(2) {
			b.WriteByte(consonants[r.IntN(len(consonants))])
			b.WriteByte(vowels[r.IntN(len(vowels))])
		}
		word := b.String()
		if seen[word] || english.IsStopWord(word) || english.Stem(word, true) != word {
			continue
		}
		seen[word] = true
		w.list = append(w.list, word)
	}
	total := 0.0
	for k := range w.list {
		total += 1 / float64(k+1)
		w.cum = append(w.cum, total)
	}
	return w
}

// All returns the words, the most frequent first.
func (w *Words) All() []string { return slices.Clone(w.list) }

// Word returns the word of rank k, counting from 0.
func (w *Words) Word(k int) string { return w.list[k] }

// Draw returns a word drawn from the Zipf distribution: the word of rank
// k (from 0) with probability proportional to 1/(k+1).
func (w *Words) Draw(r *rand.Rand) string {
	u := r.Float64() * w.cum[len(w.cum)-1]
	k, _ := slices.BinarySearch(w.cum, u)
	return w.list[min(k, len(w.list)-1)]
}

// Text returns exactly n chars of drawn words separated by single spaces,
// with no space at either end.
func (w *Words) Text(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w.Draw(r))
	}
	s := []byte(b.String()[:n])
	if s[n-1] == ' ' {
		s[n-1] = 'x'
	}
	return string(s)
}

// Query returns a search string of two drawn words: some queries carry a
// common word, as real ones do.
func (w *Words) Query(r *rand.Rand) string { return w.Draw(r) + " " + w.Draw(r) }
