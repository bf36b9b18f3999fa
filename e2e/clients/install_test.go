package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The user's own Claude Code settings before kg is installed: install must
// keep them, and uninstall must give them back byte for byte.
const (
	userSettings = `{
  "model": "opus",
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "echo done"}]}]
  }
}
`
	userClaudeJSON = `{
  "numStartups": 3,
  "mcpServers": {"other": {"type": "http", "url": "http://127.0.0.1:9/"}}
}
`
)

// claudeFiles are the two files kg install claude-code writes, as they are
// now ("" for a file that does not exist), compacted: kg rewrites a file it
// changes with its own indentation, and the settings are the same when the
// keys, their order and the values are.
func (w *world) claudeFiles() string {
	var b strings.Builder
	for _, name := range []string{filepath.Join(".claude", "settings.json"), ".claude.json"} {
		data, err := os.ReadFile(filepath.Join(w.home, name))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			w.t.Fatal(err)
		}
		var compact bytes.Buffer
		if len(data) > 0 {
			if err := json.Compact(&compact, data); err != nil {
				w.t.Fatalf("%s: %v\n%s", name, err, data)
			}
		}
		fmt.Fprintf(&b, "--- %s\n%s\n", name, compact.Bytes())
	}
	return b.String()
}

func (w *world) writeUserSettings() {
	w.t.Helper()
	if err := os.MkdirAll(filepath.Join(w.home, ".claude"), 0o755); err != nil {
		w.t.Fatal(err)
	}
	for name, text := range map[string]string{filepath.Join(".claude", "settings.json"): userSettings, ".claude.json": userClaudeJSON} {
		if err := os.WriteFile(filepath.Join(w.home, name), []byte(text), 0o644); err != nil {
			w.t.Fatal(err)
		}
	}
}

