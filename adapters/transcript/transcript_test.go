package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTailReadsOnlyInsideHome(t *testing.T) {
	home := t.TempDir()
	outside := t.TempDir()
	in := filepath.Join(home, ".claude", "projects", "x.jsonl")
	if err := os.MkdirAll(filepath.Dir(in), 0o755); err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("a", 100) + "END"
	for _, p := range []string{in, filepath.Join(outside, "t.jsonl")} {
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	h := Home{Dir: home}
	if got, err := h.Tail(t.Context(), in, 10); err != nil || string(got) != strings.Repeat("a", 7)+"END" {
		t.Errorf("Tail = %q, %v; want the last 10 bytes", got, err)
	}
	if got, err := h.Tail(t.Context(), in, 1<<20); err != nil || string(got) != body {
		t.Errorf("Tail of a small file = %d bytes, %v", len(got), err)
	}
	// Outside, through a symlink inside, relative, a folder, missing.
	link := filepath.Join(home, "link.jsonl")
	if err := os.Symlink(filepath.Join(outside, "t.jsonl"), link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(outside, "t.jsonl"), link, filepath.Join(home, "..", filepath.Base(outside), "t.jsonl"),
		"x.jsonl", filepath.Dir(in), filepath.Join(home, "missing")} {
		if got, err := h.Tail(t.Context(), p, 1<<20); err == nil {
			t.Errorf("Tail(%s) = %d bytes; want an error", p, len(got))
		}
	}
}
