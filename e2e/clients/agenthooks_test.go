package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// codexInstalled runs codex exec on prompt with the settings kg install
// codex wrote in ~/.codex, the mock named as the model provider in front of
// them (top-level keys and a table of the harness's own).
func (w *world) codexInstalled(mock *modelMock, prompt string) (string, error) {
	return w.codexInstalledWith(mock, prompt)
}

// codexInstalledWith is codexInstalled with extra flags of codex exec.
func (w *world) codexInstalledWith(mock *modelMock, prompt string, flags ...string) (string, error) {
	codexHome := filepath.Join(w.home, ".codex")
	path := filepath.Join(codexHome, "config.toml")
	installed, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	provider := fmt.Sprintf(`model = "gpt-mock"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "workspace-write"

[model_providers.mock]
name = "kg e2e mock"
base_url = "%s/v1"
wire_api = "responses"
env_key = "KG_E2E_MOCK_KEY"
request_max_retries = 0
stream_max_retries = 0

`, mock.URL)
	if err := os.WriteFile(path, append([]byte(provider), installed...), 0o600); err != nil {
		return "", err
	}
	defer func() { _ = os.WriteFile(path, installed, 0o600) }() // the install's own file again
	return w.run(w.t.Context(), cliLimit, w.project,
		[]string{"CODEX_HOME=" + codexHome, "KG_E2E_MOCK_KEY=" + mockKey},
		nodeBin(w.t), append(append([]string{codexJS(w.t), "exec", "--skip-git-repo-check"}, flags...), prompt)...)
}

// geminiInstalled runs gemini -p prompt with the settings kg install gemini
// wrote, the harness's own (the key, no telemetry, no updates) merged in.
func (w *world) geminiInstalled(mock *modelMock, prompt string) (string, error) {
	path := filepath.Join(w.home, ".gemini", "settings.json")
	installed, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var settings map[string]any
	if err := json.Unmarshal(installed, &settings); err != nil {
		return "", err
	}
	settings["security"] = map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}}
	settings["privacy"] = map[string]any{"usageStatisticsEnabled": false}
	settings["telemetry"] = map[string]any{"enabled": false}
	settings["general"] = map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true}
	if err := os.WriteFile(path, []byte(mustJSON(settings)), 0o600); err != nil {
		return "", err
	}
	defer func() { _ = os.WriteFile(path, installed, 0o600) }()
	return w.run(w.t.Context(), cliLimit, w.project,
		[]string{"GOOGLE_GEMINI_BASE_URL=" + mock.URL, "GEMINI_API_KEY=" + mockKey, "GEMINI_CLI_TRUST_WORKSPACE=true"},
		nodeBin(w.t), geminiJS(w.t), "--model", "gemini-2.5-flash", "--approval-mode", "yolo", "-p", prompt)
}

// agentHookCase is how one agent's hooks are driven: its runner on the
// installed settings, and the tool call that reads a file.
type agentHookCase struct {
	agent agent
	run   func(w *world, mock *modelMock, prompt string) (string, error)
	read  func(path string) step
}

func agentHookCases() []agentHookCase {
	all := agents()
	return []agentHookCase{
		{all[1], (*world).codexInstalled, func(p string) step {
			return fixed("exec_command", map[string]any{"cmd": "cat " + filepath.Base(p)})
		}},
		{all[2], (*world).geminiInstalled, func(p string) step {
			return fixed("read_file", map[string]any{"file_path": p})
		}},
	}
}

