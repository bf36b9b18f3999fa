package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kg-memory/kg/cmd/kg/internal/config"
	"github.com/kg-memory/kg/cmd/kg/internal/install"
)

// The user's Claude Code settings before kg install: hooks and servers of
// their own, and other settings, all of which must survive.
const (
	userSettings = `{"theme": "dark", "permissions": {"allow": ["Bash(ls:*)"]},
  "hooks": {"PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "gofmt -w", "timeout": 3}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}`
	userState = `{"numStartups": 42, "mcpServers": {"other": {"type": "stdio", "command": "other-mcp"}}, "projects": {"/x": {"allowedTools": []}}}`
)

func decodeFile(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}

func TestInstallClaudeCode(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	settingsPath, statePath := filepath.Join(home, ".claude", "settings.json"), filepath.Join(home, ".claude.json")
	if err := os.MkdirAll(filepath.Dir(settingsPath), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settingsPath, []byte(userSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(statePath, []byte(userState), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home}
	read := func() (string, string) {
		a, _ := os.ReadFile(settingsPath)
		b, _ := os.ReadFile(statePath)
		return string(a), string(b)
	}

	// --dry-run shows every change and writes nothing.
	code, out, errOut := runKG(t, env, "install", "claude-code", "--dry-run")
	if code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, errOut)
	}
	for _, want := range []string{settingsPath, statePath, "add hooks.SessionStart: " + kgBin(t) + " hook session-start",
		"add hooks.UserPromptSubmit: " + kgBin(t) + " hook prompt", "add hooks.PostToolUse: " + kgBin(t) + " hook tool-event",
		"add hooks.Stop: " + kgBin(t) + " hook stop",
		`add mcpServers.kg: {"args":["mcp"],"command":"` + kgBin(t) + `","type":"stdio"}`, "dry run: nothing written"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
	if s, st := read(); s != userSettings || st != userState {
		t.Fatalf("the dry run changed the files:\n%s\n%s", s, st)
	}

	// The install merges: kg's hooks and server added, the rest kept.
	if code, out, errOut = runKG(t, env, "install", "claude-code"); code != 0 {
		t.Fatalf("install: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "Installed.") {
		t.Errorf("install says:\n%s", out)
	}
	// The user's keys keep their order (kg's are added after them).
	if _, st := read(); !(strings.Index(st, `"numStartups"`) < strings.Index(st, `"mcpServers"`) &&
		strings.Index(st, `"mcpServers"`) < strings.Index(st, `"projects"`)) {
		t.Errorf("~/.claude.json's keys were reordered:\n%s", st)
	}
	got := decodeFile(t, settingsPath)
	if got["theme"] != "dark" || got["permissions"] == nil {
		t.Errorf("the user's settings were lost: %v", got)
	}
	hooks := got["hooks"].(map[string]any)
	post := hooks["PostToolUse"].([]any)
	if len(post) != 2 || post[0].(map[string]any)["matcher"] != "Edit" {
		t.Fatalf("PostToolUse: want the user's group then kg's: %v", post)
	}
	kgPost := post[1].(map[string]any)
	if kgPost["matcher"] != "Read|WebFetch|WebSearch|Edit|Write|MultiEdit|NotebookEdit" || kgPost["hooks"].([]any)[0].(map[string]any)["command"] != kgBin(t)+" hook tool-event" {
		t.Errorf("kg's PostToolUse group: %v", kgPost)
	}
	// The user's Stop hook, then kg's.
	if stop := hooks["Stop"].([]any); len(stop) != 2 || stop[1].(map[string]any)["hooks"].([]any)[0].(map[string]any)["command"] != kgBin(t)+" hook stop" {
		t.Errorf("Stop: want the user's group then kg's: %v", stop)
	}
	if len(hooks["SessionStart"].([]any)) != 1 || len(hooks["UserPromptSubmit"].([]any)) != 1 {
		t.Errorf("hooks: %v", hooks)
	}
	state := decodeFile(t, statePath)
	servers := state["mcpServers"].(map[string]any)
	if state["numStartups"] != float64(42) || state["projects"] == nil || servers["other"] == nil {
		t.Errorf("Claude Code's state lost the user's keys: %v", state)
	}
	if !reflect.DeepEqual(servers["kg"], map[string]any{"type": "stdio", "command": kgBin(t), "args": []any{"mcp"}}) {
		t.Errorf("mcpServers.kg = %v", servers["kg"])
	}
	if st, err := os.Stat(settingsPath); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("settings.json mode: %v %v, want it kept at 0644", st.Mode(), err)
	}

	// The hooks run this very binary, not whatever kg the PATH holds.
	sessionStart := hooks["SessionStart"].([]any)[0].(map[string]any)["hooks"].([]any)[0].(map[string]any)["command"].(string)
	if fields := strings.Fields(sessionStart); len(fields) != 3 || fields[0] != kgBin(t) {
		t.Errorf("SessionStart runs %q, want this kg", sessionStart)
	}

	// Again: nothing to change, nothing rewritten.
	s1, st1 := read()
	if code, out, _ = runKG(t, env, "install", "claude-code"); code != 0 || !strings.Contains(out, "nothing to change") {
		t.Errorf("second install: exit %d:\n%s", code, out)
	}
	if s2, st2 := read(); s2 != s1 || st2 != st1 {
		t.Error("a second install rewrote the files")
	}

	// --uninstall takes out exactly what install added.
	if code, out, errOut = runKG(t, env, "install", "claude-code", "--uninstall"); code != 0 {
		t.Fatalf("uninstall: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"remove hooks.SessionStart", "remove hooks.UserPromptSubmit", "remove hooks.PostToolUse", "remove hooks.Stop", "remove mcpServers.kg"} {
		if !strings.Contains(out, want) {
			t.Errorf("uninstall lacks %q:\n%s", want, out)
		}
	}
	var before map[string]any
	_ = json.Unmarshal([]byte(userSettings), &before)
	if got := decodeFile(t, settingsPath); !reflect.DeepEqual(got, before) {
		t.Errorf("settings after uninstall:\n%v\nwant the user's:\n%v", got, before)
	}
	before = nil
	_ = json.Unmarshal([]byte(userState), &before)
	if got := decodeFile(t, statePath); !reflect.DeepEqual(got, before) {
		t.Errorf("state after uninstall:\n%v\nwant the user's:\n%v", got, before)
	}
	if code, out, _ = runKG(t, env, "install", "claude-code", "--uninstall"); code != 0 || !strings.Contains(out, "nothing to change") {
		t.Errorf("second uninstall: exit %d:\n%s", code, out)
	}
}

// A fresh home: both files are created. A "kg" server the user wrote
// themselves is theirs: kept by install and by uninstall.
func TestInstallClaudeCodeFreshHomeAndTheUsersOwnServer(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := []string{"HOME=" + home, "KG_HTTP_PORT=9911"}
	if code, _, errOut := runKG(t, env, "install", "claude-code"); code != 0 {
		t.Fatalf("install: exit %d: %s", code, errOut)
	}
	if hooks := decodeFile(t, filepath.Join(home, ".claude", "settings.json"))["hooks"].(map[string]any); len(hooks) != 4 {
		t.Errorf("hooks: %v", hooks)
	}
	if kg := decodeFile(t, filepath.Join(home, ".claude.json"))["mcpServers"].(map[string]any)["kg"].(map[string]any); !reflect.DeepEqual(kg["args"], []any{"mcp", "--port=9911"}) {
		t.Errorf("mcpServers.kg follows the configured port: %v", kg)
	}

	own := `{"mcpServers": {"kg": {"type": "http", "url": "http://my-host:8765/", "headers": {"Authorization": "Bearer x"}}}}`
	statePath := filepath.Join(home, ".claude.json")
	if err := os.WriteFile(statePath, []byte(own), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"install", "claude-code"}, {"install", "claude-code", "--uninstall"}} {
		code, out, errOut := runKG(t, env, args...)
		if code != 0 || !strings.Contains(out, "kept mcpServers.kg") {
			t.Errorf("%v: exit %d: %s%s", args, code, out, errOut)
		}
		if b, _ := os.ReadFile(statePath); string(b) != own {
			t.Errorf("%v changed the user's own kg server: %s", args, b)
		}
	}
}

// A settings file that is not JSON stops the install before anything is
// written, naming the file.
func TestInstallClaudeCodeRefusesADamagedFile(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	settingsPath := filepath.Join(home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settingsPath), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settingsPath, []byte(`{"hooks": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runKG(t, []string{"HOME=" + home}, "install", "claude-code")
	if code == 0 || !strings.Contains(errOut, settingsPath) || !strings.Contains(errOut, "nothing was changed") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude.json")); !os.IsNotExist(err) {
		t.Errorf("~/.claude.json written after the refusal: %v", err)
	}
	if b, _ := os.ReadFile(settingsPath); string(b) != `{"hooks": [` {
		t.Errorf("the damaged file was changed: %s", b)
	}
}

// The plugin in integrations/claude-code holds the same hooks as kg install
// writes (with kg from the PATH), and the same server.
func TestClaudeCodePluginMatchesInstall(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "integrations", "claude-code")
	want := map[string]any{}
	install.AddClaudeHooks(want, "kg", install.NewTarget("", "kg").Owner)
	if got := decodeFile(t, filepath.Join(dir, "hooks", "hooks.json")); !install.JSONEqual(got, want) {
		t.Errorf("hooks/hooks.json:\n%s\nwant what kg install writes:\n%s", install.CompactJSON(got), install.CompactJSON(want))
	}
	mcp := decodeFile(t, filepath.Join(dir, ".mcp.json"))
	if !install.JSONEqual(mcp, map[string]any{"mcpServers": map[string]any{"kg": claudeMCPEntry("kg", config.Config{Host: "127.0.0.1", Port: 8765})}}) {
		t.Errorf(".mcp.json: %s", install.CompactJSON(mcp))
	}
	manifest := decodeFile(t, filepath.Join(dir, ".claude-plugin", "plugin.json"))
	if manifest["name"] != "kg" || manifest["version"] == nil || manifest["description"] == nil {
		t.Errorf("plugin.json: %v", manifest)
	}
}

// The Gemini CLI extension in integrations/gemini holds the hooks kg
// install gemini writes (with kg from the PATH) and its server, kg mcp; an
// extension cannot mark a server trusted, so its entry has no trust.
func TestGeminiExtensionMatchesInstall(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "integrations", "gemini")
	want := map[string]any{}
	install.AddAgentHooks(want, install.GeminiHooks, "kg", "gemini", install.NewTarget("", "kg").Owner, true)
	if got := decodeFile(t, filepath.Join(dir, "hooks", "hooks.json")); !install.JSONEqual(got, want) {
		t.Errorf("hooks/hooks.json:\n%s\nwant what kg install gemini writes:\n%s", install.CompactJSON(got), install.CompactJSON(want))
	}
	manifest := decodeFile(t, filepath.Join(dir, "gemini-extension.json"))
	if manifest["name"] != "kg" || manifest["version"] == nil || manifest["description"] == nil || manifest["hooks"] != nil {
		t.Errorf("gemini-extension.json: %v", manifest)
	}
	if !install.JSONEqual(manifest["mcpServers"], map[string]any{"kg": map[string]any{"command": "kg", "args": []any{"mcp"}}}) {
		t.Errorf("gemini-extension.json's mcpServers: %s", install.CompactJSON(manifest["mcpServers"]))
	}
}

// TestCodexPluginMatchesInstall: the plugin in integrations/codex runs the
// hooks kg install codex writes, `kg` taken from the PATH, and the same
// `kg mcp` server, its tools approved (integrations/codex/README.md).
func TestCodexPluginMatchesInstall(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "integrations", "codex")
	want := map[string]any{}
	install.AddAgentHooks(want, install.CodexHooks, "kg", "codex", install.NewTarget("", "kg").Owner, false)
	if got := decodeFile(t, filepath.Join(dir, "hooks", "hooks.json")); !install.JSONEqual(got, want) {
		t.Errorf("hooks/hooks.json:\n%s\nwant what kg install codex writes:\n%s", install.CompactJSON(got), install.CompactJSON(want))
	}
	manifest := decodeFile(t, filepath.Join(dir, ".codex-plugin", "plugin.json"))
	if manifest["name"] != "kg" || manifest["version"] == nil || manifest["description"] == nil ||
		manifest["hooks"] != "./hooks/hooks.json" || manifest["mcpServers"] != "./.mcp.json" {
		t.Errorf(".codex-plugin/plugin.json: %v", manifest)
	}
	servers := decodeFile(t, filepath.Join(dir, ".mcp.json"))["mcpServers"]
	// The entry of kg install codex: its tools called without asking, which
	// codex exec (approval policy never) otherwise refuses.
	wantServer := map[string]any{"command": "kg", "args": []any{"mcp"}, "default_tools_approval_mode": "approve"}
	if !install.JSONEqual(servers, map[string]any{"kg": wantServer}) {
		t.Errorf(".mcp.json's mcpServers: %s", install.CompactJSON(servers))
	}
	plugins, _ := decodeFile(t, filepath.Join(dir, ".agents", "plugins", "marketplace.json"))["plugins"].([]any)
	if len(plugins) != 1 || !install.JSONEqual(plugins[0].(map[string]any)["source"], map[string]any{"source": "local", "path": "./"}) {
		t.Errorf(".agents/plugins/marketplace.json lists %v, want the one plugin kg at ./", plugins)
	}
}

// The MCP entry an earlier kg install wrote (the server's URL, which gives
// no tools while no server runs: issue 30 item 4) is kg's: install
// replaces it with the stdio entry, and uninstall removes either, whatever
// the binary that wrote the stdio one is named.
func TestInstallClaudeCodeUpgradesTheHTTPEntry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, entry string }{
		{"the http entry", `{"type": "http", "url": "http://127.0.0.1:8765/"}`},
		{"a stdio entry of kg-v2", `{"type": "stdio", "command": "/opt/kg-v2", "args": ["mcp", "--port=8765"], "env": {}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			statePath := filepath.Join(home, ".claude.json")
			if err := os.WriteFile(statePath, []byte(`{"mcpServers": {"kg": `+tc.entry+`}}`), 0o600); err != nil {
				t.Fatal(err)
			}
			env := []string{"HOME=" + home}
			code, out, errOut := runKG(t, env, "install", "claude-code")
			if code != 0 || !strings.Contains(out, "update mcpServers.kg") {
				t.Fatalf("install: exit %d: %s%s", code, out, errOut)
			}
			want := map[string]any{"type": "stdio", "command": kgBin(t), "args": []any{"mcp"}}
			if got := decodeFile(t, statePath)["mcpServers"].(map[string]any)["kg"]; !reflect.DeepEqual(got, want) {
				t.Errorf("after install mcpServers.kg = %v, want %v", got, want)
			}
			if err := os.WriteFile(statePath, []byte(`{"mcpServers": {"kg": `+tc.entry+`}}`), 0o600); err != nil {
				t.Fatal(err)
			}
			code, out, errOut = runKG(t, env, "install", "claude-code", "--uninstall")
			if code != 0 || !strings.Contains(out, "remove mcpServers.kg") {
				t.Fatalf("uninstall: exit %d: %s%s", code, out, errOut)
			}
			if got := decodeFile(t, statePath); len(got) != 0 {
				t.Errorf("after uninstall ~/.claude.json holds %v, want nothing", got)
			}
		})
	}
}

// The MCP entry carries the token in its environment, never in its
// arguments (a command line other users can read), and the address install
// was configured with.
func TestInstallClaudeCodeEntryCarriesAddressAndToken(t *testing.T) {
	t.Parallel()
	entry := claudeMCPEntry("/bin/kg", config.Config{Host: "127.0.0.2", Port: 9000, AuthToken: "s3cret-token"})
	want := map[string]any{"type": "stdio", "command": "/bin/kg", "args": []any{"mcp", "--host=127.0.0.2", "--port=9000"},
		"env": map[string]any{"KG_AUTH_TOKEN": "s3cret-token"}}
	if !install.JSONEqual(entry, want) {
		t.Errorf("entry = %s, want %s", install.CompactJSON(entry), install.CompactJSON(want))
	}
}
