package clients

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Marks of what kg's hooks add to what the model receives (app/hooks:
// bootstrap.go, prompt.go, toolevent.go).
const (
	preloadMark = "kg memory preloaded. session_id:"
	recallMark  = "kg recall (session_id"
	nudgeMark   = "has been read in earlier conversations too"
)

// received is everything a request gives the model: the context and every
// tool result.
func received(ex exchange) string {
	return ex.Context + "\n" + strings.Join(ex.Results, "\n")
}

// seedBilling writes the node a related prompt recalls, then fillers
// newer than it: the preload shows the newest first, so at the smallest
// --preload-chars the fillers fill it and billing-retry is left for recall.
func seedBilling(w *world, fillers int) {
	w.t.Helper()
	session := sessionLine.FindStringSubmatch(w.callTool("kg_read", map[string]any{"cwd": w.project}))[1]
	w.callTool("kg_put_node", map[string]any{"session_id": session, "level": "project", "id": "billing-retry",
		"gist": "invoice retries back off exponentially on the billing queue"})
	for i := 0; i < fillers; i++ {
		w.callTool("kg_put_node", map[string]any{"session_id": session, "level": "project", "id": fmt.Sprintf("docs-theme-%03d", i),
			"gist": fmt.Sprintf("the documentation site renders with hugo palette variant %03d", i)})
	}
}

// TestClaudeCodeHooks: after `kg install claude-code`, the real Claude
// Code gives its model kg's preload at session start, a recall on a prompt
// about stored memory and none on an unrelated one, and a nudge once a file
// is read in a second conversation (docs/design/hooks.md).
func TestClaudeCodeHooks(t *testing.T) {
	needClients(t)
	w := newWorld(t)
	w.serve("--preload-chars", "1000")
	seedBilling(w, 30)
	w.kg("install", "claude-code")
	notes := filepath.Join(w.project, "NOTES.md")
	if err := os.WriteFile(notes, []byte("# Notes\nThe shop sends invoices nightly.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	readNotes := fixed("Read", map[string]any{"file_path": notes})

	related := newModelMock(t, anthropic{}, script(readNotes))
	if out, err := w.claude(related, "", "How do invoice retries back off on the billing queue?"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	first := related.Exchanges()[0]
	check(t, "claude-code", "nine tools offered", func() error { return offersKGTools(agents()[0], first) })
	check(t, "claude-code", "preload at session start", func() error {
		if !strings.Contains(first.Context, preloadMark) || !strings.Contains(first.Context, "docs-theme-029") {
			return fmt.Errorf("the first request holds no preload with the newest node docs-theme-029:\n%.3000s", first.Context)
		}
		return nil
	})
	check(t, "claude-code", "recall on a related prompt", func() error {
		if !strings.Contains(first.Context, recallMark) || !strings.Contains(first.Context, "billing-retry: invoice retries") {
			return fmt.Errorf("the first request recalls no billing-retry:\n%.3000s", first.Context)
		}
		return nil
	})

	unrelated := newModelMock(t, anthropic{}, script(readNotes))
	if out, err := w.claude(unrelated, "", "Please tidy up the whitespace in the markdown file."); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	check(t, "claude-code", "no recall on an unrelated prompt", func() error {
		if ctx := unrelated.Exchanges()[0].Context; strings.Contains(ctx, recallMark) {
			return fmt.Errorf("an unrelated prompt got a recall:\n%.3000s", ctx)
		}
		return nil
	})
	check(t, "claude-code", "tool-event nudge", func() error {
		if got := received(unrelated.Last(t)); !strings.Contains(got, nudgeMark) || !strings.Contains(got, "NOTES.md") {
			return fmt.Errorf("no nudge after NOTES.md was read in a second conversation:\n%.3000s", got)
		}
		return nil
	})
}

// TestClaudeCodePreloadFitsTheChannel: at --preload-chars 30000 the
// preload is over what Claude Code inlines (about 10,000 characters); the
// model must still get what kg counts as shown
// (docs/clients.md#the-real-client-harness, issue 30 item 2).
func TestClaudeCodePreloadFitsTheChannel(t *testing.T) {
	needClients(t)
	w := newWorld(t)
	// A kg that refuses the value, naming it, is a fix too: the checks then
	// hold at its default.
	if err := w.tryServe("--preload-chars", "30000"); err != nil {
		if !strings.Contains(err.Error(), "preload-chars") {
			t.Fatal(err)
		}
		t.Logf("kg refuses --preload-chars 30000: %v", err)
		w.serve()
	}
	seedBilling(w, 300) // about 24,000 characters: all in the preload, billing-retry last
	w.kg("install", "claude-code")
	mock := newModelMock(t, anthropic{}, script())
	if out, err := w.claude(mock, "", "How do invoice retries back off on the billing queue?"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	first := mock.Exchanges()[0]
	check(t, "claude-code", checkPreloadInlined, func() error {
		if !strings.Contains(first.Context, preloadMark) {
			return fmt.Errorf("the model got no preload header:\n%.3000s", first.Context)
		}
		if n := len(regexp.MustCompile(`docs-theme-\d{3}: `).FindAllString(first.Context, -1)); n < 60 { // a 2 KB preview holds about 25
			return fmt.Errorf("the model got %d preloaded nodes of 301, the rest in a file it sees as a preview", n)
		}
		return nil
	})
	check(t, "claude-code", checkRecallAfterBigPreload, func() error {
		if !strings.Contains(first.Context, "billing-retry: invoice retries") {
			return fmt.Errorf("the model got billing-retry neither in the preload nor in a recall (%d chars of context)", len(first.Context))
		}
		return nil
	})
}
