package secrets

import (
	"encoding/base64"
	"math"
	"regexp"
	"strings"
	"unicode/utf8"
)

// The long-random-string rule (docs/design/trust.md#long-random-strings).
const (
	entropyMinLen = 32  // chars of a candidate
	entropyMinBit = 4.0 // Shannon entropy, bits per char
	// entropyMinMix is the least share of neighbouring chars of different
	// classes (lower, upper, digit, other): random text switches class at
	// about every other char, an identifier (tokenRefreshHandlerV2) rarely.
	entropyMinMix = 0.3
)

// highEntropy adds the long random strings of s that no rule found:
// runs of at least entropyMinLen chars of the base64 and URL-safe alphabets
// that mix upper case, lower case and digits, switch between them often and
// carry much entropy — and are none of the look-alikes: hex (UUIDs, git
// SHAs, digests), base64 of ordinary text, checksums written as
// `sha512-…` or `h1:…`, IPFS ids, and path segments of URLs.
//
// A run that is base64 of text is decoded and scanned in turn (when
// intoBase64): a secret inside it (a JWT, a password assignment) is
// reported with its kind over the whole run.
func highEntropy(s, lower string, found []Secret, intoBase64 bool) []Secret {
	public := publicBlocks(s, lower)
	for i := 0; i < len(s); {
		if !isTokenByte(s[i]) {
			i++
			continue
		}
		j := tokenEnd(s, i)
		if j-i >= entropyMinLen && !inSpans(public, i) {
			if randomToken(s, i, j) {
				found = addSecret(found, kindHighEntropy, i, j)
			} else if intoBase64 {
				if k, ok := secretInBase64(s[i:j]); ok {
					found = addSecret(found, k, i, j)
				}
			}
		}
		i = j
	}
	return found
}

// tokenEnd is the end of the candidate that starts at byte i of s: the run
// of token bytes, cut before an '=' that is no padding (one followed by
// more of the run). `content_type=KEY_AUTH_403` is a key and its value,
// judged each on its own; base64 keeps its trailing `==`.
func tokenEnd(s string, i int) int {
	j := i
	for j < len(s) && isTokenByte(s[j]) {
		if s[j] == '=' && j+1 < len(s) && s[j+1] != '=' && isTokenByte(s[j+1]) && j > i {
			return j
		}
		j++
	}
	return j
}

func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '_' || c == '-' || c == '='
}

// randomToken judges the candidate s[i:j].
func randomToken(s string, i, j int) bool {
	t := strings.TrimRight(s[i:j], "=")
	if len(t) < entropyMinLen {
		return false
	}
	var lower, upper, digit int
	hex := true
	for k := 0; k < len(t); k++ {
		c := t[k]
		switch {
		case c >= 'a' && c <= 'z':
			lower++
			hex = hex && c <= 'f'
		case c >= 'A' && c <= 'Z':
			upper++
			hex = hex && c <= 'F'
		case c >= '0' && c <= '9':
			digit++
		case c != '-':
			hex = false
		}
	}
	if hex || lower == 0 || upper == 0 || digit == 0 {
		return false
	}
	if classMix(t) < entropyMinMix || wordy(t) || identifierLike(t) || entropy(t) < entropyMinBit {
		return false
	}
	for _, p := range []string{"sha1-", "sha256-", "sha384-", "sha512-", "md5-"} {
		if strings.HasPrefix(t, p) {
			return false // a checksum, as package locks write them
		}
	}
	before := s[:i]
	for _, p := range []string{"h1:", "sha256:", "sha512:",
		"ssh-rsa ", "ssh-ed25519 ", "ssh-dss ", "ecdsa-sha2-nistp256 ", "ecdsa-sha2-nistp384 ", "ecdsa-sha2-nistp521 "} {
		if strings.HasSuffix(before, p) {
			return false // a checksum (go.sum) or a public key
		}
	}
	if strings.HasPrefix(t, "Qm") && len(t) == 46 {
		return false // an IPFS content id (CIDv0)
	}
	if inURLPath(s, i) {
		return false
	}
	return !base64Text(s[i:j])
}

// publicBlocks returns the byte spans of the PEM blocks of s that hold
// public material (a certificate, a public key): their base64 lines look
// random and are no secret.
func publicBlocks(s, lower string) [][2]int {
	if !strings.Contains(lower, "-----begin") {
		return nil
	}
	var spans [][2]int
	for _, m := range pemBlock.FindAllStringSubmatchIndex(s, -1) {
		if !strings.Contains(s[m[2]:m[3]], "PRIVATE") {
			spans = append(spans, [2]int{m[0], m[1]})
		}
	}
	return spans
}

