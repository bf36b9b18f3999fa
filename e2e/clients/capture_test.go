package clients

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// captureMark opens the capture request a stop hook sends
// (domain/render.CaptureRequest, docs/design/hooks.md#capture-before-forgetting).
const captureMark = "kg: before you stop"

// claudeAllowing is world.claude with the tools of allowed usable without a
// prompt too (Claude Code's -p asks for none), resuming the conversation
// resume when it is not "".
func (w *world) claudeAllowing(mock *modelMock, sessionFlag, session, prompt string, allowed ...string) (string, error) {
	allowed = append(allowed, "Read")
	for _, tool := range kgTools {
		allowed = append(allowed, "mcp__kg__"+tool)
	}
	args := []string{"-p", prompt, "--output-format", "text", "--allowedTools", strings.Join(allowed, ","), sessionFlag, session}
	return w.run(w.t.Context(), cliLimit, w.project,
		[]string{"ANTHROPIC_BASE_URL=" + mock.URL, "ANTHROPIC_API_KEY=sk-ant-" + mockKey},
		claudeBin(w.t), args...)
}

// asked counts the capture requests the model received by the end of a
// run: its last request holds the whole conversation.
func asked(t *testing.T, mock *modelMock) int {
	return strings.Count(mock.Last(t).Context, captureMark)
}

var preloadedSession = regexp.MustCompile(`kg memory preloaded\. session_id: ([0-9a-f]+)`)

// putWithPreloadedSession is a kg_put_node of a's with the session id the
// session start's preload gave the model, as the preload tells it to.
func putWithPreloadedSession(a agent) step {
	return step{Tool: a.tool("kg_put_node"), Args: func(ex exchange) map[string]any {
		session := ""
		if m := preloadedSession.FindStringSubmatch(ex.Context); m != nil {
			session = m[1]
		}
		return map[string]any{"session_id": session, "level": "project", "id": "invoice-schedule", "gist": "invoices go out every night"}
	}}
}

// captures is kg's count of stops of agent that came to outcome
// (kg_capture_requests_total).
func (w *world) captures(agent, outcome string) float64 {
	w.t.Helper()
	resp, err := http.Get(w.kgURL() + "metrics")
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	want := fmt.Sprintf(`kg_capture_requests_total{agent=%q,outcome=%q} `, agent, outcome)
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, want); ok {
			n, _ := strconv.ParseFloat(v, 64)
			return n
		}
	}
	w.t.Fatalf("/metrics has no %s", want)
	return 0
}