// TestAgentHooks: after `kg install codex` and `kg install gemini`, the
// real Codex and Gemini CLI give their model kg's preload at session
// start, a recall on a prompt about stored memory and none on an unrelated
// one, and a nudge once a file is read in a second conversation — what
// Claude Code gets (docs/clients.md#what-each-agent-supports).
func TestAgentHooks(t *testing.T) {
	needClients(t)
	for _, tc := range agentHookCases() {
		t.Run(tc.agent.name, func(t *testing.T) {
			w := newWorld(t)
			w.serve("--preload-chars", "1000")
			seedBilling(w, 30)
			w.kg("install", tc.agent.name)
			notes := filepath.Join(w.project, "NOTES.md")
			if err := os.WriteFile(notes, []byte("# Notes\nThe shop sends invoices nightly.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			related := newModelMock(t, tc.agent.proto, script(tc.read(notes)))
			if out, err := tc.run(w, related, "How do invoice retries back off on the billing queue?"); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			first := related.Exchanges()[0]
			check(t, tc.agent.name, "installed: nine tools offered", func() error { return offersKGTools(tc.agent, first) })
			check(t, tc.agent.name, "preload at session start", func() error {
				if !strings.Contains(first.Context, preloadMark) || !strings.Contains(first.Context, "docs-theme-029") {
					return fmt.Errorf("the first request holds no preload with the newest node docs-theme-029:\n%.3000s", first.Context)
				}
				return nil
			})
			check(t, tc.agent.name, "recall on a related prompt", func() error {
				if !strings.Contains(first.Context, recallMark) || !strings.Contains(first.Context, "billing-retry: invoice retries") {
					return fmt.Errorf("the first request recalls no billing-retry:\n%.3000s", first.Context)
				}
				return nil
			})
			unrelated := newModelMock(t, tc.agent.proto, script(tc.read(notes)))
			if out, err := tc.run(w, unrelated, "Please tidy up the whitespace in the markdown file."); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			check(t, tc.agent.name, "no recall on an unrelated prompt", func() error {
				if ctx := unrelated.Exchanges()[0].Context; strings.Contains(ctx, recallMark) {
					return fmt.Errorf("an unrelated prompt got a recall:\n%.3000s", ctx)
				}
				return nil
			})
			check(t, tc.agent.name, "tool-event nudge", func() error {
				if got := received(unrelated.Last(t)); !strings.Contains(got, nudgeMark) || !strings.Contains(got, "NOTES.md") {
					return fmt.Errorf("no nudge after NOTES.md was read in a second conversation:\n%.3000s", got)
				}
				return nil
			})
		})
	}
}

// TestAgentInstall: kg install codex and kg install gemini keep the
// user's settings, a second install changes nothing, and --uninstall gives
// the files back as they were.
func TestAgentInstall(t *testing.T) {
	needClients(t)
	for _, tc := range []struct {
		agent string
		files map[string]string
	}{
		{"codex", map[string]string{
			filepath.Join(".codex", "config.toml"): "model = \"o3\"\n\n[mcp_servers.other]\nurl = \"http://127.0.0.1:9/\"\n",
			filepath.Join(".codex", "hooks.json"):  `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo done"}]}]}}`,
		}},
		{"gemini", map[string]string{
			filepath.Join(".gemini", "settings.json"): `{"general":{"vimMode":true},"mcpServers":{"other":{"command":"other-mcp"}}}`,
		}},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			w := newWorld(t)
			snapshot := func() string {
				var b bytes.Buffer
				for _, name := range slices.Sorted(maps.Keys(tc.files)) { // one order, run to run
					data, err := os.ReadFile(filepath.Join(w.home, name))
					if err != nil && !errors.Is(err, os.ErrNotExist) {
						t.Fatal(err)
					}
					if strings.HasSuffix(name, ".json") && len(data) > 0 {
						var c bytes.Buffer
						if err := json.Compact(&c, data); err != nil {
							t.Fatal(err)
						}
						data = c.Bytes()
					}
					fmt.Fprintf(&b, "--- %s\n%s\n", name, data)
				}
				return b.String()
			}
			for name, text := range tc.files {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(w.home, name)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(w.home, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			before := snapshot()
			w.kg("install", tc.agent)
			installed := snapshot()
			check(t, tc.agent, "install adds kg and keeps the user's settings", func() error {
				for _, want := range []string{"hook session-start --agent " + tc.agent, "other", `"mcp"`} {
					if !strings.Contains(installed, want) {
						return fmt.Errorf("after install, no %s in\n%s", want, installed)
					}
				}
				return nil
			})
			w.kg("install", tc.agent)
			check(t, tc.agent, "install twice", func() error {
				if again := snapshot(); again != installed {
					return fmt.Errorf("a second install changed the settings:\n%s\nafter the first:\n%s", again, installed)
				}
				return nil
			})
			w.kg("install", tc.agent, "--uninstall")
			check(t, tc.agent, "uninstall restores the settings", func() error {
				if after := snapshot(); after != before {
					return fmt.Errorf("after uninstall:\n%s\nbefore install:\n%s", after, before)
				}
				return nil
			})
		})
	}
}
