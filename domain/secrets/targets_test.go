package secrets_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain/secrets"
	"github.com/kg-memory/kg/domain/secrets/secretcorpus"
)

// The targets of docs/design/trust.md#the-corpus, on the public scanners'
// samples and on developer text: at least 95% of the samples that hold a
// real-format credential refused, at most 0.5% of developer text. The
// figures per source, per kind and per category are written into
// docs/design/trust.md between its corpus-figures marks; the test fails
// when the page says other figures (KG_UPDATE_DOCS=1 rewrites them).
func TestSecretCorpusMeetsItsTargets(t *testing.T) {
	var (
		pos, posRefused   = map[string]int{}, map[string]int{}
		byKind            = map[string]int{}
		fps, fpsRefused   = map[string]int{}, map[string]int{}
		dev, devRefused   = map[string]int{}, map[string]int{}
		nPos, nPosRefused int
		nDev, nDevRefused int
		missedRules       = map[string]int{}
	)
	for _, s := range secretcorpus.Scanners() {
		found := secrets.Scan(s.Text)
		if s.Positive() {
			nPos++
			pos[s.Source]++
			if len(found) > 0 {
				nPosRefused++
				posRefused[s.Source]++
				byKind[found[0].Kind.ID]++
			} else {
				missedRules[s.Kind]++
			}
			continue
		}
		fps[s.Source]++
		if len(found) > 0 {
			fpsRefused[s.Source]++
		}
	}
	for _, s := range secretcorpus.DeveloperText() {
		found := secrets.Scan(s.Text)
		nDev++
		dev[s.Rule]++
		if len(found) > 0 {
			nDevRefused++
			devRefused[s.Rule]++
			r := []rune(s.Text)
			t.Logf("devtext.txt:%d (%s): %q refused as %s (%q)", s.Line, s.Rule, s.Text, found[0].Kind.ID, string(r[found[0].Start:found[0].End]))
		}
	}
	if nPos < 1000 || nDev < 1000 {
		t.Fatalf("%d scanner samples and %d developer texts; the targets need a thousand of each to mean anything", nPos, nDev)
	}
	if nPosRefused*100 < nPos*95 {
		t.Errorf("refused %d of %d scanner samples (%s); want at least 95%%; missed most: %v", nPosRefused, nPos, pct(nPosRefused, nPos), top(missedRules, 10))
	}
	if nDevRefused*1000 > nDev*5 {
		t.Errorf("refused %d of %d developer texts (%s); want at most 0.5%%", nDevRefused, nDev, pct(nDevRefused, nDev))
	}

	var b strings.Builder
	fmt.Fprintf(&b, "| samples that hold a credential | samples | refused |\n| --- | ---: | ---: |\n")
	for _, src := range sortedKeys(pos) {
		fmt.Fprintf(&b, "| `%s` | %d | %d (%s) |\n", src, pos[src], posRefused[src], pct(posRefused[src], pos[src]))
	}
	fmt.Fprintf(&b, "| **all** | %d | %d (%s) |\n\n", nPos, nPosRefused, pct(nPosRefused, nPos))
	fmt.Fprintf(&b, "| look-alikes and developer text | texts | refused |\n| --- | ---: | ---: |\n")
	for _, c := range sortedKeys(dev) {
		fmt.Fprintf(&b, "| developer text: %s | %d | %d (%s) |\n", c, dev[c], devRefused[c], pct(devRefused[c], dev[c]))
	}
	fmt.Fprintf(&b, "| **developer text, all** | %d | %d (%s) |\n", nDev, nDevRefused, pct(nDevRefused, nDev))
	for _, src := range sortedKeys(fps) {
		fmt.Fprintf(&b, "| false positives of a rule of `%s` (no target) | %d | %d (%s) |\n", src, fps[src], fpsRefused[src], pct(fpsRefused[src], fps[src]))
	}
	fmt.Fprintf(&b, "\n| kind named first | scanner samples |\n| --- | ---: |\n")
	kinds := sortedKeys(byKind)
	slices.SortStableFunc(kinds, func(x, y string) int { return byKind[y] - byKind[x] })
	for _, k := range kinds {
		fmt.Fprintf(&b, "| `%s` | %d |\n", k, byKind[k])
	}
	fmt.Fprintf(&b, "| missed | %d |\n", nPos-nPosRefused)
	checkDocBlock(t, b.String())
}

const (
	figuresBegin = "<!-- corpus-figures: begin (TestSecretCorpusMeetsItsTargets writes this) -->\n"
	figuresEnd   = "<!-- corpus-figures: end -->"
)

// checkDocBlock compares the figures with those docs/design/trust.md
// gives, and rewrites them there when KG_UPDATE_DOCS is set.
func checkDocBlock(t *testing.T, figures string) {
	t.Helper()
	path := filepath.Join("..", "..", "docs", "design", "trust.md")
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(page)
	i, j := strings.Index(doc, figuresBegin), strings.Index(doc, figuresEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no corpus-figures marks", path)
	}
	if got := doc[i+len(figuresBegin) : j]; got != figures {
		if os.Getenv("KG_UPDATE_DOCS") != "" {
			if err := os.WriteFile(path, []byte(doc[:i+len(figuresBegin)]+figures+doc[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("%s gives other corpus figures than the scanner reaches (KG_UPDATE_DOCS=1 rewrites them); want:\n%s", path, figures)
	}
}

func pct(n, of int) string { return fmt.Sprintf("%.2f%%", 100*float64(n)/float64(max(of, 1))) }

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func top(m map[string]int, n int) []string {
	keys := sortedKeys(m)
	slices.SortStableFunc(keys, func(x, y string) int { return m[y] - m[x] })
	var out []string
	for _, k := range keys[:min(n, len(keys))] {
		out = append(out, fmt.Sprintf("%s %d", k, m[k]))
	}
	return out
}
