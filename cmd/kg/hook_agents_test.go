package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// agentHookInput is a golden hook input of Codex or Gemini CLI (as their
// documentation gives them) for conversation conv in project cwd.
func agentHookInput(t *testing.T, name, conv, cwd string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "hook-inputs", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.NewReplacer("@SESSION@", conv, "@CWD@", cwd, "@TRANSCRIPT@", filepath.Join(cwd, "t.json")).Replace(string(b))
}

// TestDetectAgent: without --agent, the input's shape names the agent.
func TestDetectAgent(t *testing.T) {
	cwd := "/work/app"
	for name, want := range map[string]hookAgent{
		"codex-session-start":      agentCodex,
		"codex-prompt":             agentCodex,
		"codex-post-tool-use-read": agentCodex,
		"gemini-session-start":     agentGemini,
		"gemini-prompt":            agentGemini,
		"gemini-after-tool-read":   agentGemini,
		"../../../../adapters/http/rest/testdata/hook-inputs/session-start-startup": agentClaudeCode,
		"../../../../adapters/http/rest/testdata/hook-inputs/prompt-human":          agentClaudeCode,
		"../../../../adapters/http/rest/testdata/hook-inputs/post-tool-use-read":    agentClaudeCode,
	} {
		var in agentInput
		if err := json.Unmarshal([]byte(agentHookInput(t, name, "c1", cwd)), &in); err != nil {
			t.Fatal(err)
		}
		if got := detectAgent(in); got != want {
			t.Errorf("%s: detected %s, want %s", filepath.Base(name), got, want)
		}
	}
}

