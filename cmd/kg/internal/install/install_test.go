package install

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCodexHookHash: the hash kg writes as a hook's trust is the one Codex
// computes for it. The golden values are what Codex 0.171's own app server
// (`codex app-server`, method hooks/list, field currentHash) reported for
// these hooks, with trustStatus "trusted" for the records kg wrote.
func TestCodexHookHash(t *testing.T) {
	for _, tc := range []struct {
		event, matcher, command string
		timeout                 int
		want                    string
	}{
		{"SessionStart", "", "/tmp/a-agents-kg hook session-start --agent codex", 5, "sha256:702a981f669c174dce3a896720595cf7fe1a74baac932f53e5cfe6dd94bdc552"},
		{"UserPromptSubmit", "", "/tmp/a-agents-kg hook prompt --agent codex", 2, "sha256:4908d01aef5b4a7efdef017503313895aa39d79479a6f69f8a0410d41027aa63"},
		{"PostToolUse", "Bash", "/tmp/a-agents-kg hook tool-event --agent codex", 2, "sha256:fe3a7b45062b18679ffa072ecf939996522f8dc6cde1f240dcc3315f9c77ba8a"},
	} {
		if got := CodexHookHash(tc.event, tc.matcher, tc.command, tc.timeout); got != tc.want {
			t.Errorf("%s %q: %s, want %s", tc.event, tc.command, got, tc.want)
		}
	}
}

// kg's own hooks are told from the user's whatever the kg binary is named:
// an executable named kg-something, or the very file install writes, running
// the hook of that event (issue 30 item 3: kg-v2 and kg.exe were the user's).
func TestHookOwnerKnowsKGsHooks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	self := filepath.Join(dir, "memory")
	if err := os.WriteFile(self, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	renamed := filepath.Join(dir, "my memory")
	if err := os.Link(self, renamed); err != nil {
		t.Fatal(err)
	}
	owner := HookOwner{KGExecutable{self: self}}
	for _, tc := range []struct {
		cmd, arg string
		want     bool
	}{
		{"kg hook prompt", "prompt", true},
		{"/usr/local/bin/kg hook session-start", "session-start", true},
		{"'/home/a b/kg' hook tool-event", "tool-event", true},
		{"kg hook prompt --debug", "prompt", true},
		{"/opt/kg-v2 hook prompt", "prompt", true},
		{"'/mnt/c/tools/kg.exe' hook prompt", "prompt", true},
		{"/bin/kgx hook prompt", "prompt", true},
		{self + " hook prompt", "prompt", true},
		{ShellQuote(renamed) + " hook session-start", "session-start", true},
		{"'/it'\\''s/kg' hook prompt", "prompt", true},
		{"notkg hook prompt", "prompt", false},
		{"/usr/bin/memory hook prompt", "prompt", false},
		{"kg hook prompt", "session-start", false},
		{"kg hook other", "prompt", false},
		{"kg hooks prompt", "prompt", false},
		{"gofmt -w", "prompt", false},
	} {
		hook := map[string]any{"type": "command", "command": tc.cmd}
		if got := owner.owns(hook, tc.arg); got != tc.want {
			t.Errorf("%q under the %s hook: kg's = %v, want %v", tc.cmd, tc.arg, got, tc.want)
		}
	}
}
