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
	w.kgOnPath()
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

// kgOnPath puts the kg under test on the world's PATH as `kg`, as a
// plugin's or an extension's hooks and server name it.
func (w *world) kgOnPath() {
	w.t.Helper()
	bin := filepath.Join(w.home, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.Symlink(kgBinary(w.t), filepath.Join(bin, "kg")); err != nil {
		w.t.Fatal(err)
	}
	for i, kv := range w.env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			w.env[i] = "PATH=" + bin + string(os.PathListSeparator) + v
		}
	}
}

// TestCodexPlugin: the plugin in integrations/codex installs with `codex
// plugin marketplace add` and `codex plugin add`, non-interactively, and
// its server gives the model kg's tools; its hooks, like every hook Codex
// has not seen a person trust, are skipped — no preload — until trusted,
// and give the preload once they run (here for one run with
// --dangerously-bypass-hook-trust). kg install codex is what trusts hooks
// (integrations/codex/README.md, docs/clients.md#codex).
func TestCodexPlugin(t *testing.T) {
	needClients(t)
	w := newWorld(t)
	w.serve()
	seedBilling(w, 3)
	w.kgOnPath()
	codexHome := []string{"CODEX_HOME=" + filepath.Join(w.home, ".codex")}
	if err := os.MkdirAll(filepath.Join(w.home, ".codex"), 0o700); err != nil {
		t.Fatal(err)
	}
	plugin := filepath.Join(here(t), "..", "..", "integrations", "codex")
	for _, args := range [][]string{{"plugin", "marketplace", "add", plugin}, {"plugin", "add", "kg@kg"}} {
		if out, err := w.run(t.Context(), cliLimit, w.project, codexHome, nodeBin(t), append([]string{codexJS(t)}, args...)...); err != nil {
			t.Fatalf("codex %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	untrusted := newModelMock(t, agents()[1].proto, script())
	if out, err := w.codexInstalled(untrusted, "How do invoice retries back off on the billing queue?"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	first := untrusted.Exchanges()[0]
	check(t, "codex", "plugin: nine tools offered", func() error { return offersKGTools(agents()[1], first) })
	check(t, "codex", "plugin: hooks skipped until trusted", func() error {
		if strings.Contains(first.Context, preloadMark) {
			return fmt.Errorf("an untrusted plugin hook gave a preload:\n%.3000s", first.Context)
		}
		return nil
	})
	codex := agents()[1]
	trusted := newModelMock(t, codex.proto, script(
		fixed(codex.tool("kg_read"), map[string]any{"cwd": w.project}),
		withSession(codex.tool("kg_put_node"), map[string]any{"level": "project", "id": "plugin-note",
			"gist": "kg's Codex plugin installs from integrations/codex"}),
	))
	if out, err := w.codexInstalledWith(trusted, "How do invoice retries back off on the billing queue?", "--dangerously-bypass-hook-trust"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	check(t, "codex", "plugin: preload once its hooks run", func() error {
		if ctx := trusted.Exchanges()[0].Context; !strings.Contains(ctx, preloadMark) || !strings.Contains(ctx, "billing-retry") {
			return fmt.Errorf("the first request holds no preload with billing-retry:\n%.3000s", ctx)
		}
		return nil
	})
	check(t, "codex", "plugin: a write through its server", func() error {
		if got := strings.Join(trusted.Last(t).Results, "\n"); !strings.Contains(got, "plugin-note") {
			return fmt.Errorf("kg_put_node's result as the model got it:\n%.3000s", got)
		}
		return nil
	})
}
