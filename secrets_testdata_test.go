package kg_test

// The repository's own test data must not trip the secret scanner by
// accident (docs/design/trust.md#the-corpus): every string of every JSON
// file under a testdata folder, and every line of the other text files
// there, is scanned, and a finding fails the test naming the file.

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kg-memory/kg/domain/secrets"
)

func TestTestdataHoldsNoSecretLookAlike(t *testing.T) {
	out, err := exec.Command("git", "ls-files").Output()
	if err != nil {
		t.Skipf("git ls-files: %v", err)
	}
	scanned := 0
	for _, name := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !strings.Contains(name, "testdata/") || strings.Contains(name, "/fuzz/") {
			continue // fuzz corpora are random bytes by design, never written through a write path as they are
		}
		b, err := os.ReadFile(name)
		if err != nil || !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 {
			continue
		}
		scanned++
		var texts []string
		var v any
		if json.Unmarshal(b, &v) == nil {
			collectStrings(v, &texts)
		} else {
			texts = strings.Split(string(b), "\n")
		}
		for _, s := range texts {
			if f := secrets.Scan(s); len(f) > 0 {
				r := []rune(s)
				t.Errorf("%s: %q looks like %s (chars %d–%d)", name, string(r[f[0].Start:f[0].End]), f[0].Kind.Label, f[0].Start+1, f[0].End)
			}
		}
	}
	if scanned < 10 {
		t.Fatalf("scanned %d files; the test would prove nothing", scanned)
	}
}

func collectStrings(v any, out *[]string) {
	switch x := v.(type) {
	case string:
		*out = append(*out, x)
	case []any:
		for _, e := range x {
			collectStrings(e, out)
		}
	case map[string]any:
		for k, e := range x {
			*out = append(*out, k)
			collectStrings(e, out)
		}
	}
}
