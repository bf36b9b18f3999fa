package rest_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The drop-in test (docs/design/hooks.md#drop-in): the hook scripts of the
// replaced server's plugin, as testdata/replaced-plugin stands them in —
// bash, curl and python3 reading Claude Code's hook input on stdin — run
// unmodified against a kg server, get a preload at session start and a
// relevant recall on a prompt.

// runPlugin runs one of the stand-in scripts with input on stdin and
// returns what it printed.
func (e *env) runPlugin(script, input string) string {
	e.t.Helper()
	cmd := exec.Command("bash", filepath.Join("testdata", "replaced-plugin", script))
	cmd.Env = append(os.Environ(), "KG_URL="+e.url)
	cmd.Stdin = strings.NewReader(input)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		e.t.Fatalf("%s: %v\n%s", script, err, stderr.String())
	}
	return out.String()
}

func hookContext(t *testing.T, out, event string) string {
	t.Helper()
	var v struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.HookSpecificOutput.HookEventName != event {
		t.Fatalf("printed %q; want a %s hook output (%v)", out, event, err)
	}
	return v.HookSpecificOutput.AdditionalContext
}

func TestReplacedPluginScriptsWorkUnchanged(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the replaced plugin needs %s: %v", tool, err)
		}
	}
	e := newEnv(t)
	e.fill(40)

	// Session start: the preload.
	ctx := hookContext(t, e.runPlugin("session-start.sh", e.hookInput("session-start-startup", "conv-1")), "SessionStart")
	if !strings.Contains(ctx, "token-refresh: the oauth token refresh races") || !strings.Contains(ctx, "session_id: ") {
		t.Fatalf("preload: %.600s", ctx)
	}
	// A second conversation whose context has none of it: it reads memory
	// first, then a prompt recalls what memory holds on its subject.
	e.put("project", e.session(e.proj), "refresh-jitter", "the oauth token refresh adds jitter so replicas do not race")
	if out := e.runPlugin("prompt.sh", e.hookInput("prompt-human", "conv-2")); !strings.Contains(hookContext(t, out, "UserPromptSubmit"), "kg_read") {
		t.Fatalf("first prompt of a conversation with no read: %q; want the nudge to kg_read", out)
	}
	hookContext(t, e.runPlugin("session-start.sh", e.hookInput("session-start-compact", "conv-2")), "SessionStart")
	e.put("project", e.session(e.proj), "refresh-timeout", "an oauth token refresh that races gives up after 5 s")
	recall := hookContext(t, e.runPlugin("prompt.sh", e.hookInput("prompt-human", "conv-2")), "UserPromptSubmit")
	if !strings.Contains(recall, "refresh-timeout: ") || strings.Contains(recall, "log-0") {
		t.Errorf("recall: %s", recall)
	}
	if out := e.runPlugin("prompt.sh", e.hookInput("prompt-notification", "conv-2")); strings.TrimSpace(out) != "{}" {
		t.Errorf("a notification prompt: %q; want {}", out)
	}
	// Resume: the continuity note, not the preload again.
	note := hookContext(t, e.runPlugin("session-start.sh", e.hookInput("session-start-resume", "conv-1")), "SessionStart")
	if !strings.Contains(note, "memory was preloaded earlier in this conversation") {
		t.Errorf("resume: %q", note)
	}
	// Tool events: a file read in two conversations, never mentioned.
	if out := e.runPlugin("tool-event.sh", e.hookInput("post-tool-use-read", "conv-1")); strings.TrimSpace(out) != "{}" {
		t.Errorf("first read: %q", out)
	}
	if n := hookContext(t, e.runPlugin("tool-event.sh", e.hookInput("post-tool-use-read", "conv-2")), "PostToolUse"); !strings.Contains(n, "internal/parse.go") {
		t.Errorf("second conversation's read: %q", n)
	}
}

func TestReplacedPluginPrintsNothingWhenNoServerAnswers(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip(err)
	}
	e := &env{t: t, url: "http://127.0.0.1:1", proj: t.TempDir()}
	for _, s := range []string{"session-start.sh", "prompt.sh", "tool-event.sh"} {
		if out := e.runPlugin(s, e.hookInput("session-start-startup", "c")); out != "" {
			t.Errorf("%s printed %q with no server", s, out)
		}
	}
}
