package search

import "github.com/kljensen/snowball/english"

// Stem returns the stem of a word, the key its word forms share: the
// Snowball English (Porter2) stem of a word of letters ("potteries" and
// "pottery", "painted" and "painting"), and any other word itself.
func Stem(w string) string {
	if !IsLetters(w) {
		return w
	}
	return english.Stem(w, true)
}

// IsStopWord reports whether a term is one of Snowball's English stop words.
func IsStopWord(t string) bool { return english.IsStopWord(t) }
