// Command gitleaksdump turns the rule samples of gitleaks into templates
// of kg's secret corpus (domain/secrets/secretcorpus/gitleaks.txt). It reads the
// JSON lines a patched gitleaks writes while generating its config (see
// domain/secrets/secretcorpus/README.md): per rule, its id, its true- and
// false-positive samples, and each value its secrets.NewSecret generated
// with the regex it came from.
//
// Each generated value becomes a directive that draws an equivalent fake
// value from the corpus's fixed-seed source ({{r:a0:20}} for [a-z0-9]{20}),
// so the file holds none of gitleaks's random draws; every literal run that
// could read as a token to a scanner of the repository's host is cut by an
// empty directive ({{c:}}), which the expansion removes.
//
//	go run ./domain/secrets/secretcorpus/internal/gitleaksdump < dump.jsonl > domain/secrets/secretcorpus/gitleaks.txt
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"regexp/syntax"
	"slices"
	"strings"
)

type gen struct {
	Regex string `json:"regex"`
	Value string `json:"value"`
}

type ruleDump struct {
	Rule string   `json:"rule"`
	TPs  []string `json:"tps"`
	FPs  []string `json:"fps"`
	Gens []gen    `json:"gens"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	fmt.Fprint(out, header)
	for in.Scan() {
		var r ruleDump
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			fail(err)
		}
		gens := directives(r.Gens)
		seen := map[string]bool{}
		for _, group := range []struct {
			label   string
			samples []string
		}{{r.Rule, r.TPs}, {"-" + r.Rule, r.FPs}} {
			samples := slices.Clone(group.samples)
			slices.Sort(samples) // gitleaks builds some from a map: fix the order
			for _, s := range samples {
				line := group.label + "\t" + template(s, gens)
				if !seen[line] {
					seen[line] = true
					fmt.Fprintln(out, line)
				}
			}
		}
	}
	if err := in.Err(); err != nil {
		fail(err)
	}
}

const header = `# Samples of gitleaks's rules (https://github.com/gitleaks/gitleaks, MIT), made by
# domain/secrets/secretcorpus/internal/gitleaksdump: see README.md. One sample a line: the
# gitleaks rule id (a true positive) or - and the rule id (a false positive of that
# rule), a TAB, a template (directives: corpus.go). Do not edit by hand.
`

type replacement struct{ value, directive string }

// directives pairs each generated value long enough to find again with
// the directive that draws one like it; longest first.
func directives(gens []gen) []replacement {
	var out []replacement
	for _, g := range gens {
		if len(g.Value) < 6 {
			continue
		}
		if d, ok := fromRegex(g.Regex); ok {
			out = append(out, replacement{g.Value, d})
		}
	}
	slices.SortFunc(out, func(a, b replacement) int { return len(b.value) - len(a.value) })
	return out
}

// template is s with the generated values replaced by their directives and
// the rest escaped.
func template(s string, gens []replacement) string {
	var b strings.Builder
	for len(s) > 0 {
		at, which := len(s), -1
		for i, g := range gens {
			if k := strings.Index(s, g.value); k >= 0 && k < at {
				at, which = k, i
			}
		}
		b.WriteString(literal(s[:at]))
		if which < 0 {
			break
		}
		b.WriteString(gens[which].directive)
		s = s[at+len(gens[which].value):]
	}
	return b.String()
}

// literal escapes text for a template: braces, newlines and tabs become
// directives, and each run of 16 or more token chars is cut after its
// second char.
func literal(s string) string {
	var b strings.Builder
	run := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isToken(c) {
			if run == 2 && tokenRunLen(s, i-2) >= 16 {
				b.WriteString("{{c:}}")
			}
			run++
		} else {
			run = 0
		}
		switch c {
		case '\n':
			b.WriteString("{{nl}}")
		case '\t':
			b.WriteString("{{tab}}")
		case '{':
			b.WriteString("{{lb}}")
		case '}':
			b.WriteString("{{rb}}")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func tokenRunLen(s string, i int) int {
	j := i
	for j < len(s) && isToken(s[j]) {
		j++
	}
	return j - i
}

func isToken(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("+/=_-.~", c) >= 0
}

// fromRegex writes a template for a value of the regex re: its literals as
// text, each class repeated n times as {{r:CLASS:n}} (the least count of a
// range, with {n,} drawing n), an alternation's first branch.
func fromRegex(re string) (string, bool) {
	r, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	ok := write(&b, r)
	return b.String(), ok
}

func write(b *strings.Builder, r *syntax.Regexp) bool {
	switch r.Op {
	case syntax.OpLiteral:
		b.WriteString(literal(string(r.Rune)))
	case syntax.OpConcat:
		for _, s := range r.Sub {
			if !write(b, s) {
				return false
			}
		}
	case syntax.OpCapture:
		return write(b, r.Sub[0])
	case syntax.OpAlternate:
		return write(b, r.Sub[0])
	case syntax.OpCharClass, syntax.OpAnyCharNotNL:
		return repeat(b, r, 1)
	case syntax.OpRepeat:
		if r.Sub[0].Op == syntax.OpCharClass {
			return repeat(b, r.Sub[0], r.Min)
		}
		for range r.Min {
			if !write(b, r.Sub[0]) {
				return false
			}
		}
	case syntax.OpQuest, syntax.OpStar, syntax.OpEmptyMatch, syntax.OpWordBoundary, syntax.OpBeginText, syntax.OpEndText:
	case syntax.OpPlus:
		return write(b, r.Sub[0])
	default:
		return false
	}
	return true
}

func repeat(b *strings.Builder, class *syntax.Regexp, n int) bool {
	if n == 0 {
		return true
	}
	c, ok := classOf(class)
	if !ok {
		return false
	}
	fmt.Fprintf(b, "{{r:%s:%d}}", c, n)
	return true
}

// classOf names a char class in the corpus's alphabet notation.
func classOf(r *syntax.Regexp) (string, bool) {
	set := map[rune]bool{}
	if r.Op == syntax.OpAnyCharNotNL {
		return "Aa0", true
	}
	for i := 0; i+1 < len(r.Rune); i += 2 {
		for c := r.Rune[i]; c <= r.Rune[i+1] && c < 128; c++ {
			set[c] = true
		}
	}
	has := func(lo, hi rune) bool {
		for c := lo; c <= hi; c++ {
			if !set[c] {
				return false
			}
		}
		return true
	}
	drop := func(lo, hi rune) {
		for c := lo; c <= hi; c++ {
			delete(set, c)
		}
	}
	var b strings.Builder
	switch {
	case len(set) == 32 && has('A', 'Z') && has('2', '7'):
		return "b", true
	case len(set) == 16 && has('0', '9') && has('a', 'f'):
		return "h", true
	}
	for _, g := range []struct {
		name   string
		lo, hi rune
	}{{"A", 'A', 'Z'}, {"a", 'a', 'z'}, {"0", '0', '9'}} {
		if has(g.lo, g.hi) {
			b.WriteString(g.name)
			drop(g.lo, g.hi)
		}
	}
	rest := make([]rune, 0, len(set))
	for c := range set {
		rest = append(rest, c)
	}
	slices.Sort(rest)
	for _, c := range rest {
		if strings.ContainsRune("Aa0hb5\\:}{", c) || c < 0x21 {
			b.WriteRune('\\')
		}
		b.WriteRune(c)
	}
	return b.String(), b.Len() > 0
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gitleaksdump:", err)
	os.Exit(1)
}
