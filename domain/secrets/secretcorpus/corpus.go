// Package secretcorpus is the shared corpus of the secret scanner's tests
// (docs/design/trust.md#the-corpus): texts that hold a credential, each with
// the kind the scanner must name, and look-alikes that must pass. Every
// test of a write path (the domain, MCP, REST, import, kg import) reads it
// from here.
//
// No sample in the committed file is a credential, live or not: the file
// holds templates, and a credential is assembled from them when a test
// runs — its recognisable prefix split in pieces ({{c:gh,p_}}) and its body
// drawn from a fixed-seed random source ({{r:Aa0:36}}) — so that no scanner
// of the repository's host flags the file, and every body is obviously
// made up. The same seed gives the same samples on every run.
package secretcorpus

import (
	_ "embed"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

//go:embed corpus.txt
var corpus string

// The public scanners' samples and the developer text (README.md).
var (
	//go:embed gitleaks.txt
	gitleaks string
	//go:embed detect-secrets.txt
	detectSecrets string
	//go:embed trufflehog-formats.txt
	trufflehogFormats string
	//go:embed devtext.txt
	devtext string
)

// Sample is one text of the corpus.
type Sample struct {
	Source string // the file it comes from, e.g. corpus.txt
	Line   int    // line of that file
	// Kind is, in corpus.txt, the kind id the scanner must name first (e.g.
	// aws-access-key); in the scanners' files, the scanner's rule the sample
	// is a true positive of. "" for a look-alike.
	Kind string
	// Rule is, for a look-alike of a scanner's file, the rule it is a false
	// positive of; for developer text, its category.
	Rule string
	Text string
	// Secret is the credential itself, for a positive of corpus.txt: what
	// must appear in no error, no stored text in redact mode and no log.
	Secret string
}

// Positive reports whether the sample holds a credential.
func (s Sample) Positive() bool { return s.Kind != "" }

// Samples returns every sample of corpus.txt, in file order.
func Samples() []Sample { return parse("corpus.txt", corpus) }

// Scanners returns the samples taken from public secret scanners (gitleaks's
// rule samples, detect-secrets's test strings, and formats of trufflehog's
// detectors written anew), in file order: true positives with the rule's
// id as Kind, false positives with it as Rule.
func Scanners() []Sample {
	var out []Sample
	for _, f := range []struct{ name, text string }{
		{"gitleaks.txt", gitleaks}, {"detect-secrets.txt", detectSecrets}, {"trufflehog-formats.txt", trufflehogFormats},
	} {
		out = append(out, parse(f.name, f.text)...)
	}
	return out
}

// DeveloperText returns the texts of devtext.txt, each with its category as
// Rule: commit messages, code comments, identifiers, ids, hashes, paths,
// URLs. None holds a credential.
func DeveloperText() []Sample { return parse("devtext.txt", devtext) }

func parse(name, text string) []Sample {
	var out []Sample
	for i, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		label, tmpl, ok := strings.Cut(line, "\t")
		if !ok {
			panic(fmt.Sprintf("%s:%d: want <label> TAB <template>", name, i+1))
		}
		rng := rand.New(rand.NewPCG(uint64(i+1), 0x6b67)) //nolint:gosec // test data, deterministic on purpose
		text, secret := expand(tmpl, rng, i+1)
		s := Sample{Source: name, Line: i + 1, Text: text, Secret: secret}
		switch {
		case label == "-":
		case strings.HasPrefix(label, "-"):
			s.Rule = label[1:]
		case name == "devtext.txt":
			s.Rule = label
		default:
			s.Kind = label
		}
		out = append(out, s)
	}
	return out
}

// Positives and Negatives split Samples.
func Positives() []Sample { return filter(true) }

// Negatives returns the look-alikes.
func Negatives() []Sample { return filter(false) }

func filter(pos bool) []Sample {
	var out []Sample
	for _, s := range Samples() {
		if s.Positive() == pos {
			out = append(out, s)
		}
	}
	return out
}

