package clients

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gemini runs `gemini -p prompt` in the project against the mock, with kg
// at mcpURL in ~/.gemini/settings.json and every tool call allowed (yolo).
func (w *world) gemini(mock *modelMock, mcpURL, prompt string) (string, error) {
	dir := filepath.Join(w.home, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	settings := map[string]any{
		"mcpServers": map[string]any{"kg": map[string]any{"httpUrl": mcpURL, "trust": true}},
		"security":   map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"privacy":    map[string]any{"usageStatisticsEnabled": false},
		"telemetry":  map[string]any{"enabled": false},
		"general":    map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(mustJSON(settings)), 0o644); err != nil {
		return "", err
	}
	return w.run(context.Background(), 2*time.Minute, w.project,
		[]string{"GOOGLE_GEMINI_BASE_URL=" + mock.URL, "GEMINI_API_KEY=mock-not-a-real-key", "GEMINI_CLI_TRUST_WORKSPACE=true"},
		nodeBin(w.t), geminiJS(w.t), "--model", "gemini-2.5-flash", "--approval-mode", "yolo", "-p", prompt)
}

func TestGeminiProbe(t *testing.T) {
	needClients(t)
	w := newWorld(t)
	w.serve()
	proxy := newMCPProxy(t, w.kgURL())
	mock := newModelMock(t, gemini{}, script(fixed("mcp_kg_kg_read", map[string]any{"cwd": w.project})))
	out, err := w.gemini(mock, proxy.URL, "What do we know about this project?")
	t.Logf("out: %s err: %v", out, err)
	for _, l := range strings.Split(mock.Raw(), "\n") {
		if strings.HasPrefix(l, "POST") {
			t.Log(l)
		}
	}
	for _, c := range proxy.Calls() {
		t.Logf("kg: %s text=%d structured=%d", c.Tool, len(c.Text), len(c.Structured))
	}
	for _, ex := range mock.Exchanges() {
		t.Logf("tools=%d results=%q", len(ex.Tools), ex.Results)
	}
}
