package recall

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kg-memory/kg/domain"
	"github.com/kljensen/snowball/english"
)

// Recall on a prompt (docs/design/hooks.md#recall): the human text of the
// prompt is searched with kg_search's ranking, and the hits strong enough to
// be worth an agent's attention are kept. The threshold is measured, not
// guessed: docs/design/hooks.md#the-relevance-threshold says how.

// Recall limits.
const (
	// MinRecallLetters is the fewest letters the human text of a prompt
	// must hold for recall to search it.
	MinRecallLetters = 8
	// MaxRecallTerms is the most distinct words of a prompt searched: a
	// pasted log must not cost what a thousand-word query costs.
	MaxRecallTerms = 32
	// RecallSearchLimit is how many hits recall asks the search for,
	// before the threshold and the seen set thin them.
	RecallSearchLimit = 20
	// RecallThreshold is the least relevance (Relevance) a hit needs to be
	// recalled.
	RecallThreshold = 1.25
)

// PromptText returns the human text of a prompt: without the blocks Claude
// Code or the harness add (<…-notification>…</…-notification>,
// <system-reminder>…</system-reminder>; an unclosed one runs to the end),
// without image placeholders ("[Image #1]", "[Image: …]"), with every path
// reduced to its last element ("src/auth/refresh.py" → "refresh.py"). It
// reads each byte a bounded number of times, so a prompt of any size costs
// linear time.
func PromptText(prompt string) string {
	s := stripTagged(prompt)
	s = stripImages(s)
	return reducePaths(s)
}

// stripTagged removes <name>…</name> blocks whose name ends in
// "-notification" or is "system-reminder".
func stripTagged(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		name, ok := tagName(s[i+1:])
		if !ok || !(strings.HasSuffix(name, "-notification") || name == "system-reminder") {
			b.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		b.WriteString(s[:i])
		closing := "</" + name + ">"
		j := strings.Index(s[i:], closing)
		if j < 0 {
			return b.String() // unclosed: nothing after it is the person's
		}
		b.WriteByte(' ')
		s = s[i+j+len(closing):]
	}
}

// tagName reads the name of an opening tag at the start of s ("name>" or
// "name attr…>"), at most 64 bytes of letters, digits and '-'.
func tagName(s string) (string, bool) {
	for i := 0; i < len(s) && i <= 64; i++ {
		c := s[i]
		switch {
		case c == '>' || c == ' ':
			if i == 0 {
				return "", false
			}
			if c == ' ' && strings.IndexByte(s[i:min(len(s), i+1024)], '>') < 0 {
				return "", false
			}
			return strings.ToLower(s[:i]), true
		case c == '-' || c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		default:
			return "", false
		}
	}
	return "", false
}

// stripImages removes "[Image…]" placeholders of at most 1,024 bytes.
func stripImages(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '[')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		rest := s[i+1:]
		if len(rest) >= 5 && strings.EqualFold(rest[:5], "image") {
			if j := strings.IndexByte(rest[:min(len(rest), 1024)], ']'); j >= 0 {
				b.WriteString(s[:i])
				b.WriteByte(' ')
				s = rest[j+1:]
				continue
			}
		}
		b.WriteString(s[:i+1])
		s = rest
	}
}

// reducePaths replaces every word holding a '/' or '\' by its last
// non-empty element.
func reducePaths(s string) string {
	if !strings.ContainsAny(s, `/\`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	start := -1
	flush := func(end int) {
		w := s[start:end]
		if strings.ContainsAny(w, `/\`) {
			parts := strings.FieldsFunc(w, func(r rune) bool { return r == '/' || r == '\\' })
			if len(parts) > 0 {
				w = parts[len(parts)-1]
			} else {
				w = ""
			}
		}
		b.WriteString(w)
		start = -1
	}
	for i, r := range s {
		if unicode.IsSpace(r) {
			if start >= 0 {
				flush(i)
			}
			b.WriteRune(r)
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		flush(len(s))
	}
	return b.String()
}

// RecallQuery returns the query recall searches for a prompt's human text:
// its distinct words, stop words of English left out, at most MaxRecallTerms
// of them in the order they first appear, and at most MaxQueryLen characters.
// ok is false when the text holds fewer than MinRecallLetters letters, or no
// word to search: then there is nothing to recall.
func RecallQuery(human string) (query string, ok bool) {
	letters := 0
	for _, r := range human {
		if unicode.IsLetter(r) {
			letters++
			if letters >= MinRecallLetters {
				break
			}
		}
	}
	if letters < MinRecallLetters {
		return "", false
	}
	seen := map[string]bool{}
	var b strings.Builder
	n := 0
	for _, f := range strings.Fields(human) {
		w := strings.ToLower(strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
		if w == "" || seen[w] || english.IsStopWord(w) || !strings.ContainsFunc(w, unicode.IsLetter) && len(w) < 3 {
			continue
		}
		if b.Len() > 0 && utf8.RuneCountInString(b.String())+1+utf8.RuneCountInString(w) > domain.MaxQueryLen {
			break
		}
		seen[w] = true
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
		if n++; n == MaxRecallTerms {
			break
		}
	}
	if b.Len() == 0 || domain.ValidateQuery("prompt", b.String()) != nil {
		return "", false
	}
	return b.String(), true
}

// Relevance is a hit's score on the scale recall's threshold is set on:
// its score divided by the score of a node that alone, among nodes graph
// nodes searched, holds one word of the query once in its gist — the
// strongest evidence one word can give, 2 × ln(1 + (n − 0.5)/1.5) under
// kg_search's BM25 (docs/design/mcp.md#kg_search). A relevance of 1 is one
// such word, or several commoner ones; it does not grow with the graph's
// size as a raw score does.
func Relevance(score float64, nodes int) float64 {
	if nodes < 1 {
		nodes = 1
	}
	unit := 2 * math.Log(1+(float64(nodes)-0.5)/1.5)
	if unit <= 0 {
		return 0
	}
	return score / unit
}
