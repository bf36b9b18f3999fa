package clients

import (
	"context"
	"strings"
	"testing"
	"time"
)

// kgTools are kg's nine MCP tools (docs/design/mcp.md).
var kgTools = []string{"kg_read", "kg_search", "kg_put_node", "kg_put_edge", "kg_delete_node", "kg_delete_edge", "kg_useful", "kg_progress", "kg_sync"}

// claudeTool is the name Claude Code gives an MCP tool of server kg.
func claudeTool(tool string) string { return "mcp__kg__" + tool }

func claudeAllowed() string {
	names := []string{"Read"}
	for _, tool := range kgTools {
		names = append(names, claudeTool(tool))
	}
	return strings.Join(names, ",")
}

// claude runs `claude -p prompt` in the project against the mock; mcpURL,
// when set, is the only MCP server (else the user settings', as kg install
// wrote them).
func (w *world) claude(mock *modelMock, mcpURL, prompt string) (string, error) {
	args := []string{"-p", prompt, "--output-format", "text", "--allowedTools", claudeAllowed()}
	if mcpURL != "" {
		args = append(args, "--strict-mcp-config", "--mcp-config", mustJSON(map[string]any{
			"mcpServers": map[string]any{"kg": map[string]any{"type": "http", "url": mcpURL}},
		}))
	}
	return w.run(context.Background(), 2*time.Minute, w.project,
		[]string{"ANTHROPIC_BASE_URL=" + mock.URL, "ANTHROPIC_API_KEY=sk-ant-mock-not-a-real-key"},
		claudeBin(w.t), args...)
}

func TestClaudeProbe(t *testing.T) {
	needClients(t)
	w := newWorld(t)
	w.serve()
	proxy := newMCPProxy(t, w.kgURL())
	mock := newModelMock(t, anthropic{}, script(fixed(claudeTool("kg_read"), map[string]any{"cwd": w.project})))
	out, err := w.claude(mock, proxy.URL, "What do we know about this project?")
	t.Logf("out: %s err: %v", out, err)
	t.Logf("raw: %s", mock.Raw())
	for _, c := range proxy.Calls() {
		t.Logf("kg: %s text=%d structured=%d", c.Tool, len(c.Text), len(c.Structured))
	}
	for _, ex := range mock.Exchanges() {
		t.Logf("tools=%d results=%q", len(ex.Tools), ex.Results)
	}
}
