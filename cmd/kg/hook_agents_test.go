package main

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kg-memory/kg/cmd/kg/internal/hookagent"
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
	for name, want := range map[string]hookagent.Agent{
		"codex-session-start":             hookagent.Codex,
		"codex-prompt":                    hookagent.Codex,
		"codex-post-tool-use-read":        hookagent.Codex,
		"codex-post-tool-use-apply-patch": hookagent.Codex,
		"codex-stop":                      hookagent.Codex,
		"gemini-session-start":            hookagent.Gemini,
		"gemini-prompt":                   hookagent.Gemini,
		"gemini-after-tool-read":          hookagent.Gemini,
		"../../../../adapters/http/rest/testdata/hook-inputs/session-start-startup": hookagent.ClaudeCode,
		"../../../../adapters/http/rest/testdata/hook-inputs/prompt-human":          hookagent.ClaudeCode,
		"../../../../adapters/http/rest/testdata/hook-inputs/post-tool-use-read":    hookagent.ClaudeCode,
		"../../../../adapters/http/rest/testdata/hook-inputs/stop":                  hookagent.ClaudeCode,
	} {
		var in hookagent.Input
		if err := json.Unmarshal([]byte(agentHookInput(t, name, "c1", cwd)), &in); err != nil {
			t.Fatal(err)
		}
		if got := hookagent.Detect(in); got != want {
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
		agent     hookagent.Agent
		tool      string
		input     string
		wantTool  string
		wantInput hookagent.ToolInput
	}{
		{hookagent.Codex, "Bash", `{"command":"cat a.go"}`, "Read", hookagent.ToolInput{FilePath: a}},
		{hookagent.Codex, "Bash", `{"command":"sed -n '1,80p' a.go"}`, "Read", hookagent.ToolInput{FilePath: a}},
		{hookagent.Codex, "Bash", `{"command":"bash -lc 'nl -ba ` + a + `'"}`, "Read", hookagent.ToolInput{FilePath: a}},
		{hookagent.Codex, "Bash", `{"command":"cat a.go b.go"}`, "Bash", hookagent.ToolInput{}},
		{hookagent.Codex, "Bash", `{"command":"cat a.go | wc -l"}`, "Bash", hookagent.ToolInput{}},
		{hookagent.Codex, "Bash", `{"command":"cat a.go > c.go"}`, "Bash", hookagent.ToolInput{}},
		{hookagent.Codex, "Bash", `{"command":"rm a.go"}`, "Bash", hookagent.ToolInput{}},
		{hookagent.Codex, "Bash", `{"command":"cat $(ls)"}`, "Bash", hookagent.ToolInput{}},
		{hookagent.Codex, "apply_patch", `{"command":"*** Begin Patch\n*** Update File: a.go\n*** End Patch\n"}`, "Edit", hookagent.ToolInput{}},
		{hookagent.Gemini, "read_file", `{"file_path":"a.go"}`, "Read", hookagent.ToolInput{FilePath: a}},
		{hookagent.Gemini, "read_file", `{"file_path":"` + a + `"}`, "Read", hookagent.ToolInput{FilePath: a}},
		{hookagent.Gemini, "web_fetch", `{"prompt":"summarise https://go.dev/doc/faq please"}`, "WebFetch", hookagent.ToolInput{URL: "https://go.dev/doc/faq"}},
		{hookagent.Gemini, "google_web_search", `{"query":"bbolt freelist"}`, "WebSearch", hookagent.ToolInput{Query: "bbolt freelist"}},
		{hookagent.ClaudeCode, "Read", `{"file_path":"` + a + `"}`, "Read", hookagent.ToolInput{FilePath: a}},
	} {
		b := hookagent.RouteBodyOf(tc.agent, hookagent.Input{SessionID: "s", CWD: cwd, ToolName: tc.tool, ToolInput: json.RawMessage(tc.input)})
		if b.ToolName != tc.wantTool || b.ToolInput != tc.wantInput || b.SessionID != "s" || b.CWD != cwd {
			t.Errorf("%s %s %s: %+v; want %s %+v", tc.agent, tc.tool, tc.input, b, tc.wantTool, tc.wantInput)
		}
	}
}

