package hooks

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/app/hookstate"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/render"
)

var updateRecallGolden = flag.Bool("update-recall-golden", false, "rewrite testdata/recall.golden and testdata/hooks.golden from this code")

// TestRecallTextGolden holds the bytes of a recall to a file: the model
// reads them above a prompt (docs/design/hooks.md#recall), so a change to a
// line's shape must be a reviewed change to the file. The example has nodes
// of both graphs and an edge among them; the session id, drawn at random,
// is written as SESSION.
func TestRecallTextGolden(t *testing.T) {
	e := newEnv(t)
	w := e.Session(projA)
	for i := range 40 { // a graph of some size: relevance is relative to it
		e.Put(project(w), fmt.Sprintf("filler-%02d", i), fmt.Sprintf("note %d on logging levels and output format", i))
	}
	for i := range 3 {
		e.Put(project(w), "refresh-"+string(rune('a'+i)), "token refresh race: the oauth refresh token rotates, case "+string(rune('a'+i)))
	}
	e.Edge(project(w), "refresh-a", "refresh-b", "relates-to")
	e.Put(user(w), "oauth-wisdom", "oauth refresh tokens rotate on every use; keep one refresher")
	sess := e.bootstrap(claudeA, "startup").SessionID
	e.Support().Sessions().WithHooks(sess, func(h *hookstate.State) bool { h.ClearSeen(); return true })
	r, err := e.hooks().PromptContext(e.Ctx, PromptRequest{ClaudeSessionID: claudeA, CWD: projA, Prompt: "why does the oauth token refresh race?"})
	if err != nil {
		t.Fatal(err)
	}
	hookGolden(t, "recall.golden", []byte(strings.ReplaceAll(r.Text, sess, "SESSION")+"\n"))
}

// TestHookTextsGolden holds the bytes of the hooks' fixed texts to a file:
// the full-read nudge of a prompt, with and without a session to name, the
// tool-event nudges of a file, a URL and a web search
// (docs/design/hooks.md#recall), and the preload's header and the
// continuity note of a resumed conversation
// (docs/design/hooks.md#the-preload), and kg_useful's answer
// (docs/design/hooks.md#kg_useful).
func TestHookTextsGolden(t *testing.T) {
	texts := []string{
		sessionNudge("/src/my-app", ""),
		sessionNudge("/src/my-app", "3fa29c0d1e7b4a55"),
		toolNudge(targetFile+"src/auth/refresh.py", "src/auth/refresh.py", "3fa29c0d1e7b4a55"),
		toolNudge(targetURL+"https://example.com/a", "https://example.com/a", "3fa29c0d1e7b4a55"),
		toolNudge(targetSearch+"oauth \"refresh\"", "oauth \"refresh\"", "3fa29c0d1e7b4a55"),
		render.PreloadHeader("3fa29c0d1e7b4a55"),
		render.ContinuityNote("3fa29c0d1e7b4a55"),
	}
	u := func(level domain.Level, id string) app.UsefulNode { return app.UsefulNode{Level: level, ID: id} }
	for _, r := range []app.UsefulResult{
		{Marked: []app.UsefulNode{u(domain.LevelProject, "a"), u(domain.LevelUser, "b")}},
		{Marked: []app.UsefulNode{u(domain.LevelProject, "a"), u(domain.LevelUser, "a")}, Already: []app.UsefulNode{u(domain.LevelProject, "c")}},
		{Already: []app.UsefulNode{u(domain.LevelProject, "c"), u(domain.LevelUser, "d")}},
	} {
		texts = append(texts, r.Summary())
	}
	hookGolden(t, "hooks.golden", []byte(strings.Join(texts, "\n---\n")+"\n"))
}

// hookGolden compares got with testdata/name, or writes it there with
// -update-recall-golden.
func hookGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateRecallGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update-recall-golden to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s is stale; review the change and run go test -update-recall-golden\n--- got:\n%s", path, got)
	}
}
