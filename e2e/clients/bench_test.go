package clients

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkClaudeCodeHooks measures the time kg's hooks add to Claude
// Code's start and to a prompt (docs/performance.md#real-agents): the time
// from starting `claude -p` to its first request to the model mock with the
// prompt, median
// of 10 runs each with no kg hook, with only the SessionStart hook and with
// only the UserPromptSubmit hook, the runs interleaved. The server runs
// already (a hook that starts one is a first start, not the common case).
//
//	go test -run '^$' -bench ClaudeCodeHooks -benchtime 1x ./e2e/clients -args -clients
func BenchmarkClaudeCodeHooks(b *testing.B) {
	needClients(b)
	w := newWorld(b)
	w.serve()
	seedBilling(w, 30)
	w.kg("install", "claude-code")
	settingsPath := filepath.Join(w.home, ".claude", "settings.json")
	installed, err := os.ReadFile(settingsPath)
	if err != nil {
		b.Fatal(err)
	}
	variants := map[string][]byte{
		"none":   onlyHook(b, installed, ""),
		"start":  onlyHook(b, installed, "SessionStart"),
		"prompt": onlyHook(b, installed, "UserPromptSubmit"),
	}
	const runs = 10
	for i := 0; i < b.N; i++ {
		took := map[string][]time.Duration{}
		for r := 0; r < runs; r++ {
			for _, name := range []string{"none", "start", "prompt"} {
				if err := os.WriteFile(settingsPath, variants[name], 0o644); err != nil {
					b.Fatal(err)
				}
				took[name] = append(took[name], toFirstRequest(b, w))
			}
		}
		for _, name := range []string{"none", "start", "prompt"} {
			sorted := slices.Clone(took[name])
			slices.Sort(sorted)
			b.Logf("%-6s %v", name, sorted)
		}
		none := median(took["none"])
		b.ReportMetric(ms(none), "ms-to-first-request-no-hooks")
		b.ReportMetric(ms(median(took["start"])-none), "ms-added-by-session-start")
		b.ReportMetric(ms(median(took["prompt"])-none), "ms-added-by-prompt")
	}
}

// toFirstRequest runs claude -p once and returns the time from its start
// to its first request of the main loop (the one that carries the prompt,
// and so waits for the hooks); a side request may come before it.
func toFirstRequest(b *testing.B, w *world) time.Duration {
	b.Helper()
	mock := newModelMock(b, anthropic{}, script())
	start := time.Now()
	if out, err := w.claude(mock, "", "How do invoice retries back off on the billing queue?"); err != nil {
		b.Fatalf("%v\n%s", err, out)
	}
	ex := mock.Exchanges()
	if len(ex) == 0 {
		b.Fatalf("claude sent the model no request with the prompt; requests:\n%s", mock.Raw())
	}
	return ex[0].At.Sub(start)
}

// onlyHook is the settings kg install wrote with only the hooks of event
// ("": none).
func onlyHook(b testing.TB, settings []byte, event string) []byte {
	b.Helper()
	var s map[string]json.RawMessage
	if err := json.Unmarshal(settings, &s); err != nil {
		b.Fatal(err)
	}
	var hooks map[string]json.RawMessage
	if err := json.Unmarshal(s["hooks"], &hooks); err != nil {
		b.Fatal(err)
	}
	kept := map[string]json.RawMessage{}
	if event != "" {
		kept[event] = hooks[event]
	}
	s["hooks"] = json.RawMessage(mustJSON(kept))
	return []byte(mustJSON(s))
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkAgentHooks is BenchmarkClaudeCodeHooks for Codex and Gemini CLI
// (docs/performance.md#real-agents): `codex exec` and `gemini -p` after
// `kg install codex|gemini`, 10 runs each with no kg hook, with only the
// session start's and with only the prompt's (Codex's UserPromptSubmit,
// Gemini CLI's BeforeAgent), interleaved; the time from the start to the
// first request that carries the prompt, median with the hook minus median
// without.
//
//	go test -run '^$' -bench AgentHooks -benchtime 1x ./e2e/clients -args -clients
func BenchmarkAgentHooks(b *testing.B) {
	needClients(b)
	for _, tc := range []struct {
		agent  agent
		file   string // the hooks' file under HOME
		prompt string // the agent's prompt event
		run    func(w *world, mock *modelMock, prompt string) (string, error)
	}{
		{agents()[1], filepath.Join(".codex", "hooks.json"), "UserPromptSubmit", (*world).codexInstalled},
		{agents()[2], filepath.Join(".gemini", "settings.json"), "BeforeAgent", (*world).geminiInstalled},
	} {
		b.Run(tc.agent.name, func(b *testing.B) {
			w := newWorld(b)
			w.serve()
			seedBilling(w, 30)
			w.kg("install", tc.agent.name)
			path := filepath.Join(w.home, tc.file)
			installed, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			variants := map[string][]byte{
				"none":   onlyHook(b, installed, ""),
				"start":  onlyHook(b, installed, "SessionStart"),
				"prompt": onlyHook(b, installed, tc.prompt),
			}
			const runs = 10
			for i := 0; i < b.N; i++ {
				took := map[string][]time.Duration{}
				for r := 0; r < runs; r++ {
					for _, name := range []string{"none", "start", "prompt"} {
						if err := os.WriteFile(path, variants[name], 0o600); err != nil {
							b.Fatal(err)
						}
						mock := newModelMock(b, tc.agent.proto, script())
						start := time.Now()
						if out, err := tc.run(w, mock, "How do invoice retries back off on the billing queue?"); err != nil {
							b.Fatalf("%v\n%s", err, out)
						}
						ex := mock.Exchanges()
						if len(ex) == 0 {
							b.Fatalf("%s sent the model no request with the prompt", tc.agent.name)
						}
						took[name] = append(took[name], ex[0].At.Sub(start))
					}
				}
				for _, name := range []string{"none", "start", "prompt"} {
					sorted := slices.Clone(took[name])
					slices.Sort(sorted)
					b.Logf("%-6s %v", name, sorted)
				}
				none := median(took["none"])
				b.ReportMetric(ms(none), "ms-to-first-request-no-hooks")
				b.ReportMetric(ms(median(took["start"])-none), "ms-added-by-session-start")
				b.ReportMetric(ms(median(took["prompt"])-none), "ms-added-by-prompt")
			}
		})
	}
}