// copyKG copies the kg binary to dir/name: the same program, named
// otherwise, as a user may keep it (kg-v2, a versioned install).
func copyKG(t *testing.T, name string) string {
	t.Helper()
	src, err := os.Open(kgBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	path := filepath.Join(t.TempDir(), name)
	dst, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestClaudeCodeInstall: kg install claude-code keeps the user's settings,
// a second install changes nothing, --uninstall gives the files back as
// they were — for the binary named kg and for one named kg-v2, whatever
// the binary is named (docs/design/hooks.md#kg-install-claude-code).
func TestClaudeCodeInstall(t *testing.T) {
	needClients(t)
	for _, tc := range []struct{ binary, twice, uninstall string }{
		{"kg", "install twice", "uninstall restores the settings"},
		{"kg-v2", checkInstallRenamedTwice, checkUninstallRenamed},
	} {
		t.Run(tc.binary, func(t *testing.T) {
			w := newWorld(t)
			bin := copyKG(t, tc.binary)
			w.writeUserSettings()
			before := w.claudeFiles()
			w.kgAs(bin, "install", "claude-code")
			installed := w.claudeFiles()
			check(t, "claude-code", "install adds kg and keeps the user's settings", func() error {
				for _, want := range []string{"hook session-start", "hook prompt", "hook tool-event", `"kg"`, `"mcp","--port=` + strconv.Itoa(w.port) + `"`, "echo done", `"opus"`, `"other"`, `"numStartups":3`} {
					if !strings.Contains(installed, want) {
						return fmt.Errorf("after install, no %s in\n%s", want, installed)
					}
				}
				return nil
			})
			w.kgAs(bin, "install", "claude-code")
			check(t, "claude-code", tc.twice, func() error {
				if again := w.claudeFiles(); again != installed {
					return fmt.Errorf("a second install changed the settings:\n%s\nafter the first:\n%s", again, installed)
				}
				return nil
			})
			w.kgAs(bin, "install", "claude-code", "--uninstall")
			check(t, "claude-code", tc.uninstall, func() error {
				if after := w.claudeFiles(); after != before {
					return fmt.Errorf("after uninstall:\n%s\nbefore install:\n%s", after, before)
				}
				return nil
			})
		})
	}
}

// TestClaudeCodeStartsWithNoServer: Claude Code started after kg install
// with no kg server running gets kg's tools and the preload
// (docs/clients.md#the-real-client-harness, issue 30 item 4). The tools
// are checked in a run without kg's hooks: with them, whether the server a
// hook starts is up before Claude Code connects is a race, and the MCP
// entry must work on its own.
func TestClaudeCodeStartsWithNoServer(t *testing.T) {
	needClients(t)
	w := newWorld(t)
	t.Cleanup(w.stopStartedServers)
	w.kg("install", "claude-code")
	settingsPath := filepath.Join(w.home, ".claude", "settings.json")
	installed, err := os.ReadFile(settingsPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settingsPath, onlyHook(t, installed, ""), 0o644); err != nil {
		t.Fatal(err)
	}
	bare := newModelMock(t, anthropic{}, script())
	if out, err := w.claude(bare, "", "What do we know about this project?"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	check(t, "claude-code", checkNoServerTools, func() error { return offersKGTools(agents()[0], bare.Exchanges()[0]) })

	w.stopStartedServers()
	if err := os.WriteFile(settingsPath, installed, 0o644); err != nil {
		t.Fatal(err)
	}
	hooked := newModelMock(t, anthropic{}, script())
	if out, err := w.claude(hooked, "", "What do we know about this project?"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	check(t, "claude-code", "start with no server: preload", func() error {
		if ctx := hooked.Exchanges()[0].Context; !strings.Contains(ctx, preloadMark) {
			return fmt.Errorf("no preload reached the model:\n%.3000s", ctx)
		}
		return nil
	})
}

// TestClaudeCodePluginMarketplace: the checkout installs as a Claude Code
// plugin marketplace (docs/clients.md, "The plugin").
func TestClaudeCodePluginMarketplace(t *testing.T) {
	needClients(t)
	w := newWorld(t)
	repo := filepath.Join(here(t), "..", "..")
	out, err := w.run(t.Context(), cliLimit, w.project, nil, claudeBin(t), "plugin", "marketplace", "add", repo)
	check(t, "claude-code", checkPluginMarketplace, func() error {
		if err != nil {
			return fmt.Errorf("claude plugin marketplace add %s: %v\n%s", repo, err, out)
		}
		return nil
	})
}

// TestCodexWritesWithTheDocumentedConfig: with the [mcp_servers.kg] entry
// docs/clients.md gives for Codex (read from the doc, `kg` made the test's
// binary), codex exec started with no kg server running can write to kg:
// the entry's `kg mcp` starts the server (decision 0092). Codex passes an
// MCP server only some of its environment, so the world's port is added
// to the entry.
func TestCodexWritesWithTheDocumentedConfig(t *testing.T) {
	needClients(t)
	w := newWorld(t)
	t.Cleanup(w.stopStartedServers)
	documented := codexSnippet(t)
	codex := agents()[1]
	mock := newModelMock(t, codex.proto, script(toolScript(codex, w.project)[:2]...))
	servers := strings.Replace(documented, `command = "kg"`, fmt.Sprintf("command = %q", kgBinary(t)), 1) +
		fmt.Sprintf("env = { KG_HTTP_PORT = \"%d\" }\n", w.port)
	out, err := w.codexWith(mock, servers, "Record what we know about invoice retries.")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	check(t, "codex", checkWriteWithDocumentedConfig, func() error {
		if got := strings.Join(mock.Last(t).Results, "\n"); !strings.Contains(got, "billing-retry") {
			return fmt.Errorf("with\n%s\nthe model got %q for kg_read and kg_put_node", servers, mock.Last(t).Results)
		}
		if text := w.callTool("kg_read", map[string]any{"cwd": w.project, "id": "billing-retry"}); !strings.Contains(text, "invoice retries back off") {
			return fmt.Errorf("kg holds no billing-retry after codex exec: %s", text)
		}
		return nil
	})
}

// codexSnippet is the first toml block of docs/clients.md's "## Codex"
// section: what a user copies into ~/.codex/config.toml.
func codexSnippet(t *testing.T) string {
	t.Helper()
	block := docBlock(t, "## Codex", "```toml\n")
	if !strings.Contains(block, "[mcp_servers.kg]") || !strings.Contains(block, `command = "kg"`) {
		t.Fatalf("docs/clients.md's Codex block is not an [mcp_servers.kg] entry running kg:\n%s", block)
	}
	return block
}

// TestGeminiStartsWithNoServer: Gemini CLI started with no kg server
// running, with the mcpServers entry docs/clients.md gives for it (read from
// the doc, `kg` made the test's binary), offers the model kg's nine tools:
// the entry's `kg mcp` starts the server (decision 0092).
func TestGeminiStartsWithNoServer(t *testing.T) {
	needClients(t)
	w := newWorld(t)
	t.Cleanup(w.stopStartedServers)
	var documented struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(docBlock(t, "## Gemini CLI", "```json\n")), &documented); err != nil {
		t.Fatalf("docs/clients.md's Gemini CLI block: %v", err)
	}
	kg := documented.MCPServers["kg"]
	if kg["command"] != "kg" || fmt.Sprint(kg["args"]) != "[mcp]" {
		t.Fatalf("docs/clients.md's Gemini CLI entry does not run kg mcp: %v", kg)
	}
	kg["command"] = kgBinary(t)
	kg["env"] = map[string]any{"KG_HTTP_PORT": strconv.Itoa(w.port)}
	gem := agents()[2]
	mock := newModelMock(t, gem.proto, script())
	if out, err := w.geminiWith(mock, map[string]any{"kg": kg}, "What do we know about this project?"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	check(t, "gemini", "start with no server: kg tools offered by the documented entry", func() error {
		return offersKGTools(gem, mock.Exchanges()[0])
	})
}

// docBlock is the first code block opened by fence in the section of
// docs/clients.md headed heading.
func docBlock(t *testing.T, heading, fence string) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(here(t), "..", "..", "docs", "clients.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("docs/clients.md has no %q section", heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, block, ok := strings.Cut(section, fence)
	if !ok {
		t.Fatalf("docs/clients.md's %q section has no %q block", heading, strings.TrimSpace(fence))
	}
	block, _, _ = strings.Cut(block, "```")
	return block
}
