package clients

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// codex runs `codex exec prompt` in the project against the mock, with a
// CODEX_HOME whose config.toml names the mock as the model provider (wire
// API "responses") and kg at mcpURL as the MCP server.
func (w *world) codex(mock *modelMock, mcpURL, prompt string) (string, error) {
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

[mcp_servers.kg]
url = "%s"
default_tools_approval_mode = "approve"
`, mock.URL, mcpURL)
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o644); err != nil {
		return "", err
	}
	return w.run(context.Background(), 2*time.Minute, w.project,
		[]string{"CODEX_HOME=" + codexHome, "KG_E2E_MOCK_KEY=mock-not-a-real-key"},
		nodeBin(w.t), codexJS(w.t), "exec", "--skip-git-repo-check", prompt)
}

func TestCodexProbe(t *testing.T) {
	needClients(t)
	w := newWorld(t)
	w.serve()
	proxy := newMCPProxy(t, w.kgURL())
	mock := newModelMock(t, openaiResponses{}, script(fixed("mcp__kg/kg_read", map[string]any{"cwd": w.project})))
	out, err := w.codex(mock, proxy.URL, "What do we know about this project?")
	t.Logf("out: %s err: %v", out, err)

	for _, c := range proxy.Calls() {
		t.Logf("kg: %s text=%d structured=%d", c.Tool, len(c.Text), len(c.Structured))
	}
	for _, ex := range mock.Exchanges() {
		t.Logf("tools=%d results=%q", len(ex.Tools), ex.Results)
	}
}