// TestRouteBodyOfAgentTools: a file read through Codex's shell or Gemini
// CLI's read_file is counted as Claude Code's Read of that file; a command
// that does more than read one file is not a read.
func TestRouteBodyOfAgentTools(t *testing.T) {
	cwd := t.TempDir()
	for _, f := range []string{"a.go", "b.go"} {
		if err := os.WriteFile(filepath.Join(cwd, f), []byte("package a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := filepath.Join(cwd, "a.go")
	for _, tc := range []struct {
		agent     hookAgent
		tool      string
		input     string
		wantTool  string
		wantInput toolInput
	}{
		{agentCodex, "Bash", `{"command":"cat a.go"}`, "Read", toolInput{FilePath: a}},
		{agentCodex, "Bash", `{"command":"sed -n '1,80p' a.go"}`, "Read", toolInput{FilePath: a}},
		{agentCodex, "Bash", `{"command":"bash -lc 'nl -ba ` + a + `'"}`, "Read", toolInput{FilePath: a}},
		{agentCodex, "Bash", `{"command":"cat a.go b.go"}`, "Bash", toolInput{}},
		{agentCodex, "Bash", `{"command":"cat a.go | wc -l"}`, "Bash", toolInput{}},
		{agentCodex, "Bash", `{"command":"cat a.go > c.go"}`, "Bash", toolInput{}},
		{agentCodex, "Bash", `{"command":"rm a.go"}`, "Bash", toolInput{}},
		{agentCodex, "Bash", `{"command":"cat $(ls)"}`, "Bash", toolInput{}},
		{agentGemini, "read_file", `{"file_path":"a.go"}`, "Read", toolInput{FilePath: a}},
		{agentGemini, "read_file", `{"file_path":"` + a + `"}`, "Read", toolInput{FilePath: a}},
		{agentGemini, "web_fetch", `{"prompt":"summarise https://go.dev/doc/faq please"}`, "WebFetch", toolInput{URL: "https://go.dev/doc/faq"}},
		{agentGemini, "google_web_search", `{"query":"bbolt freelist"}`, "WebSearch", toolInput{Query: "bbolt freelist"}},
		{agentClaudeCode, "Read", `{"file_path":"` + a + `"}`, "Read", toolInput{FilePath: a}},
	} {
		b := routeBodyOf(tc.agent, agentInput{SessionID: "s", CWD: cwd, ToolName: tc.tool, ToolInput: json.RawMessage(tc.input)})
		if b.ToolName != tc.wantTool || b.ToolInput != tc.wantInput || b.SessionID != "s" || b.CWD != cwd {
			t.Errorf("%s %s %s: %+v; want %s %+v", tc.agent, tc.tool, tc.input, b, tc.wantTool, tc.wantInput)
		}
	}
}

// TestGeminiPromptWithoutItsHookContext: Gemini CLI without a terminal
// puts the session start's context in front of the first prompt; recall
// searches what the person asked, not kg's own preload.
func TestGeminiPromptWithoutItsHookContext(t *testing.T) {
	in := agentInput{Prompt: "<hook_context>kg memory preloaded.\n  docs-theme-029: hugo</hook_context>\n\nHow do invoice retries back off?"}
	if got := routeBodyOf(agentGemini, in).Prompt; got != "How do invoice retries back off?" {
		t.Errorf("prompt %q", got)
	}
}

// TestHookForCodexAndGemini: kg hook reads Codex's and Gemini CLI's hook
// inputs and prints each one's output through a real server: the preload
// at session start, recall on a prompt, the nudge on a file read in a
// second conversation — named by each agent's own events
// (docs/clients.md#what-each-agent-supports).
func TestHookForCodexAndGemini(t *testing.T) {
	root := t.TempDir()
	s := startKG(t, "json", root)
	for _, tc := range []struct {
		agent                        hookAgent
		start, prompt, read          string
		startEvent, promptEv, toolEv string
	}{
		{agentCodex, "codex-session-start", "codex-prompt", "codex-post-tool-use-read", "SessionStart", "UserPromptSubmit", "PostToolUse"},
		{agentGemini, "gemini-session-start", "gemini-prompt", "gemini-after-tool-read", "SessionStart", "BeforeAgent", "AfterTool"},
	} {
		t.Run(string(tc.agent), func(t *testing.T) {
			proj := projectDir(t, "app")
			if err := os.MkdirAll(filepath.Join(proj, "internal"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(proj, "internal", "parse.go"), []byte("package internal\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			w := s.session(proj)
			s.putNode(w, "user", "review-style", "reviews ask why before how", nil)
			s.putNode(w, "project", "token-refresh", "the oauth token refresh races when two requests refresh at once", nil)
			s.putNode(w, "project", "cache-key", "the build cache key hashes the lockfile", nil)
			agent := "--agent=" + string(tc.agent)

			code, out, _ := runHookCmd(t, root, "session-start", agentHookInput(t, tc.start, "c1", proj), agent)
			h := decodeHook(t, out, tc.startEvent)
			if code != 0 || !strings.Contains(h.HookSpecificOutput.AdditionalContext, "token-refresh: the oauth token refresh races") ||
				h.SystemMessage != "kg memory preloaded: 1 user + 2 project nodes" {
				t.Fatalf("session start: %d %s", code, out)
			}
			// Told by the input's shape, without --agent: the same.
			_, out, _ = runHookCmd(t, root, "session-start", agentHookInput(t, tc.start, "c2", proj))
			decodeHook(t, out, tc.startEvent)

			s.putNode(w, "project", "refresh-lock", "one oauth token refresh per process: the refresh takes a lock", nil)
			_, out, _ = runHookCmd(t, root, "prompt", agentHookInput(t, tc.prompt, "c1", proj), agent)
			if r := decodeHook(t, out, tc.promptEv); !strings.Contains(r.HookSpecificOutput.AdditionalContext, "refresh-lock: ") {
				t.Errorf("recall: %s", out)
			}

			if _, out, _ := runHookCmd(t, root, "tool-event", agentHookInput(t, tc.read, "c1", proj), agent); out != "" {
				t.Errorf("a file read in one conversation: %q; want nothing", out)
			}
			_, out, _ = runHookCmd(t, root, "tool-event", agentHookInput(t, tc.read, "c2", proj), agent)
			if r := decodeHook(t, out, tc.toolEv); !strings.Contains(r.HookSpecificOutput.AdditionalContext, "internal/parse.go") {
				t.Errorf("tool event: %s", out)
			}
		})
	}
	if code, out, errOut := runHookCmd(t, root, "prompt", "{}", "--agent=cursor"); code != 0 || out != "" || !strings.Contains(errOut, "--agent") {
		t.Errorf("unknown agent: %d %q %q; want exit 0, silence, and the flag named on stderr", code, out, errOut)
	}
}
