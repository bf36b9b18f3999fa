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

// TestOneMemoryTheOtherWay: a node Claude Code writes is in the preload
// of Codex's and Gemini CLI's next sessions, through the hooks kg install
// codex and kg install gemini set up (docs/clients.md#what-each-agent-supports).
func TestOneMemoryTheOtherWay(t *testing.T) {
	needClients(t)
	w := newWorld(t)
	w.serve()
	claude := agents()[0]
	writer := newModelMock(t, claude.proto, script(
		fixed(claude.tool("kg_read"), map[string]any{"cwd": w.project}),
		withSession(claude.tool("kg_put_node"), map[string]any{"level": "project", "id": "schema-freeze",
			"gist": "the orders table schema is frozen until the migration to v2 lands"}),
	))
	if out, err := w.claude(writer, w.kgURL(), "Remember that the orders schema is frozen."); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, tc := range agentHookCases() {
		t.Run(tc.agent.name, func(t *testing.T) {
			w.kg("install", tc.agent.name)
			reader := newModelMock(t, tc.agent.proto, script())
			if out, err := tc.run(w, reader, "Can I add a column to orders?"); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			check(t, tc.agent.name, "a write through Claude Code in the preload", func() error {
				if ctx := reader.Exchanges()[0].Context; !strings.Contains(ctx, "schema-freeze: the orders table schema is frozen") {
					return fmt.Errorf("%s's preload lacks Claude Code's schema-freeze:\n%.3000s", tc.agent.name, ctx)
				}
				return nil
			})
		})
	}
}
