package secretscreen_test

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/secrets/secretcorpus"
	"github.com/kg-memory/kg/domain/secretscreen"
)

func TestSecretPositionsCountCodePointsFromOne(t *testing.T) {
	key := "AK" + "IA" + "QWERTYUIOPASDFGH"
	note := "clé 🔑 de " + key + " ok" // multi-byte characters before the key
	in := domain.NodeInput{ID: "n", Gist: "g", Notes: []string{"first", note}}
	_, _, err := secretscreen.Node(in, secretscreen.Block)
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
		if _, _, err := secretscreen.Node(in, secretscreen.Block); err == nil {
			t.Errorf("corpus.txt:%d: block mode let %s through", s.Line, s.Kind)
		} else if strings.Contains(err.Error(), s.Secret) {
			t.Errorf("corpus.txt:%d: the error echoes the secret: %q", s.Line, err)
		}
		out, fs, err := secretscreen.Node(in, secretscreen.Redact)
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
		if got, fs, err := secretscreen.Node(in, secretscreen.Allow); err != nil || len(fs) != 0 || got.Notes[1] != s.Text {
			t.Errorf("corpus.txt:%d: allow mode changed or refused the input", s.Line)
		}
	}
	for _, s := range secretcorpus.Negatives() {
		in := domain.NodeInput{ID: "n1", Gist: "a gist", Notes: []string{s.Text}}
		if _, fs, err := secretscreen.Node(in, secretscreen.Block); err != nil || len(fs) != 0 {
			t.Errorf("corpus.txt:%d: a look-alike was refused: %v", s.Line, err)
		}
	}
}

func TestScreenRefusesSecretsInNamesEvenWhenRedacting(t *testing.T) {
	tok := "gh" + "p_" + strings.Repeat("aB3", 12)
	if _, _, err := secretscreen.Node(domain.NodeInput{ID: tok, Gist: "g"}, secretscreen.Redact); err == nil ||
		!strings.HasPrefix(err.Error(), "id: looks like a GitHub token (chars 1–40)") || strings.Contains(err.Error(), tok) {
		t.Fatalf("id with a token: err = %v", err)
	}
	if _, _, err := secretscreen.Edge(domain.EdgeInput{From: "a", To: "b", Rel: tok}, secretscreen.Redact); err == nil ||
		!strings.HasPrefix(err.Error(), "rel: looks like a GitHub token") {
		t.Fatalf("rel with a token: err = %v", err)
	}
	url := "postgres://app:Zx9" + "Qw8Er7Ty6@db/app"
	out, fs, err := secretscreen.Edge(domain.EdgeInput{From: "svc", To: url, Rel: "uses"}, secretscreen.Redact)
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
	_, _, err := secretscreen.Import(doc, secretscreen.Block)
	if err == nil || !strings.HasPrefix(err.Error(), "nodes[1].notes[1]: looks like a GitHub token (chars 5–44); edges[0].notes[0]: looks like a GitHub token (chars 1–40)") {
		t.Fatalf("err = %v", err)
	}
	out, fs, err := secretscreen.Import(doc, secretscreen.Redact)
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

// BenchmarkScreenNode is the scanner's cost on a write of the benchmark
// workload's shape (docs/design/benchmarks.md#workload): a 60-char gist
// and two notes of 40 chars.
func BenchmarkScreenNode(b *testing.B) {
	in := domain.NodeInput{ID: "n000123", Gist: "refresh window token session expiry handler graph budget ok",
		Notes: []string{"journal checkpoint storage adapter search", "index query result cache archive node ok"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := secretscreen.Node(in, secretscreen.Block); err != nil {
			b.Fatal(err)
		}
	}
}
