package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kg-memory/kg/cmd/kg/internal/install"
)

const userCodexConfig = `model = "o3"
approval_policy = "on-request"

[mcp_servers.other]
command = "other-mcp"

[projects."/x"]
trust_level = "trusted"
`

const userCodexHooks = `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo hi", "timeout": 3}]}]}}`

// TestInstallCodex: kg install codex adds the MCP entry, the hooks after
// the user's and the trust of each at its position; a second run changes
// nothing; --uninstall gives config.toml back byte for byte and leaves the
// user's hook; a config that is not TOML stops it before anything is
// written.
func TestInstallCodex(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := filepath.Join(home, ".codex")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	configPath, hooksPath := filepath.Join(dir, "config.toml"), filepath.Join(dir, "hooks.json")
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(configPath, userCodexConfig)
	write(hooksPath, userCodexHooks)
	env := []string{"HOME=" + home}
	read := func(path string) string { b, _ := os.ReadFile(path); return string(b) }

	code, out, errOut := runKG(t, env, "install", "codex", "--dry-run")
	if code != 0 || !strings.Contains(out, "dry run: nothing written") || read(configPath) != userCodexConfig || read(hooksPath) != userCodexHooks {
		t.Fatalf("dry run: %d %s %s", code, out, errOut)
	}
	if code, out, errOut := runKG(t, env, "install", "codex"); code != 0 {
		t.Fatalf("install: %d %s %s", code, out, errOut)
	}
	config := read(configPath)
	start := install.CodexHookHash("SessionStart", "", kgBin(t)+" hook session-start --agent codex", 5)
	for _, want := range []string{
		userCodexConfig,
		"[mcp_servers.kg]\ncommand = \"" + kgBin(t) + "\"\nargs = [\"mcp\"]\ndefault_tools_approval_mode = \"approve\"\n",
		// The user's SessionStart hook is group 0: kg's is group 1.
		"[hooks.state.\"" + hooksPath + ":session_start:1:0\"]\ntrusted_hash = \"" + start + "\"\n",
		"[hooks.state.\"" + hooksPath + ":user_prompt_submit:0:0\"]",
		"[hooks.state.\"" + hooksPath + ":post_tool_use:0:0\"]",
		"[hooks.state.\"" + hooksPath + ":stop:0:0\"]\ntrusted_hash = \"" + install.CodexHookHash("Stop", "", kgBin(t)+" hook stop --agent codex", 2) + "\"\n",
	} {
		if !strings.Contains(config, want) {
			t.Errorf("config.toml lacks %q:\n%s", want, config)
		}
	}
	hooks := decodeFile(t, hooksPath)["hooks"].(map[string]any)
	if g := hooks["SessionStart"].([]any); len(g) != 2 || !strings.Contains(install.CompactJSON(g[0]), "echo hi") {
		t.Errorf("SessionStart groups: %s", install.CompactJSON(g))
	}
	if g := install.CompactJSON(hooks["PostToolUse"]); !strings.Contains(g, `"matcher":"Bash|apply_patch"`) || !strings.Contains(g, "hook tool-event --agent codex") {
		t.Errorf("PostToolUse: %s", g)
	}
	installedHooks := read(hooksPath)
	if code, out, _ := runKG(t, env, "install", "codex"); code != 0 || !strings.Contains(out, "nothing to change") || read(configPath) != config || read(hooksPath) != installedHooks {
		t.Errorf("a second install: %d %s", code, out)
	}
	if code, out, errOut := runKG(t, env, "install", "codex", "--uninstall"); code != 0 {
		t.Fatalf("uninstall: %d %s %s", code, out, errOut)
	}
	if got := read(configPath); got != userCodexConfig {
		t.Errorf("config.toml after uninstall:\n%s\nwant it as before:\n%s", got, userCodexConfig)
	}
	if got := install.CompactJSON(decodeFile(t, hooksPath)); got != `{"hooks":{"SessionStart":[{"hooks":[{"command":"echo hi","timeout":3,"type":"command"}]}]}}` {
		t.Errorf("hooks.json after uninstall: %s", got)
	}

	write(configPath, "model = \n")
	code, _, errOut = runKG(t, env, "install", "codex")
	if code == 0 || !strings.Contains(errOut, configPath) || !strings.Contains(errOut, "not TOML") || read(configPath) != "model = \n" || read(hooksPath) == installedHooks {
		t.Errorf("a damaged config.toml: %d %q; want a refusal naming it, nothing written", code, errOut)
	}
}

