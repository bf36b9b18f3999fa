package clients

import (
	"fmt"
	"strings"
	"testing"
)

// TestOneMemoryAcrossAgents: what one agent writes, the next session of
// another finds — a node Codex writes is in Claude Code's preload and in
// Gemini CLI's kg_read (docs/clients.md#the-real-client-harness).
func TestOneMemoryAcrossAgents(t *testing.T) {
	needClients(t)
	w := newWorld(t)
	w.serve()
	all := agents()
	claude, codex, gem := all[0], all[1], all[2]

	writer := newModelMock(t, codex.proto, script(
		fixed(codex.tool("kg_read"), map[string]any{"cwd": w.project}),
		withSession(codex.tool("kg_put_node"), map[string]any{"level": "project", "id": "deploy-freeze",
			"gist": "no deploys on fridays after 3pm: the on-call rotation changes then"}),
	))
	if out, err := w.codex(writer, w.kgURL(), "Remember that we never deploy late on fridays."); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}

	w.kg("install", "claude-code")
	preloaded := newModelMock(t, claude.proto, script())
	if out, err := w.claude(preloaded, "", "Can I ship this change now?"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	check(t, "claude-code", "a write through Codex in the preload", func() error {
		if ctx := preloaded.Exchanges()[0].Context; !strings.Contains(ctx, "deploy-freeze: no deploys on fridays") {
			return fmt.Errorf("Claude Code's preload lacks Codex's deploy-freeze:\n%.3000s", ctx)
		}
		return nil
	})

	reader := newModelMock(t, gem.proto, script(fixed(gem.tool("kg_read"), map[string]any{"cwd": w.project})))
	if out, err := w.gemini(reader, w.kgURL(), "Can I ship this change now?"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	check(t, "gemini", "a write through Codex in kg_read", func() error {
		if got := strings.Join(reader.Last(t).Results, "\n"); !strings.Contains(got, "deploy-freeze") {
			return fmt.Errorf("Gemini CLI's kg_read lacks Codex's deploy-freeze:\n%.3000s", got)
		}
		return nil
	})
}