// TestGeminiPromptWithoutItsHookContext: Gemini CLI without a terminal
// puts the session start's context in front of the first prompt; recall
// searches what the person asked, not kg's own preload.
func TestGeminiPromptWithoutItsHookContext(t *testing.T) {
	in := hookagent.Input{Prompt: "<hook_context>kg memory preloaded.\n  docs-theme-029: hugo</hook_context>\n\nHow do invoice retries back off?"}
	if got := hookagent.RouteBodyOf(hookagent.Gemini, in).Prompt; got != "How do invoice retries back off?" {
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
		agent                        hookagent.Agent
		start, prompt, read          string
		startEvent, promptEv, toolEv string
	}{
		{hookagent.Codex, "codex-session-start", "codex-prompt", "codex-post-tool-use-read", "SessionStart", "UserPromptSubmit", "PostToolUse"},
		{hookagent.Gemini, "gemini-session-start", "gemini-prompt", "gemini-after-tool-read", "SessionStart", "BeforeAgent", "AfterTool"},
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
			// The session keeps the agent, for the page to name it by.
			if got := lastSessionAgent(t, s, proj); got != string(tc.agent) {
				t.Errorf("the session started by the hook has agent %q, want %s", got, tc.agent)
			}
			// Told by the input's shape, without --agent: the same.
			_, out, _ = runHookCmd(t, root, "session-start", agentHookInput(t, tc.start, "c2", proj))
			decodeHook(t, out, tc.startEvent)
			if got := lastSessionAgent(t, s, proj); got != string(tc.agent) {
				t.Errorf("the session started by the hook without --agent has agent %q, want %s", got, tc.agent)
			}

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

// lastSessionAgent is the agent kg keeps for the last session of project
// proj (GET /api/session_state, then its stats).
func lastSessionAgent(t *testing.T, s *kgServer, proj string) string {
	t.Helper()
	var state struct {
		SessionID string `json:"session_id"`
	}
	_, raw := post(t, "GET", "http://"+s.Addr+"/api/session_state?project_path="+url.QueryEscape(proj), "", nil)
	if err := json.Unmarshal([]byte(raw), &state); err != nil || state.SessionID == "" {
		t.Fatalf("session state: %s", raw)
	}
	var stats struct {
		Agent string `json:"agent"`
	}
	_, raw = post(t, "GET", "http://"+s.Addr+"/api/sessions/"+state.SessionID+"/stats", "", nil)
	if err := json.Unmarshal([]byte(raw), &stats); err != nil {
		t.Fatalf("session stats: %s", raw)
	}
	return stats.Agent
}

// TestStopHookForCodex: Codex's PostToolUse of apply_patch is an edit, and
// its Stop after it, in a conversation that wrote nothing to kg, prints
// Codex's Stop output, {"decision":"block","reason":…}, once; the stop the
// block causes (stop_hook_active) and a conversation that wrote to kg
// print nothing (docs/design/hooks.md#capture-before-forgetting).
func TestStopHookForCodex(t *testing.T) {
	root := t.TempDir()
	s := startKG(t, "json", root)
	proj := projectDir(t, "app")
	runHookCmd(t, root, "session-start", agentHookInput(t, "codex-session-start", "c1", proj))
	runHookCmd(t, root, "tool-event", agentHookInput(t, "codex-post-tool-use-apply-patch", "c1", proj))
	code, out, _ := runHookCmd(t, root, "stop", agentHookInput(t, "codex-stop", "c1", proj))
	var stop map[string]any
	if err := json.Unmarshal([]byte(out), &stop); err != nil || code != 0 || stop["decision"] != "block" || len(stop) != 2 ||
		!strings.Contains(stop["reason"].(string), "kg_put_node") {
		t.Fatalf("a stop after apply_patch: %d %q; want {decision: block, reason}", code, out)
	}
	for _, name := range []string{"codex-stop-active", "codex-stop"} {
		if code, out, _ := runHookCmd(t, root, "stop", agentHookInput(t, name, "c1", proj), "--agent=codex"); code != 0 || out != "" {
			t.Errorf("%s after the request: %d %q; want nothing", name, code, out)
		}
	}

	// A conversation of another project that wrote to kg with its session.
	other := projectDir(t, "lib")
	_, out, _ = runHookCmd(t, root, "session-start", agentHookInput(t, "codex-session-start", "c2", other))
	sid := preloadSession.FindStringSubmatch(decodeHook(t, out, "SessionStart").HookSpecificOutput.AdditionalContext)
	if sid == nil {
		t.Fatalf("no session id in the preload %q", out)
	}
	runHookCmd(t, root, "tool-event", agentHookInput(t, "codex-post-tool-use-apply-patch", "c2", other))
	s.putNode(sid[1], "project", "parse-errors", "the parser names the line of each error", nil)
	if code, out, _ := runHookCmd(t, root, "stop", agentHookInput(t, "codex-stop", "c2", other)); code != 0 || out != "" {
		t.Errorf("a stop after a kg write: %d %q; want nothing", code, out)
	}
	// Gemini CLI has no stop that speaks to the model once: nothing.
	if code, out, _ := runHookCmd(t, root, "stop", agentHookInput(t, "codex-stop", "c3", proj), "--agent=gemini"); code != 0 || out != "" {
		t.Errorf("gemini stop: %d %q; want nothing", code, out)
	}
}

var preloadSession = regexp.MustCompile(`session_id: ([0-9a-f]+)`)