var pemBlock = regexp.MustCompile(`-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?(?:-----END [A-Z0-9 ]+-----|$)`)

func inSpans(spans [][2]int, i int) bool {
	for _, sp := range spans {
		if i >= sp[0] && i < sp[1] {
			return true
		}
	}
	return false
}

// wordy reports whether most of t lies in runs of three or more lower-case
// letters: words of an identifier (handleTokenRefreshV2), not random text,
// where such runs are rare.
func wordy(t string) bool {
	inWords, run := 0, 0
	for k := 0; k <= len(t); k++ {
		if k < len(t) && t[k] >= 'a' && t[k] <= 'z' {
			run++
			continue
		}
		if run >= 3 {
			inWords += run
		}
		run = 0
	}
	return inWords*2 >= len(t)
}

// identifierLike reports whether t is words and numbers joined by _ - . /
// (X_Forwarded_Proto_V2, KEY_AUTH_403_CONTENT_TYPE), each part of one case:
// an identifier or a path. A random string cut by its separators has parts
// that mix cases.
func identifierLike(t string) bool {
	parts := strings.FieldsFunc(t, func(r rune) bool { return r == '_' || r == '-' || r == '.' || r == '/' || r == '+' })
	if len(parts) < 3 {
		return false
	}
	for _, p := range parts {
		if !oneCase(p) {
			return false
		}
	}
	return true
}

// oneCase reports whether p is UPPER (and digits), lower (and digits), or
// Capitalised.
func oneCase(p string) bool {
	rest := p
	if len(p) > 1 && p[0] >= 'A' && p[0] <= 'Z' && p[1] >= 'a' && p[1] <= 'z' {
		rest = p[1:]
	}
	var lower, upper bool
	for k := 0; k < len(rest); k++ {
		c := rest[k]
		lower = lower || c >= 'a' && c <= 'z'
		upper = upper || c >= 'A' && c <= 'Z'
	}
	return !(lower && upper)
}

// classMix is the share of neighbouring chars of t that are of different
// classes.
func classMix(t string) float64 {
	class := func(c byte) int {
		switch {
		case c >= 'a' && c <= 'z':
			return 0
		case c >= 'A' && c <= 'Z':
			return 1
		case c >= '0' && c <= '9':
			return 2
		}
		return 3
	}
	switches := 0
	for k := 1; k < len(t); k++ {
		if class(t[k]) != class(t[k-1]) {
			switches++
		}
	}
	return float64(switches) / float64(len(t)-1)
}

// entropy is the Shannon entropy of t's bytes, in bits per byte.
func entropy(t string) float64 {
	var counts [256]int
	for k := 0; k < len(t); k++ {
		counts[t[k]]++
	}
	h, n := 0.0, float64(len(t))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// inURLPath reports whether byte i of s lies in the path of a URL (after
// "://" in the same run of non-space text, and not right after '=' or '#'
// that open a value): a content hash in a link, not a credential. Values in
// a URL's query are judged like any text.
func inURLPath(s string, i int) bool {
	start := strings.LastIndexAny(s[:i], " \t\n\"'<>(")
	word := s[start+1 : i]
	k := strings.Index(word, "://")
	if k < 0 {
		return false
	}
	if strings.ContainsAny(word[k:], "?#") || strings.HasSuffix(word, "=") {
		return false
	}
	return true
}

// base64Text reports whether t decodes (as standard or URL-safe base64) to
// ordinary text: a look-alike of a key, not one.
func base64Text(t string) bool {
	raw := strings.TrimRight(t, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(raw)
		if err != nil || len(b) == 0 {
			continue
		}
		printable := 0
		for _, c := range b {
			if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' || c == '\r' {
				printable++
			}
		}
		if printable*100 >= len(b)*95 {
			return true
		}
	}
	return false
}

// secretInBase64 decodes t, when it is base64 of text, and scans the text:
// the kind of the first secret found there.
func secretInBase64(t string) (Kind, bool) {
	raw := strings.TrimRight(t, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(raw)
		if err != nil || !utf8.Valid(b) {
			continue
		}
		if inner := scan(string(b), false); len(inner) > 0 {
			return inner[0].Kind, true
		}
	}
	return Kind{}, false
}