// expand fills a template. Directives:
//
//	{{c:a,b,…}}    the pieces joined (a prefix split so the file does not hold it)
//	{{r:CLASS:N}}  N chars drawn from CLASS: A upper, a lower, 0 digits, h hex,
//	               b base32 (A–Z, 2–7), 5 base58, and any of + / _ - . taken literally
//	{{b64:TEXT}}   TEXT in standard base64; {{b64u:TEXT}} URL-safe without padding
//	{{b64r:N}}     N random bytes in standard base64
//	{{uuid}} {{sha1}} {{sha256}}  random ones
//	{{jwt}}        a token of three base64url parts
//	{{pem:LABEL}}  a PEM block: BEGIN LABEL, random base64 lines, END LABEL
//	{{nl}} {{tab}} {{lb}} {{rb}}  a newline, a tab, { and }
//
// In a CLASS, \ takes the next char literally (\a is the letter a).
//
// The secret of the sample is the text between {{<}} and {{>}} when the
// template marks it, else the whole expansion of its directives that
// draw randomness.
func expand(t string, rng *rand.Rand, line int) (text, secret string) {
	var b strings.Builder
	mark := -1
	for {
		i := strings.Index(t, "{{")
		if i < 0 {
			b.WriteString(t)
			break
		}
		b.WriteString(t[:i])
		j := strings.Index(t[i:], "}}")
		if j < 0 {
			panic(fmt.Sprintf("corpus.txt:%d: unclosed {{", line))
		}
		d := t[i+2 : i+j]
		t = t[i+j+2:]
		switch {
		case d == "<":
			mark = b.Len()
		case d == ">":
			secret = b.String()[mark:]
		default:
			b.WriteString(directive(d, rng, line))
		}
	}
	return b.String(), secret
}

func directive(d string, rng *rand.Rand, line int) string {
	name, arg, _ := strings.Cut(d, ":")
	switch name {
	case "c":
		return strings.ReplaceAll(arg, ",", "")
	case "nl":
		return "\n"
	case "tab":
		return "\t"
	case "lb":
		return "{"
	case "rb":
		return "}"
	case "r":
		k := strings.LastIndexByte(arg, ':')
		ok := k > 0
		class, n := arg[:max(k, 0)], arg[k+1:]
		count, err := strconv.Atoi(n)
		if !ok || err != nil {
			panic(fmt.Sprintf("corpus.txt:%d: {{r:CLASS:N}}", line))
		}
		return draw(rng, alphabet(class), count)
	case "b64":
		return base64.StdEncoding.EncodeToString([]byte(arg))
	case "b64u":
		return base64.RawURLEncoding.EncodeToString([]byte(arg))
	case "b64r":
		n, _ := strconv.Atoi(arg)
		return base64.StdEncoding.EncodeToString(randomBytes(rng, n))
	case "uuid":
		h := draw(rng, "0123456789abcdef", 32)
		return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:]
	case "sha1":
		return draw(rng, "0123456789abcdef", 40)
	case "sha256":
		return draw(rng, "0123456789abcdef", 64)
	case "jwt":
		head := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
		body := base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"` + draw(rng, "0123456789", 10) + `","name":"Fake Person","iat":1716400000}`))
		return head + "." + body + "." + base64.RawURLEncoding.EncodeToString(randomBytes(rng, 32))
	case "pem":
		var b strings.Builder
		b.WriteString("-----BEGIN " + arg + "-----\n")
		body := base64.StdEncoding.EncodeToString(randomBytes(rng, 144))
		for len(body) > 64 {
			b.WriteString(body[:64] + "\n")
			body = body[64:]
		}
		b.WriteString(body + "\n-----END " + arg + "-----")
		return b.String()
	}
	panic(fmt.Sprintf("corpus.txt:%d: unknown directive {{%s}}", line, d))
}

func alphabet(class string) string {
	var b strings.Builder
	escaped := false
	for _, c := range class {
		if escaped {
			b.WriteRune(c)
			escaped = false
			continue
		}
		switch c {
		case '\\':
			escaped = true
		case 'A':
			b.WriteString("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
		case 'a':
			b.WriteString("abcdefghijklmnopqrstuvwxyz")
		case '0':
			b.WriteString("0123456789")
		case 'h':
			b.WriteString("0123456789abcdef")
		case 'b':
			b.WriteString("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
		case '5':
			b.WriteString("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

func draw(rng *rand.Rand, from string, n int) string {
	out := make([]byte, n)
	for i := range out {
		out[i] = from[rng.IntN(len(from))]
	}
	return string(out)
}

func randomBytes(rng *rand.Rand, n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = byte(rng.IntN(256))
	}
	return out
}