// TestInstallGemini: kg install gemini adds the MCP entry and the three
// hooks to Gemini CLI's settings, keeps the user's, changes nothing the
// second time and takes out only its own on --uninstall.
func TestInstallGemini(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	path := filepath.Join(home, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	user := `{"general": {"vimMode": true}, "mcpServers": {"other": {"command": "other-mcp"}},
  "hooks": {"AfterTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "gofmt -w"}]}]}}`
	if err := os.WriteFile(path, []byte(user), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home}
	if code, out, errOut := runKG(t, env, "install", "gemini"); code != 0 {
		t.Fatalf("install: %d %s %s", code, out, errOut)
	}
	doc := decodeFile(t, path)
	got := install.CompactJSON(doc)
	for _, want := range []string{
		`"kg":{"args":["mcp"],"command":"` + kgBin(t) + `","trust":true}`, `"other":{"command":"other-mcp"}`, `"vimMode":true`,
		`"command":"` + kgBin(t) + ` hook session-start --agent gemini"`, `"command":"` + kgBin(t) + ` hook prompt --agent gemini"`,
		`"matcher":"read_file|web_fetch|google_web_search"`, `"command":"gofmt -w"`, `"timeout":5000`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("settings lack %s:\n%s", want, got)
		}
	}
	installed, _ := os.ReadFile(path)
	if code, out, _ := runKG(t, env, "install", "gemini"); code != 0 || !strings.Contains(out, "nothing to change") {
		t.Errorf("a second install: %d %s", code, out)
	}
	if again, _ := os.ReadFile(path); string(again) != string(installed) {
		t.Errorf("a second install changed the settings")
	}
	if code, out, errOut := runKG(t, env, "install", "gemini", "--uninstall"); code != 0 {
		t.Fatalf("uninstall: %d %s %s", code, out, errOut)
	}
	if got := install.CompactJSON(decodeFile(t, path)); got != `{"general":{"vimMode":true},"hooks":{"AfterTool":[{"hooks":[{"command":"gofmt -w","type":"command"}],"matcher":"write_file"}]},"mcpServers":{"other":{"command":"other-mcp"}}}` {
		t.Errorf("after uninstall: %s", got)
	}
}

// TestInstallListsAgents: kg install alone names each agent, whether its
// program is on PATH, and for one that is, what its install would change —
// writing nothing.
func TestInstallListsAgents(t *testing.T) {
	t.Parallel()
	home, bin := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "codex"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runKG(t, []string{"HOME=" + home, "PATH=" + bin}, "install")
	if code != 0 {
		t.Fatalf("kg install: %d %s %s", code, out, errOut)
	}
	for _, want := range []string{"claude-code: claude is not on PATH", "codex: found " + filepath.Join(bin, "codex"),
		"add [mcp_servers.kg]", "dry run: nothing written", "gemini: gemini is not on PATH"} {
		if !strings.Contains(out, want) {
			t.Errorf("kg install lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".codex")); err == nil {
		t.Errorf("kg install alone wrote %s", filepath.Join(home, ".codex"))
	}
}

// TestInstallCodexOverAnEarlierInstall: an install made before the stop
// hook (PostToolUse on Bash alone, trusted as such) is brought up to date:
// the matcher widened to apply_patch, its trust record rewritten with the
// new hash and the old one gone, the Stop hook added and trusted; uninstall
// then leaves nothing of kg.
func TestInstallCodexOverAnEarlierInstall(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := filepath.Join(home, ".codex")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	configPath, hooksPath := filepath.Join(dir, "config.toml"), filepath.Join(dir, "hooks.json")
	tool := kgBin(t) + " hook tool-event --agent codex"
	oldHash := install.CodexHookHash("PostToolUse", "Bash", tool, 2)
	earlierHooks := `{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "` + tool + `", "timeout": 2}]}]}}`
	earlierConfig := userCodexConfig + "\n[hooks.state.\"" + hooksPath + ":post_tool_use:0:0\"]\ntrusted_hash = \"" + oldHash + "\"\n"
	for path, text := range map[string]string{configPath: earlierConfig, hooksPath: earlierHooks} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"HOME=" + home}
	code, out, errOut := runKG(t, env, "install", "codex")
	if code != 0 || !strings.Contains(out, "update hooks.PostToolUse matcher: Bash|apply_patch") {
		t.Fatalf("install over an earlier one: %d %s %s", code, out, errOut)
	}
	b, _ := os.ReadFile(configPath)
	config := string(b)
	newHash := install.CodexHookHash("PostToolUse", "Bash|apply_patch", tool, 2)
	if strings.Contains(config, oldHash) || !strings.Contains(config, "[hooks.state.\""+hooksPath+":post_tool_use:0:0\"]\ntrusted_hash = \""+newHash+"\"\n") ||
		!strings.Contains(config, ":stop:0:0\"]") {
		t.Errorf("config.toml after the update: the PostToolUse trust is not the widened hook's, or Stop is not trusted:\n%s", config)
	}
	hooks := install.CompactJSON(decodeFile(t, hooksPath))
	if !strings.Contains(hooks, `"matcher":"Bash|apply_patch"`) || strings.Count(hooks, `"PostToolUse"`) != 1 || !strings.Contains(hooks, "hook stop --agent codex") {
		t.Errorf("hooks.json after the update: %s", hooks)
	}
	if code, out, errOut := runKG(t, env, "install", "codex", "--uninstall"); code != 0 {
		t.Fatalf("uninstall: %d %s %s", code, out, errOut)
	}
	if b, _ := os.ReadFile(configPath); string(b) != userCodexConfig+"\n" && string(b) != userCodexConfig {
		t.Errorf("config.toml after uninstall:\n%s\nwant the user's:\n%s", b, userCodexConfig)
	}
}
