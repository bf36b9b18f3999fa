package clients

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeminiExtension: the extension in integrations/gemini installs with
// `gemini extensions install`, and its hooks and server, `kg` taken from
// the PATH, give the model kg's preload at session start
// (integrations/gemini/README.md).
func TestGeminiExtension(t *testing.T) {
	needClients(t)
	w := newWorld(t)
	w.serve()
	seedBilling(w, 3)
	bin := filepath.Join(w.home, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(kgBinary(t), filepath.Join(bin, "kg")); err != nil {
		t.Fatal(err)
	}
	for i, kv := range w.env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			w.env[i] = "PATH=" + bin + string(os.PathListSeparator) + v
		}
	}
	if err := os.MkdirAll(filepath.Join(w.home, ".gemini"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.home, ".gemini", "settings.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	ext := filepath.Join(here(t), "..", "..", "integrations", "gemini")
	out, err := w.run(t.Context(), cliLimit, w.project, []string{"GEMINI_CLI_TRUST_WORKSPACE=true"},
		nodeBin(t), geminiJS(t), "extensions", "install", ext, "--consent")
	if err != nil {
		t.Fatalf("gemini extensions install: %v\n%s", err, out)
	}
	mock := newModelMock(t, agents()[2].proto, script())
	if out, err := w.geminiInstalled(mock, "How do invoice retries back off on the billing queue?"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	first := mock.Exchanges()[0]
	check(t, "gemini", "extension: nine tools offered", func() error { return offersKGTools(agents()[2], first) })
	check(t, "gemini", "extension: preload at session start", func() error {
		if !strings.Contains(first.Context, preloadMark) || !strings.Contains(first.Context, "billing-retry") {
			return fmt.Errorf("the first request holds no preload with billing-retry:\n%.3000s", first.Context)
		}
		return nil
	})
}
