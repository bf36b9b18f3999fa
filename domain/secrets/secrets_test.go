package secrets_test

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kg-memory/kg/domain/secrets"
	"github.com/kg-memory/kg/domain/secrets/secretcorpus"
)

func TestSecretCorpusIsLargeEnough(t *testing.T) {
	pos, neg := secretcorpus.Positives(), secretcorpus.Negatives()
	if len(pos) < 40 || len(neg) < 40 {
		t.Fatalf("corpus has %d positives and %d negatives; want at least 40 of each", len(pos), len(neg))
	}
	kinds := map[string]bool{}
	for _, s := range pos {
		if s.Secret == "" {
			t.Errorf("corpus.txt:%d: a positive without its secret marked ({{<}} … {{>}})", s.Line)
		}
		kinds[s.Kind] = true
	}
	if len(kinds) < 25 {
		t.Errorf("corpus covers %d kinds; want every kind of the scanner", len(kinds))
	}
}

func TestScanSecretsFindsEveryPositive(t *testing.T) {
	for _, s := range secretcorpus.Positives() {
		found := secrets.Scan(s.Text)
		if len(found) == 0 {
			t.Errorf("corpus.txt:%d: nothing found in %q; want %s", s.Line, s.Text, s.Kind)
			continue
		}
		var hit *secrets.Secret
		for i := range found {
			if found[i].Kind.ID == s.Kind {
				hit = &found[i]
				break
			}
		}
		if hit == nil {
			t.Errorf("corpus.txt:%d: found %s in %q; want %s", s.Line, found[0].Kind.ID, s.Text, s.Kind)
			continue
		}
		// The finding covers the secret, in code points.
		runes := []rune(s.Text)
		got := string(runes[hit.Start:hit.End])
		if !strings.Contains(got, s.Secret) && !strings.Contains(s.Secret, got) {
			t.Errorf("corpus.txt:%d: the %s finding is chars %d–%d (%q); want it to cover %q", s.Line, s.Kind, hit.Start+1, hit.End, got, s.Secret)
		}
	}
}

func TestScanSecretsPassesEveryLookAlike(t *testing.T) {
	for _, s := range secretcorpus.Negatives() {
		if found := secrets.Scan(s.Text); len(found) > 0 {
			runes := []rune(s.Text)
			t.Errorf("corpus.txt:%d: %q: found %s at chars %d–%d (%q); want nothing", s.Line, s.Text,
				found[0].Kind.ID, found[0].Start+1, found[0].End, string(runes[found[0].Start:found[0].End]))
		}
	}
}

// The long-random-string rule on many draws: random keys of the usual
// alphabets are found, identifiers and paths made of words are not.
func TestHighEntropyRuleOnManyDraws(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	missed := 0
	const draws = 2000
	for i := 0; i < draws; i++ {
		n := 32 + rng.IntN(33)
		b := make([]byte, n)
		for k := range b {
			b[k] = alnum[rng.IntN(len(alnum))]
		}
		if len(secrets.Scan("key "+string(b))) == 0 {
			missed++
		}
	}
	// A draw may lack a digit or an upper-case letter, or be as orderly as
	// a word: a few in a hundred are let through, by design.
	if missed*100 > draws*3 {
		t.Errorf("missed %d of %d random keys; want under 3%%", missed, draws)
	}
	words := strings.Fields("token refresh handler session window expiry user account settings graph node edge " +
		"compaction archive budget journal checkpoint storage adapter search index query result cache")
	for i := 0; i < draws; i++ {
		var b strings.Builder
		sep := []string{"", "-", "_", "/"}[rng.IntN(4)]
		for b.Len() < 40 {
			w := words[rng.IntN(len(words))]
			if sep == "" && b.Len() > 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			if b.Len() > 0 {
				b.WriteString(sep)
			}
			b.WriteString(w)
			if rng.IntN(4) == 0 {
				b.WriteString(strconv.Itoa(rng.IntN(100)))
			}
		}
		if f := secrets.Scan(b.String()); len(f) > 0 {
			t.Errorf("%q: found %s; want nothing", b.String(), f[0].Kind.ID)
		}
	}
}

// BenchmarkScanSecretsOnDeveloperText is the scanner's cost on text that
// holds no secret but often names one (domain/secrets/secretcorpus/devtext.txt):
// commit messages, comments, code lines about tokens and keys, ids and
// paths. One op scans every text once.
func BenchmarkScanSecretsOnDeveloperText(b *testing.B) {
	var texts []string
	for _, s := range secretcorpus.DeveloperText() {
		texts = append(texts, s.Text)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range texts {
			secrets.Scan(t)
		}
	}
}

// FuzzScanSecrets holds the scanner's findings to what the rest of kg
// relies on, whatever the text: in bounds, in order, never overlapping,
// and redactable.
func FuzzScanSecrets(f *testing.F) {
	for _, s := range secretcorpus.Samples() {
		f.Add(s.Text)
	}
	f.Add("kind: Secret\ndata:\n  pw: c2VjcmV0cGFzcw==\n")
	f.Add(`<add key="Password" value="Xk9fPq2mZr7WqLt3" />`)
	f.Add("curl -u a:b\\\n -X POST https://x")
	f.Fuzz(func(t *testing.T, s string) {
		found := secrets.Scan(s)
		n := utf8.RuneCountInString(s)
		for i, x := range found {
			if x.Start < 0 || x.Start >= x.End || x.End > n {
				t.Fatalf("finding %d: chars %d–%d of a %d-char text", i, x.Start, x.End, n)
			}
			if i > 0 && x.Start < found[i-1].End {
				t.Fatalf("findings %d and %d overlap: %+v %+v", i-1, i, found[i-1], x)
			}
		}
		if len(found) > 0 && secrets.Redact(s, found) == s {
			t.Fatalf("redacting %q changed nothing", s)
		}
	})
}
