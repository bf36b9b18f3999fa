// Package secrets is the secret scanner (docs/design/trust.md#secrets): it
// finds credentials in a text — the well-known token formats, private key
// blocks, URLs that carry a password, password and secret assignments, and
// long random strings — and redacts them. It knows nothing of the graph and
// imports the standard library only: domain/secretscreen screens every write
// of a node or an edge with it, and its Mode decides what a match
// does (refuse the write, store it with the secret replaced, or nothing).
// Scanning is on writes only: stored data is never scanned at load, so a
// graph that holds something secret-looking still loads and serves
// (docs/decisions/0081-secrets-a-leaf-package.md).
package secrets

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Kind is one kind of credential the scanner knows.
type Kind struct {
	ID    string // the name in [REDACTED:<id>], e.g. aws-access-key
	Label string // how a message names it, e.g. "an AWS access key"
}

// Secret is one credential found in a text: its kind and where it is, in
// code points from 0, end exclusive (Start and End), and in bytes.
type Secret struct {
	Kind               Kind
	Start, End         int // code points; End exclusive
	byteStart, byteEnd int
}

// Finding is a secret found in a field of a write or of a stored item.
type Finding struct {
	Field string // e.g. "notes[1]", "nodes[3].gist", "to"
	Secret
}

// Message says what was found without the secret itself:
// `notes[1]: looks like an AWS access key (chars 12–31)`. Chars count from 1,
// both ends included.
func (f Finding) Message() string {
	return fmt.Sprintf("%s: looks like %s (chars %d–%d)", f.Field, f.Kind.Label, f.Start+1, f.End)
}

// RedactedAs is the text that replaces the secret in redact mode.
func (f Finding) RedactedAs() string { return redaction(f.Kind) }

func redaction(k Kind) string { return "[REDACTED:" + k.ID + "]" }

// Scan returns the secrets in s, in order of position, without
// overlaps. A rule runs only on a text that holds one of its keywords, so a
// text that holds none costs a few substring searches and one pass of the
// long-random-string rule.
func Scan(s string) []Secret { return scan(s, true) }

// scan is Scan; intoBase64 says whether base64 of text is
// decoded and scanned too (once: not inside what was decoded).
func scan(s string, intoBase64 bool) []Secret {
	if len(s) < 8 {
		return nil
	}
	lower := strings.ToLower(s)
	present := keywords.in(lower)
	var found []Secret
	for i := range secretRules {
		r := &secretRules[i]
		if !present.anyOf(keywords.rules[i]) {
			continue
		}
		for _, m := range r.re.FindAllStringSubmatchIndex(s, -1) {
			a, b := m[2*r.group], m[2*r.group+1]
			if a < 0 || dummy(s[a:b]) || (r.accept != nil && !r.accept(s[a:b])) {
				continue
			}
			found = addSecret(found, r.kind, a, b)
		}
	}
	if present.anyOf(keywords.assignment) {
		found = assignments(s, lower, found)
	}
	if strings.Contains(lower, "kind: secret") && strings.Contains(lower, "data:") {
		for _, m := range k8sSecretData.FindAllStringSubmatchIndex(s, -1) {
			found = addSecret(found, kindPassword, m[2], m[3])
		}
	}
	found = highEntropy(s, lower, found, intoBase64)
	if len(found) == 0 {
		return nil
	}
	slices.SortFunc(found, func(x, y Secret) int { return x.byteStart - y.byteStart })
	// Byte offsets to code points, in one pass.
	cp, at := 0, 0
	for i := range found {
		cp += utf8.RuneCountInString(s[at:found[i].byteStart])
		found[i].Start = cp
		cp += utf8.RuneCountInString(s[found[i].byteStart:found[i].byteEnd])
		found[i].End = cp
		at = found[i].byteEnd
	}
	return found
}

// keywordSet is a set of the keywords of the rules, bit i for keyword i.
type keywordSet [2]uint64

func (k *keywordSet) add(id int)              { k[id>>6] |= 1 << (id & 63) }
func (k keywordSet) anyOf(of keywordSet) bool { return k[0]&of[0] != 0 || k[1]&of[1] != 0 }

// keywordTable finds, in one pass over a text, which keywords of the rules
// it holds: looking each keyword up in turn cost most of a scan.
type keywordTable struct {
	byFirst    [256][]keywordEntry // the keywords that start with a byte
	rules      []keywordSet        // secretRules[i]'s keywords
	assignment keywordSet          // assignmentKeywords
}

type keywordEntry struct {
	word string
	id   int
}

var keywords = newKeywordTable()

func newKeywordTable() *keywordTable {
	t := &keywordTable{}
	ids := map[string]int{}
	set := func(words []string) keywordSet {
		var k keywordSet
		for _, w := range words {
			id, ok := ids[w]
			if !ok {
				id = len(ids)
				if id >= len(k)*64 {
					panic("secrets: more keywords than a keywordSet holds")
				}
				ids[w] = id
				t.byFirst[w[0]] = append(t.byFirst[w[0]], keywordEntry{w, id})
			}
			k.add(id)
		}
		return k
	}
	for _, r := range secretRules {
		t.rules = append(t.rules, set(r.keywords))
	}
	t.assignment = set(assignmentKeywords)
	return t
}

// in returns the keywords that lower (a text in lower case) holds.
func (t *keywordTable) in(lower string) keywordSet {
	var k keywordSet
	for i := 0; i < len(lower); i++ {
		for _, e := range t.byFirst[lower[i]] {
			if len(e.word) > 1 && (i+1 == len(lower) || lower[i+1] != e.word[1]) {
				continue // the second byte rules most out without a compare
			}
			if strings.HasPrefix(lower[i:], e.word) {
				k.add(e.id)
			}
		}
	}
	return k
}

// addSecret adds the secret at bytes [a, b) unless a secret found before
// overlaps it.
func addSecret(found []Secret, kind Kind, a, b int) []Secret {
	for _, f := range found {
		if a < f.byteEnd && f.byteStart < b {
			return found
		}
	}
	return append(found, Secret{Kind: kind, byteStart: a, byteEnd: b})
}

// Redact returns s with each of secrets (found in s by Scan) replaced
// by [REDACTED:<kind>].
func Redact(s string, secrets []Secret) string {
	if len(secrets) == 0 {
		return s
	}
	var b strings.Builder
	at := 0
	for _, f := range secrets {
		b.WriteString(s[at:f.byteStart])
		b.WriteString(redaction(f.Kind))
		at = f.byteEnd
	}
	b.WriteString(s[at:])
	return b.String()
}
