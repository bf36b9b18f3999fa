package search

import "slices"

// wordPad is the byte a word is padded with at both ends for its
// trigrams: NUL, which no text holds (domain's validateString).
const wordPad = "\x00\x00"

// PadWord returns w padded at both ends with wordPad.
func PadWord(w string) string { return wordPad + w + wordPad }

// appendGrams appends the trigrams of s to buf, repeats included.
func appendGrams(buf []uint32, s string) []uint32 {
	var w uint32
	for i := 0; i < len(s); i++ {
		w = w<<8 | uint32(s[i])
		if i >= 2 {
			buf = append(buf, w&0xFFFFFF)
		}
	}
	return buf
}

// SortedGrams returns the distinct trigrams of s, sorted.
func SortedGrams(s string) []uint32 {
	g := appendGrams(nil, s)
	slices.Sort(g)
	return slices.Compact(g)
}

// AppendPaddedGrams appends to buf the distinct trigrams of word w padded
// at both ends (PadWord), sorted: those of SortedGrams(PadWord(w)), without
// building the padded word.
func AppendPaddedGrams(buf []uint32, w string) []uint32 {
	start := len(buf)
	var x uint32 // the last three bytes, the pad before w included
	for i := 0; i < len(w); i++ {
		x = (x<<8 | uint32(w[i])) & 0xFFFFFF
		buf = append(buf, x)
	}
	for range len(wordPad) {
		x = x << 8 & 0xFFFFFF
		buf = append(buf, x)
	}
	g := buf[start:]
	slices.Sort(g)
	return buf[:start+len(slices.Compact(g))]
}
