package workload

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kljensen/snowball/english"
)

func TestVocabulary(t *testing.T) {
	w := Vocabulary()
	if len(w.list) != Size {
		t.Fatalf("%d words, want %d", len(w.list), Size)
	}
	seen := map[string]bool{}
	for _, word := range w.list {
		if seen[word] || english.Stem(word, true) != word || english.IsStopWord(word) || strings.Trim(word, "abdfgiklmnoprtuvz") != "" {
			t.Fatalf("word %q: repeated, not its own stem, a stop word or not made of the letters", word)
		}
		seen[word] = true
	}
	if again := Vocabulary(); again.list[Size-1] != w.list[Size-1] {
		t.Error("two vocabularies differ")
	}
}

// TestZipf: the word of rank k is drawn about 1/(k+1) / H(Size) of the time.
func TestZipf(t *testing.T) {
	w := Vocabulary()
	r := rand.New(rand.NewPCG(1, 2))
	const draws = 200_000
	count := map[string]int{}
	for range draws {
		count[w.Draw(r)]++
	}
	h := w.cum[len(w.cum)-1]
	for _, k := range []int{0, 1, 9, 99} {
		want := draws / (float64(k+1) * h)
		if got := float64(count[w.Word(k)]); got < 0.9*want || got > 1.1*want {
			t.Errorf("rank %d drawn %v times, want about %.0f", k, got, want)
		}
	}
	if len(count) < Size/2 {
		t.Errorf("only %d distinct words in %d draws", len(count), draws)
	}
	if s := w.Text(r, 60); len(s) != 60 || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		t.Errorf("Text(60) = %q", s)
	}
}
