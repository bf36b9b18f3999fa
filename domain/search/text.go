package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// How text is cut into the words search matches (docs/design/mcp.md#kg_search).
// One set of rules serves the query and the nodes, so that a word written the
// same way on both sides is the same word:
//
//   - A token is a run of text between white space, lower-cased, with every
//     character that is not a letter, a digit or '/' trimmed from its ends:
//     "pottery?" gives "pottery", "(src/auth/)" gives "src/auth/". The
//     typographic apostrophe is written as "'".
//   - On the node side a token also gives its parts when it has any: it is
//     split at every character that is not a letter, a digit or an
//     apostrophe, and at the case changes of an identifier, so
//     "src/auth/refresh.py" gives "src", "auth", "refresh" and "py", and
//     "tokenRefresh" gives "token" and "refresh". A query term is a token,
//     never split: "token_refresh" looks for that word, and by substring
//     finds it inside longer ones.
//   - A word of letters (and apostrophes) has a stem (Stem): its word
//     forms share it.

// keptAtEnd reports whether r stays at a token's ends: letters, digits and
// '/', so that "auth/" still names a folder.
func keptAtEnd(r rune) bool { return r == '/' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// inWord reports whether r belongs to a part of a token: letters, digits
// and the apostrophe of "don't".
func inWord(r rune) bool { return r == '\'' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// trimToken trims from chunk, a run of text without white space, every
// character at its ends that keptAtEnd refuses.
func trimToken(chunk string) string {
	if n := len(chunk); n > 0 && asciiKept(chunk[0]) && asciiKept(chunk[n-1]) {
		return chunk // both ends kept: the common case
	}
	return strings.TrimFunc(chunk, func(r rune) bool { return !keptAtEnd(r) })
}

// asciiKept reports whether c is an ASCII letter, digit or '/'.
func asciiKept(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '/'
}

// lowerWord lower-cases s and writes the typographic apostrophe as "'".
func lowerWord(s string) string {
	s = strings.ToLower(s)
	if strings.Contains(s, "’") {
		s = strings.ReplaceAll(s, "’", "'")
	}
	return s
}

// eachChunk calls f with every run of s between white space, in order.
// ASCII is read a byte at a time; other runes are decoded.
func eachChunk(s string, f func(chunk string)) {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if asciiSpace[c] {
				if i > start {
					f(s[start:i])
				}
				start = i + 1
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			if i > start {
				f(s[start:i])
			}
			start = i + n
		}
		i += n
	}
	if start < len(s) {
		f(s[start:])
	}
}

// asciiSpace marks the ASCII white space (unicode.IsSpace below 0x80).
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// plainWord reports whether tok is made of ASCII lower-case letters,
// digits and apostrophes only: a word as it stands, with no parts, which
// most words of most text are.
func plainWord(tok string) bool {
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '\'') {
			return false
		}
	}
	return true
}

// Terms returns the terms of a query: its tokens, repeats dropped,
// in the order they first appear.
func Terms(query string) []string {
	var terms []string
	eachChunk(query, func(chunk string) {
		tok := trimToken(chunk)
		if tok == "" {
			return
		}
		tok = lowerWord(tok)
		for _, t := range terms {
			if t == tok {
				return
			}
		}
		terms = append(terms, tok)
	})
	return terms
}

// AppendWords appends to dst the words of text as a node holds them: each
// token, then its parts if it has more than one.
func AppendWords(dst []string, text string) []string {
	eachChunk(text, func(chunk string) {
		tok := trimToken(chunk)
		if tok == "" {
			return
		}
		if plainWord(tok) {
			dst = append(dst, tok)
			return
		}
		lower := lowerWord(tok)
		dst = append(dst, lower)
		start := len(dst)
		dst = appendParts(dst, tok)
		if len(dst)-start == 1 && dst[start] == lower {
			dst = dst[:start] // the token is its one part
		}
	})
	return dst
}

// appendParts appends the parts of a token: its runs of inWord characters,
// each split again at the case changes of an identifier (camelCase,
// HTTPServer), lower-cased.
func appendParts(dst []string, tok string) []string {
	for len(tok) > 0 {
		i := strings.IndexFunc(tok, func(r rune) bool { return !inWord(r) })
		piece := tok
		if i >= 0 {
			piece = tok[:i]
			_, n := utf8.DecodeRuneInString(tok[i:])
			tok = tok[i+n:]
		} else {
			tok = ""
		}
		if piece != "" {
			dst = appendCamel(dst, piece)
		}
	}
	return dst
}

// appendCamel appends the parts of piece split where a lower-case letter
// or a digit is followed by an upper-case one ("tokenRefresh") and before
// the last upper-case letter of a run followed by a lower-case one
// ("HTTPServer" gives "http" and "server"), each lower-cased.
func appendCamel(dst []string, piece string) []string {
	start := 0
	var prev, prev2 rune // the two runes before the current one
	for i, r := range piece {
		switch {
		case i == start:
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			dst = append(dst, lowerWord(piece[start:i]))
			start = i
		case unicode.IsLower(r) && unicode.IsUpper(prev) && unicode.IsUpper(prev2):
			// "HTTPServer": the 'S' starts the next part.
			at := i - utf8.RuneLen(prev)
			if at > start {
				dst = append(dst, lowerWord(piece[start:at]))
				start = at
			}
		}
		prev2, prev = prev, r
	}
	return append(dst, lowerWord(piece[start:]))
}

// IsLetters reports whether w is made of letters and apostrophes only, with
// at least one letter: the words that have a stem other than themselves.
func IsLetters(w string) bool {
	letter := false
	for _, r := range w {
		switch {
		case unicode.IsLetter(r):
			letter = true
		case r != '\'':
			return false
		}
	}
	return letter
}

// EditDistance returns the optimal-string-alignment distance between a
// and b, counted in runes (an insertion, deletion, substitution or swap of
// two neighbours is one edit), or max+1 when it is more than max.
func EditDistance(a, b []rune, max int) int {
	if d := len(a) - len(b); d > max || -d > max {
		return max + 1
	}
	// Three rows of the dynamic programme: i-2, i-1 and i.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			best = min(best, v)
		}
		if best > max {
			return max + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	if prev[len(b)] > max {
		return max + 1
	}
	return prev[len(b)]
}
