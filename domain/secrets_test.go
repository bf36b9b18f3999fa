package domain_test

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kg-memory/kg/domain"
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
		found := domain.ScanSecrets(s.Text)
		if len(found) == 0 {
			t.Errorf("corpus.txt:%d: nothing found in %q; want %s", s.Line, s.Text, s.Kind)
			continue
		}
		var hit *domain.Secret
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
		if found := domain.ScanSecrets(s.Text); len(found) > 0 {
			runes := []rune(s.Text)
			t.Errorf("corpus.txt:%d: %q: found %s at chars %d–%d (%q); want nothing", s.Line, s.Text,
				found[0].Kind.ID, found[0].Start+1, found[0].End, string(runes[found[0].Start:found[0].End]))
		}
	}
}

func TestSecretPositionsCountCodePointsFromOne(t *testing.T) {
	key := "AK" + "IA" + "QWERTYUIOPASDFGH"
	note := "clé 🔑 de " + key + " ok" // multi-byte characters before the key
	in := domain.NodeInput{ID: "n", Gist: "g", Notes: []string{"first", note}}
	_, _, err := domain.ScreenNode(in, domain.SecretsBlock)
	if err == nil {
		t.Fatal("a note with an AWS key was let through in block mode")
	}
	start := utf8.RuneCountInString("clé 🔑 de ") + 1
	want := "notes[1]: looks like an AWS access key (chars " + itoa(start) + "–" + itoa(start+19) + "); store a reference to where it lives instead"
	if !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error = %q; want it to start with %q", err, want)
	}
	if strings.Contains(err.Error(), key) || strings.Contains(err.Error(), key[4:]) {
		t.Fatalf("the error echoes the key: %q", err)
	}
	if domain.KindOf(err) != domain.KindInvalid {
		t.Fatalf("kind = %s; want invalid", domain.KindOf(err))
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestScreenNodeModes(t *testing.T) {
	for _, s := range secretcorpus.Positives() {
		in := domain.NodeInput{ID: "n1", Gist: "a gist", Notes: []string{"first", s.Text}, Touches: []string{"src/a.go"}}
		if _, _, err := domain.ScreenNode(in, domain.SecretsBlock); err == nil {
			t.Errorf("corpus.txt:%d: block mode let %s through", s.Line, s.Kind)
		} else if strings.Contains(err.Error(), s.Secret) {
			t.Errorf("corpus.txt:%d: the error echoes the secret: %q", s.Line, err)
		}
		out, fs, err := domain.ScreenNode(in, domain.SecretsRedact)
		if err != nil {
			t.Errorf("corpus.txt:%d: redact mode refused: %v", s.Line, err)
			continue
		}
		if len(fs) == 0 || fs[0].Field != "notes[1]" {
			t.Errorf("corpus.txt:%d: redact findings = %+v; want one in notes[1]", s.Line, fs)
		}
		if strings.Contains(out.Notes[1], s.Secret) {
			t.Errorf("corpus.txt:%d: redacted note still holds the secret: %q", s.Line, out.Notes[1])
		}
		if !strings.Contains(out.Notes[1], "[REDACTED:"+s.Kind+"]") {
			t.Errorf("corpus.txt:%d: redacted note = %q; want [REDACTED:%s] in it", s.Line, out.Notes[1], s.Kind)
		}
		if in.Notes[1] != s.Text {
			t.Errorf("corpus.txt:%d: the input's list was changed in place", s.Line)
		}
		if got, fs, err := domain.ScreenNode(in, domain.SecretsAllow); err != nil || len(fs) != 0 || got.Notes[1] != s.Text {
			t.Errorf("corpus.txt:%d: allow mode changed or refused the input", s.Line)
		}
	}
	for _, s := range secretcorpus.Negatives() {
		in := domain.NodeInput{ID: "n1", Gist: "a gist", Notes: []string{s.Text}}
		if _, fs, err := domain.ScreenNode(in, domain.SecretsBlock); err != nil || len(fs) != 0 {
			t.Errorf("corpus.txt:%d: a look-alike was refused: %v", s.Line, err)
		}
	}
}

func TestScreenRefusesSecretsInNamesEvenWhenRedacting(t *testing.T) {
	tok := "gh" + "p_" + strings.Repeat("aB3", 12)
	if _, _, err := domain.ScreenNode(domain.NodeInput{ID: tok, Gist: "g"}, domain.SecretsRedact); err == nil ||
		!strings.HasPrefix(err.Error(), "id: looks like a GitHub token (chars 1–40)") || strings.Contains(err.Error(), tok) {
		t.Fatalf("id with a token: err = %v", err)
	}
	if _, _, err := domain.ScreenEdge(domain.EdgeInput{From: "a", To: "b", Rel: tok}, domain.SecretsRedact); err == nil ||
		!strings.HasPrefix(err.Error(), "rel: looks like a GitHub token") {
		t.Fatalf("rel with a token: err = %v", err)
	}
	url := "postgres://app:Zx9" + "Qw8Er7Ty6@db/app"
	out, fs, err := domain.ScreenEdge(domain.EdgeInput{From: "svc", To: url, Rel: "uses"}, domain.SecretsRedact)
	if err != nil || len(fs) != 1 || out.To != "postgres://app:[REDACTED:url-password]@db/app" {
		t.Fatalf("edge end with a password: %q %+v %v", out.To, fs, err)
	}
	if _, err := out.Validate(); err != nil {
		t.Fatalf("the redacted end is not a valid reference: %v", err)
	}
}

func TestScreenImportNamesTheItem(t *testing.T) {
	tok := "gh" + "p_" + strings.Repeat("aB3", 12)
	doc := domain.GraphData{Nodes: []domain.Node{{ID: "a", Gist: "fine"}, {ID: "b", Gist: "fine", Notes: []string{"x", "key " + tok}}},
		Edges: []domain.Edge{{From: "a", To: "b", Rel: "r", Notes: []string{tok}}}}
	_, _, err := domain.ScreenImport(doc, domain.SecretsBlock)
	if err == nil || !strings.HasPrefix(err.Error(), "nodes[1].notes[1]: looks like a GitHub token (chars 5–44); edges[0].notes[0]: looks like a GitHub token (chars 1–40)") {
		t.Fatalf("err = %v", err)
	}
	out, fs, err := domain.ScreenImport(doc, domain.SecretsRedact)
	if err != nil || len(fs) != 2 {
		t.Fatalf("redact: %+v %v", fs, err)
	}
	if out.Nodes[1].Notes[1] != "key [REDACTED:github-token]" || out.Edges[0].Notes[0] != "[REDACTED:github-token]" {
		t.Fatalf("redacted document: %+v %+v", out.Nodes[1], out.Edges[0])
	}
	if doc.Nodes[1].Notes[1] != "key "+tok {
		t.Fatal("the document given was changed in place")
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
		if len(domain.ScanSecrets("key "+string(b))) == 0 {
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
		if f := domain.ScanSecrets(b.String()); len(f) > 0 {
			t.Errorf("%q: found %s; want nothing", b.String(), f[0].Kind.ID)
		}
	}
}

// BenchmarkScreenNode is the scanner's cost on a write of the benchmark
// workload's shape (docs/design/benchmarks.md#workload): a 60-char gist
// and two notes of 40 chars.
func BenchmarkScreenNode(b *testing.B) {
	in := domain.NodeInput{ID: "n000123", Gist: "refresh window token session expiry handler graph budget ok",
		Notes: []string{"journal checkpoint storage adapter search", "index query result cache archive node ok"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := domain.ScreenNode(in, domain.SecretsBlock); err != nil {
			b.Fatal(err)
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
			domain.ScanSecrets(t)
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
		found := domain.ScanSecrets(s)
		n := utf8.RuneCountInString(s)
		for i, x := range found {
			if x.Start < 0 || x.Start >= x.End || x.End > n {
				t.Fatalf("finding %d: chars %d–%d of a %d-char text", i, x.Start, x.End, n)
			}
			if i > 0 && x.Start < found[i-1].End {
				t.Fatalf("findings %d and %d overlap: %+v %+v", i-1, i, found[i-1], x)
			}
		}
		if len(found) > 0 && domain.Redact(s, found) == s {
			t.Fatalf("redacting %q changed nothing", s)
		}
	})
}
