package clients

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// kgTools are kg's nine MCP tools (docs/design/mcp.md).
var kgTools = []string{"kg_read", "kg_search", "kg_put_node", "kg_put_edge", "kg_delete_node", "kg_delete_edge", "kg_useful", "kg_progress", "kg_sync"}

// agent is one real CLI: how it names kg's tools to the model, its model
// API, and how a test runs it on one prompt.
type agent struct {
	name  string
	proto protocol
	// tool is the name the model is offered for a kg tool (and calls it by).
	tool func(kgTool string) string
	// run runs the CLI on prompt against the mock with kg at mcpURL as its
	// MCP server ("": the one the user settings hold).
	run func(w *world, mock *modelMock, mcpURL, prompt string) (string, error)
}

func agents() []agent {
	return []agent{
		{name: "claude-code", proto: anthropic{}, tool: func(n string) string { return "mcp__kg__" + n }, run: (*world).claude},
		// Codex groups MCP tools in a namespace, "mcp__kg" (the mock writes
		// it NAMESPACE/NAME, and a call names both).
		{name: "codex", proto: openaiResponses{}, tool: func(n string) string { return "mcp__kg/" + n }, run: (*world).codex},
		{name: "gemini", proto: gemini{}, tool: func(n string) string { return "mcp_kg_" + n }, run: (*world).gemini},
	}
}

// cliLimit bounds one CLI run; a run takes a few seconds.
const cliLimit = 2 * time.Minute

const mockKey = "mock-not-a-real-key"

// claude runs `claude -p prompt` in the project against the mock. Tools
// are allowed by name (--allowedTools): --dangerously-skip-permissions is
// refused to root, which CI may be.
func (w *world) claude(mock *modelMock, mcpURL, prompt string) (string, error) {
	allowed := []string{"Read"}
	for _, tool := range kgTools {
		allowed = append(allowed, "mcp__kg__"+tool)
	}
	args := []string{"-p", prompt, "--output-format", "text", "--allowedTools", strings.Join(allowed, ",")}
	if mcpURL != "" {
		args = append(args, "--strict-mcp-config", "--mcp-config", mustJSON(map[string]any{
			"mcpServers": map[string]any{"kg": map[string]any{"type": "http", "url": mcpURL}},
		}))
	}
	return w.run(w.t.Context(), cliLimit, w.project,
		[]string{"ANTHROPIC_BASE_URL=" + mock.URL, "ANTHROPIC_API_KEY=sk-ant-" + mockKey},
		claudeBin(w.t), args...)
}

// codex runs `codex exec prompt` in the project against the mock, with a
// CODEX_HOME whose config.toml names the mock as the model provider (wire
// API "responses") and kg at mcpURL, tools approved
// (default_tools_approval_mode: codex exec cannot ask).
func (w *world) codex(mock *modelMock, mcpURL, prompt string) (string, error) {
	return w.codexWith(mock, fmt.Sprintf("[mcp_servers.kg]\nurl = %q\ndefault_tools_approval_mode = \"approve\"\n", mcpURL), prompt)
}

// codexWith runs codex exec with servers as the config's MCP part.
func (w *world) codexWith(mock *modelMock, servers, prompt string) (string, error) {
	codexHome := filepath.Join(w.home, ".codex")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		return "", err
	}
	config := fmt.Sprintf(`model = "gpt-mock"
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

%s`, mock.URL, servers)
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o644); err != nil {
		return "", err
	}
	return w.run(w.t.Context(), cliLimit, w.project,
		[]string{"CODEX_HOME=" + codexHome, "KG_E2E_MOCK_KEY=" + mockKey},
		nodeBin(w.t), codexJS(w.t), "exec", "--skip-git-repo-check", prompt)
}

// gemini runs `gemini -p prompt` in the project against the mock, with kg
// at mcpURL in ~/.gemini/settings.json ("": no kg), every tool call allowed
// (yolo), the workspace trusted, and a model named, so that Gemini CLI's
// router asks the model nothing first.
func (w *world) gemini(mock *modelMock, mcpURL, prompt string) (string, error) {
	var servers map[string]any
	if mcpURL != "" {
		servers = map[string]any{"kg": map[string]any{"httpUrl": mcpURL, "trust": true}}
	}
	return w.geminiWith(mock, servers, prompt)
}

// geminiWith is gemini with servers as the settings' mcpServers.
func (w *world) geminiWith(mock *modelMock, servers map[string]any, prompt string) (string, error) {
	dir := filepath.Join(w.home, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	settings := map[string]any{
		"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
	}
	if servers != nil {
		settings["mcpServers"] = servers
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(mustJSON(settings)), 0o644); err != nil {
		return "", err
	}
	return w.run(w.t.Context(), cliLimit, w.project,
		[]string{"GOOGLE_GEMINI_BASE_URL=" + mock.URL, "GEMINI_API_KEY=" + mockKey, "GEMINI_CLI_TRUST_WORKSPACE=true"},
		nodeBin(w.t), geminiJS(w.t), "--model", "gemini-2.5-flash", "--approval-mode", "yolo", "-p", prompt)
}