// writeNotes puts the file the sessions edit into the world's project.
func writeNotes(t *testing.T, w *world) string {
	notes := filepath.Join(w.project, "NOTES.md")
	if err := os.WriteFile(notes, []byte("# Notes\nThe shop sends invoices nightly.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return notes
}

// TestClaudeCodeCapture: after `kg install claude-code`, a session that
// edited a file and wrote nothing to kg is asked once at its stop to record
// what it learned; the stop that follows, and a later turn of the same
// conversation, are not; a session that wrote to kg is not asked; with
// KG_CAPTURE=off nothing is.
func TestClaudeCodeCapture(t *testing.T) {
	needClients(t)
	w := newWorld(t)
	w.serve()
	w.kg("install", "claude-code")
	notes := writeNotes(t, w)
	edit := fixed("Edit", map[string]any{"file_path": notes, "old_string": "nightly", "new_string": "every night"})
	read := fixed("Read", map[string]any{"file_path": notes})

	// First, a session that edits and writes to kg: not asked (and the
	// project is not throttled by it).
	wrote := newModelMock(t, anthropic{}, script(read, edit, putWithPreloadedSession(agents()[0])))
	if out, err := w.claudeAllowing(wrote, "--session-id", "8a7c2f1e-0000-4000-8000-000000000001", "Make the notes say every night.", "Edit"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	check(t, "claude-code", "no capture request after a kg write", func() error {
		if n := asked(t, wrote); n != 0 {
			return fmt.Errorf("a session that wrote to kg was asked %d times:\n%.3000s", n, wrote.Last(t).Context)
		}
		if n := w.captures("claude-code", "wrote"); n != 1 {
			return fmt.Errorf("kg counts %v stops left alone for a kg write, want 1", n)
		}
		return nil
	})

	const conv = "8a7c2f1e-0000-4000-8000-000000000002"
	edited := newModelMock(t, anthropic{}, script(read, edit))
	if err := os.WriteFile(notes, []byte("# Notes\nThe shop sends invoices nightly.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := w.claudeAllowing(edited, "--session-id", conv, "Make the notes say every night.", "Edit"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	check(t, "claude-code", "capture request at a stop after an edit, once", func() error {
		if n := asked(t, edited); n != 1 {
			return fmt.Errorf("the model got %d capture requests, want 1:\n%.3000s", n, edited.Last(t).Context)
		}
		return nil
	})
	again := newModelMock(t, anthropic{}, script(read, edit))
	if out, err := w.claudeAllowing(again, "--resume", conv, "Check the notes once more.", "Edit"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	check(t, "claude-code", "no second capture request in the conversation", func() error {
		// The resumed transcript shows the first request twice ("Stop hook
		// feedback:" and "Stop hook blocking error from command: …"); a
		// second request would be a second feedback.
		if n := strings.Count(again.Last(t).Context, "Stop hook feedback:\n"+captureMark); n != 1 {
			return fmt.Errorf("the resumed conversation holds %d capture requests as Stop hook feedback, want the first alone:\n%.3000s", n, again.Last(t).Context)
		}
		if n := w.captures("claude-code", "asked"); n != 1 {
			return fmt.Errorf("kg counts %v capture requests to Claude Code, want 1", n)
		}
		if n := w.captures("claude-code", "repeat"); n < 1 {
			return fmt.Errorf("kg counts no stop left alone as asked before (repeat)")
		}
		return nil
	})
}

// TestCaptureOff: with KG_CAPTURE=off no stop asks anything, in Claude Code
// or Codex.
func TestCaptureOff(t *testing.T) {
	needClients(t)
	w := newWorld(t)
	w.serve("--capture", "off")
	w.kg("install", "claude-code")
	w.kg("install", "codex")
	notes := writeNotes(t, w)
	claude := newModelMock(t, anthropic{}, script(fixed("Edit", map[string]any{"file_path": notes, "old_string": "nightly", "new_string": "every night"})))
	if out, err := w.claudeAllowing(claude, "--session-id", "8a7c2f1e-0000-4000-8000-000000000003", "Make the notes say every night.", "Edit"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	codex := newModelMock(t, agents()[1].proto, script(codexWork()...))
	if out, err := w.codexInstalled(codex, "Make the notes say every night."); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, c := range []struct {
		client string
		mock   *modelMock
	}{{"claude-code", claude}, {"codex", codex}} {
		check(t, c.client, c.client+": no capture request with KG_CAPTURE=off", func() error {
			if n := asked(t, c.mock); n != 0 {
				return fmt.Errorf("asked %d times with KG_CAPTURE=off:\n%.3000s", n, c.mock.Last(t).Context)
			}
			return nil
		})
	}
}

// codexWork is a Codex turn that works on the notes through its shell:
// three tools, one of them an edit.
func codexWork() []step {
	return []step{
		fixed("exec_command", map[string]any{"cmd": "cat NOTES.md"}),
		fixed("exec_command", map[string]any{"cmd": "sed -i s/nightly/every-night/ NOTES.md"}),
		fixed("exec_command", map[string]any{"cmd": "wc -l NOTES.md"}),
	}
}

// TestCodexCapture: after `kg install codex`, a codex exec that worked on
// the project and wrote nothing to kg is asked once at its stop; the stop
// that follows is not; a run that wrote to kg is not asked, whether through
// the preloaded session or one its kg_read with cwd started.
func TestCodexCapture(t *testing.T) {
	needClients(t)
	w := newWorld(t)
	w.serve()
	w.kg("install", "codex")
	writeNotes(t, w)
	proto := agents()[1].proto

	wrote := newModelMock(t, proto, script(append(codexWork(), putWithPreloadedSession(agents()[1]))...))
	if out, err := w.codexInstalled(wrote, "Make the notes say every night."); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	check(t, "codex", "no capture request after a kg write", func() error {
		if n := asked(t, wrote); n != 0 {
			return fmt.Errorf("a run that wrote to kg was asked %d times:\n%.3000s", n, wrote.Last(t).Context)
		}
		if n := w.captures("codex", "wrote"); n != 1 {
			return fmt.Errorf("kg counts %v stops left alone for a kg write, want 1", n)
		}
		return nil
	})
	// A model that calls kg_read with its cwd rather than the preloaded
	// session id writes through a session no conversation is bound to: a
	// write to the project all the same (docs/design/hooks.md#capture-before-forgetting).
	codex := agents()[1]
	viaCWD := newModelMock(t, proto, script(append(codexWork(),
		fixed(codex.tool("kg_read"), map[string]any{"cwd": w.project}),
		withSession(codex.tool("kg_put_node"), map[string]any{"level": "project", "id": "notes-wording",
			"gist": "the notes say every night, not nightly"}))...))
	if out, err := w.codexInstalled(viaCWD, "Make the notes say every night."); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	check(t, "codex", "no capture request after a kg write through a cwd session", func() error {
		put := viaCWD.Last(t)
		if m := preloadedSession.FindStringSubmatch(put.Context); m == nil || strings.Contains(strings.Join(put.Results, "\n"), "session_id: "+m[1]) {
			return fmt.Errorf("the write did not go through a session of its own:\n%.3000s", strings.Join(put.Results, "\n"))
		}
		if n := asked(t, viaCWD); n != 0 {
			return fmt.Errorf("a run that wrote to kg through a cwd session was asked %d times:\n%.3000s", n, put.Context)
		}
		if n := w.captures("codex", "wrote"); n != 2 {
			return fmt.Errorf("kg counts %v stops left alone for a kg write, want 2", n)
		}
		return nil
	})
	worked := newModelMock(t, proto, script(codexWork()...))
	if out, err := w.codexInstalled(worked, "Make the notes say every night."); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	check(t, "codex", "capture request at a stop after work, once", func() error {
		if n := asked(t, worked); n != 1 {
			return fmt.Errorf("the model got %d capture requests, want 1:\n%.3000s", n, worked.Last(t).Context)
		}
		return nil
	})
}
