package hooks

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/app/hookstate"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

const claudeA = "2f1c9a7e-4b3d-4c1e-9f00-aa11bb22cc33"

func (e *env) bootstrap(claude, source string) BootstrapResult {
	e.T.Helper()
	r, err := e.hooks().SessionBootstrap(e.Ctx, BootstrapRequest{ProjectPath: projA, ClaudeSessionID: claude, Source: source})
	if err != nil {
		e.T.Fatalf("SessionBootstrap(%s, %s): %v", claude, source, err)
	}
	return r
}

func (e *env) seen(session, key string) bool {
	e.T.Helper()
	return len(e.Support().Sessions().Unseen(session, []string{key})) == 0
}

// fillGraphs writes n project nodes and m user nodes through a throwaway
// session, whose writes are its own.
func (e *env) fillGraphs(n, m int) {
	e.T.Helper()
	w := e.Session(projA)
	for i := range n {
		e.Put(project(w), fmt.Sprintf("p%04d", i), fmt.Sprintf("project insight number %d about the build cache", i))
	}
	for i := range m {
		e.Put(user(w), fmt.Sprintf("u%04d", i), fmt.Sprintf("user insight number %d about code review", i))
	}
	e.Clock.Advance(time.Second) // the sessions started next are the project's most recent
}

func TestBootstrapPreloadsWithinBudgetAndMarksWhatItShowed(t *testing.T) {
	e := newEnv(t)
	e.fillGraphs(400, 100)
	r := e.bootstrap(claudeA, "startup")
	if r.Reused || r.SessionID == "" {
		t.Fatalf("first start: %+v; want a new session", r)
	}
	if n := utf8.RuneCountInString(r.Context); n > app.DefaultPreloadChars {
		t.Errorf("context is %d characters, limit %d", n, app.DefaultPreloadChars)
	}
	header, text, ok := strings.Cut(r.Context, "\n\n")
	if !ok || text != r.Text || utf8.RuneCountInString(header) > MaxPreloadHeader || !strings.Contains(header, r.SessionID) {
		t.Errorf("context = header (%d chars, names the session: %v) + text; got\n%.800s", utf8.RuneCountInString(header),
			strings.Contains(header, r.SessionID), r.Context)
	}
	if r.Stats == nil || r.Stats.UserActive != 100 || r.Stats.ProjectActive != 400 || r.Stats.ShownGists == 0 || r.Stats.ShownGists >= 500 {
		t.Fatalf("stats = %+v; want 100 user, 400 project, some but not all shown", r.Stats)
	}
	if !strings.Contains(r.Text, "not preloaded, to fit; kg_read shows them all") {
		t.Error("no line counting the nodes left out")
	}
	shown := 0
	for i := range 400 {
		id := fmt.Sprintf("p%04d", i)
		inText := strings.Contains(r.Text, "  "+id+": ")
		if inText != e.seen(r.SessionID, ports.SeenKey(domain.LevelProject, id)) {
			t.Fatalf("%s: in the text %v, in the seen set %v", id, inText, !inText)
		}
		if inText {
			shown++
		}
	}
	st, err := e.hooks().SessionStateOf(e.Ctx, projA, "")
	if err != nil || !st.Found || st.SessionID != r.SessionID || !st.FullReadDone || st.PreloadedCount != r.Stats.ShownGists {
		t.Errorf("session state = %+v, %v; want the session, full read done, %d preloaded", st, err, r.Stats.ShownGists)
	}
}

func TestBootstrapBudgetIsKGPreloadChars(t *testing.T) {
	e := newEnv(t, func(c *app.Config) { c.PreloadChars = 2000 })
	e.fillGraphs(100, 0)
	r := e.bootstrap(claudeA, "startup")
	if n := utf8.RuneCountInString(r.Context); n > 2000 || n < 1500 {
		t.Errorf("context is %d characters; want close under 2,000", n)
	}
}

func TestBootstrapBindingReuseResumeCompactClear(t *testing.T) {
	e := newEnv(t)
	e.fillGraphs(20, 5)
	first := e.bootstrap(claudeA, "startup")

	again := e.bootstrap(claudeA, "startup")
	if !again.Reused || again.SessionID != first.SessionID {
		t.Errorf("same conversation again: %s reused %v; want %s reused", again.SessionID, again.Reused, first.SessionID)
	}

	res := e.bootstrap(claudeA, "resume")
	if !res.Reused || res.SessionID != first.SessionID || res.Text != "" || res.Stats != nil ||
		utf8.RuneCountInString(res.Context) > MaxContinuityNote || !strings.Contains(res.Context, first.SessionID) ||
		!strings.Contains(res.Context, "memory was preloaded earlier in this conversation") {
		t.Errorf("resume: %+v; want the continuity note of the same session", res)
	}
	if !e.seen(first.SessionID, "p:p0000") {
		t.Error("a resume emptied the seen set")
	}

	// A compaction: the seen set is cleared, then filled by the new preload.
	e.Support().Sessions().See(first.SessionID, "p:not-in-the-preload")
	cmp := e.bootstrap(claudeA, "compact")
	if !cmp.Reused || cmp.SessionID != first.SessionID || cmp.Text == "" || cmp.Stats == nil {
		t.Errorf("compact: %+v; want the preload again in the same session", cmp)
	}
	if e.seen(first.SessionID, "p:not-in-the-preload") || !e.seen(first.SessionID, "p:p0000") {
		t.Error("compact kept what the old context held, or did not mark the new preload")
	}

	clr := e.bootstrap(claudeA, "clear")
	if clr.Reused || clr.SessionID == first.SessionID || clr.Text == "" {
		t.Errorf("clear: %+v; want a new session with a preload", clr)
	}
	// The binding moved with the clear: the conversation now means the new one.
	if r := e.bootstrap(claudeA, "resume"); r.SessionID != clr.SessionID {
		t.Errorf("after clear the conversation resumes %s, want %s", r.SessionID, clr.SessionID)
	}
	if r := e.bootstrap("", "startup"); r.Reused {
		t.Error("a start with no Claude id reused a session")
	}
}

// The fix of the replaced server: a resume after a day idle revives the
// session with its watermarks and seen set, and the binding survives a
// restart.
func TestBindingOutlivesTheSessionTTL(t *testing.T) {
	e := newEnv(t)
	e.fillGraphs(10, 0)
	first := e.bootstrap(claudeA, "startup")
	e.Restart()
	e.Clock.Advance(3 * 24 * time.Hour)
	if _, err := e.Svc.Sync(e.Ctx, first.SessionID); domain.KindOf(err) != domain.KindNotFound {
		t.Fatalf("sync on a session idle past the TTL: %v; want unknown", err)
	}
	e.Tick()
	r := e.bootstrap(claudeA, "resume")
	if !r.Reused || r.SessionID != first.SessionID || r.Text != "" {
		t.Fatalf("resume after 3 days: %+v; want %s revived with the continuity note", r, first.SessionID)
	}
	if !e.seen(first.SessionID, "p:p0000") {
		t.Error("the revived session lost its seen set")
	}
	if _, err := e.Svc.Sync(e.Ctx, first.SessionID); err != nil {
		t.Errorf("the revived session is not live: %v", err)
	}
	// Past the bound TTL the session is gone for good.
	e.Clock.Advance(time.Duration(app.DefaultBoundSessionTTL+domain.Day) * time.Microsecond)
	e.Tick()
	if r := e.bootstrap(claudeA, "resume"); r.Reused {
		t.Errorf("a binding past %d days was reused", app.DefaultBoundSessionTTL/domain.Day)
	}
}

type fakeTranscripts map[string]string

func (f fakeTranscripts) Tail(_ context.Context, path string, max int64) ([]byte, error) {
	s, ok := f[path]
	if !ok {
		return nil, errors.New("outside the home folder")
	}
	return []byte(s), nil
}

func TestBootstrapResumeFindsTheSessionItsTranscriptNames(t *testing.T) {
	e := newEnv(t)
	other := e.Session(projB)
	mine := e.Session(projA)
	older := e.Session(projA)
	e.Transcripts = fakeTranscripts{
		"/home/dev/.claude/t.jsonl": fmt.Sprintf(`{"session_id":"%s"} {"session_id":"%s"} {"session_id":"%s"}`, older, mine, other),
	}
	e.Restart()
	r, err := e.hooks().SessionBootstrap(e.Ctx, BootstrapRequest{ProjectPath: projA, ClaudeSessionID: "new-conv", Source: "resume",
		TranscriptPath: "/home/dev/.claude/t.jsonl"})
	if err != nil || !r.Reused || r.SessionID != mine {
		t.Fatalf("resume by transcript: %+v, %v; want %s (the last named of this project)", r, err, mine)
	}
	if b := e.bootstrap("new-conv", "startup"); b.SessionID != mine {
		t.Errorf("the transcript's session was not bound to the conversation")
	}
	r, err = e.hooks().SessionBootstrap(e.Ctx, BootstrapRequest{ProjectPath: projA, Source: "resume", TranscriptPath: "/etc/passwd"})
	if err != nil || r.Reused {
		t.Errorf("a transcript that may not be read: %+v, %v; want a new session", r, err)
	}
}

func TestHookRoutesRefuseBadProjectPaths(t *testing.T) {
	e := newEnv(t)
	for _, p := range []string{"", "rel/path"} {
		_, err := e.hooks().SessionBootstrap(e.Ctx, BootstrapRequest{ProjectPath: p})
		wantKind(t, err, domain.KindInvalid, "project_path")
		_, err = e.hooks().SessionStateOf(e.Ctx, p, "")
		wantKind(t, err, domain.KindInvalid, "project_path")
	}
	_, err := e.hooks().SessionBootstrap(e.Ctx, BootstrapRequest{ProjectPath: projA, ClaudeSessionID: "a\nb"})
	wantKind(t, err, domain.KindInvalid, "claude_session_id")
	if st, err := e.hooks().SessionStateOf(e.Ctx, projA, ""); err != nil || st.Found {
		t.Errorf("state of a project with no session: %+v, %v", st, err)
	}
}

func TestPromptNudgesUntilAFullReadNamingTheSession(t *testing.T) {
	e := newEnv(t)
	r, err := e.hooks().PromptContext(e.Ctx, PromptRequest{ClaudeSessionID: claudeA, CWD: projA, Prompt: "how is the build cache invalidated"})
	if err != nil {
		t.Fatal(err)
	}
	b, ok := e.Support().Sessions().Bound(claudeA, "", e.Clock.Now())
	if !ok || !strings.Contains(r.Text, "kg_read") || !strings.Contains(r.Text, b.ID) || !strings.Contains(r.Text, projA) {
		t.Fatalf("nudge = %q; want kg_read with cwd and the bound session %v", r.Text, b.ID)
	}
	if _, err := e.Svc.Read(e.Ctx, app.ReadRequest{SessionID: b.ID}); err != nil {
		t.Fatal(err)
	}
	r, err = e.hooks().PromptContext(e.Ctx, PromptRequest{ClaudeSessionID: claudeA, CWD: projA, Prompt: "how is the build cache invalidated"})
	if err != nil || strings.Contains(r.Text, "has not been read") {
		t.Errorf("after a full read: %q, %v; want no nudge", r.Text, err)
	}
	// The nudge ends after maxPromptNudges prompts even without a read.
	e2 := newEnv(t)
	for i := range maxPromptNudges + 2 {
		r, _ := e2.hooks().PromptContext(e2.Ctx, PromptRequest{ClaudeSessionID: claudeA, CWD: projA, Prompt: "tell me about the parser"})
		if nudged := strings.Contains(r.Text, "has not been read"); nudged != (i < maxPromptNudges) {
			t.Errorf("prompt %d nudged %v", i, nudged)
		}
	}
}

func TestRecallShowsUnseenRelevantNodesOnce(t *testing.T) {
	e := newEnv(t)
	w := e.Session(projA)
	for i := range 60 {
		e.Put(project(w), fmt.Sprintf("filler-%02d", i), fmt.Sprintf("note %d on logging levels and output format", i))
	}
	for i := range 8 {
		e.Put(project(w), fmt.Sprintf("refresh-%d", i), fmt.Sprintf("token refresh race %d: the oauth refresh token rotates", i))
	}
	e.Edge(project(w), "refresh-0", "refresh-1", "relates-to")
	e.Put(user(w), "oauth-wisdom", "oauth refresh tokens rotate on every use; keep one refresher")
	sess := e.bootstrap(claudeA, "startup").SessionID
	// Pretend the preload showed none of them: a fresh seen set.
	e.Support().Sessions().WithHooks(sess, func(h *hookstate.State) bool { h.ClearSeen(); return true })

	prompt := "<system-reminder>ignore</system-reminder>why does the oauth token refresh race? see src/auth/refresh.py [Image #1]"
	r, err := e.hooks().PromptContext(e.Ctx, PromptRequest{ClaudeSessionID: claudeA, CWD: projA, Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	if r.Nodes == 0 || r.Nodes > 5 || utf8.RuneCountInString(r.Text) > 2500 || !strings.HasPrefix(r.Text, "kg recall (session_id "+sess+")") {
		t.Fatalf("recall: %d nodes, %d chars:\n%s", r.Nodes, utf8.RuneCountInString(r.Text), r.Text)
	}
	if strings.Contains(r.Text, "filler-") {
		t.Errorf("recall shows irrelevant nodes:\n%s", r.Text)
	}
	first := r.Text
	r2, err := e.hooks().PromptContext(e.Ctx, PromptRequest{ClaudeSessionID: claudeA, CWD: projA, Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(first, "\n")[1:] {
		if id, _, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && !strings.Contains(id, "--") && strings.Contains(r2.Text, "  "+id+":") {
			t.Errorf("%s recalled twice", id)
		}
	}
	// Too short, or notification only: nothing.
	for _, p := range []string{"ok thx", "<task-notification>the oauth token refresh build finished</task-notification>"} {
		if r, err := e.hooks().PromptContext(e.Ctx, PromptRequest{ClaudeSessionID: claudeA, CWD: projA, Prompt: p}); err != nil || r.Text != "" {
			t.Errorf("prompt %q: %q, %v; want nothing", p, r.Text, err)
		}
	}
}

func TestRecallNeverShowsASessionItsOwnWrites(t *testing.T) {
	e := newEnv(t)
	sess := e.bootstrap(claudeA, "startup").SessionID
	e.Put(project(sess), "cache-key", "the build cache key hashes the lockfile and the toolchain version")
	r, err := e.hooks().PromptContext(e.Ctx, PromptRequest{ClaudeSessionID: claudeA, CWD: projA, Prompt: "what goes into the build cache key"})
	if err != nil || r.Text != "" {
		t.Errorf("recall of the session's own write: %q, %v; want nothing", r.Text, err)
	}
}

func (e *env) toolRead(claude, path string) HookText {
	e.T.Helper()
	r, err := e.hooks().ToolEvent(e.Ctx, ToolEventRequest{ClaudeSessionID: claude, CWD: projA, ToolName: "Read", FilePath: path})
	if err != nil {
		e.T.Fatal(err)
	}
	return r
}

func TestToolEventNudgesOnAFileReadInTwoConversationsOnce(t *testing.T) {
	e := newEnv(t)
	e.bootstrap("conv-1", "startup")
	e.bootstrap("conv-2", "startup")
	if r := e.toolRead("conv-1", projA+"/internal/parse.go"); r.Text != "" {
		t.Fatalf("first read nudged: %q", r.Text)
	}
	if r := e.toolRead("conv-1", projA+"/internal/parse.go"); r.Text != "" {
		t.Fatalf("a second read in the same conversation nudged: %q", r.Text)
	}
	r := e.toolRead("conv-2", projA+"/internal/parse.go")
	if !strings.Contains(r.Text, "internal/parse.go") || !strings.Contains(r.Text, "kg_put_node") {
		t.Fatalf("read in a second conversation: %q; want the nudge", r.Text)
	}
	// Once per target per day, even in another conversation, 10 min later.
	e.bootstrap("conv-3", "startup")
	e.Clock.Advance(11 * time.Minute)
	if r := e.toolRead("conv-3", projA+"/internal/parse.go"); r.Text != "" {
		t.Errorf("the same target nudged twice in a day: %q", r.Text)
	}
	e.Clock.Advance(25 * time.Hour)
	if r := e.toolRead("conv-3", projA+"/internal/parse.go"); r.Text == "" {
		t.Error("no nudge a day later")
	}
	// Outside the project, or another tool: never counted.
	for range 3 {
		if r := e.toolRead("conv-1", "/etc/hosts"); r.Text != "" {
			t.Errorf("a file outside the project nudged: %q", r.Text)
		}
	}
}

func TestToolEventStaysQuietAboutWhatMemoryMentions(t *testing.T) {
	e := newEnv(t)
	s1 := e.bootstrap("conv-1", "startup").SessionID
	e.bootstrap("conv-2", "startup")
	if _, err := e.Svc.PutNode(e.Ctx, project(s1), domain.NodeInput{ID: "parser", Gist: "the parser is hand written", Touches: []string{"internal/parse.go"}}); err != nil {
		t.Fatal(err)
	}
	e.toolRead("conv-1", projA+"/internal/parse.go")
	if r := e.toolRead("conv-2", projA+"/internal/parse.go"); r.Text != "" {
		t.Errorf("nudged about a file a node touches: %q", r.Text)
	}
}

func TestToolEventThrottlesPerSession(t *testing.T) {
	e := newEnv(t)
	e.bootstrap("conv-1", "startup")
	e.bootstrap("conv-2", "startup")
	nudges := 0
	for i := range 6 {
		q := fmt.Sprintf("golang generics question %d", i)
		for range 2 {
			r, err := e.hooks().ToolEvent(e.Ctx, ToolEventRequest{ClaudeSessionID: "conv-2", CWD: projA, ToolName: "WebSearch", Query: q})
			if err != nil {
				t.Fatal(err)
			}
			if r.Text != "" {
				nudges++
			}
		}
		e.Clock.Advance(time.Minute)
	}
	if nudges != 1 {
		t.Errorf("%d nudges within 6 minutes; want 1 (10 minutes apart)", nudges)
	}
	for i := range 6 {
		e.Clock.Advance(11 * time.Minute)
		for range 2 {
			r, _ := e.hooks().ToolEvent(e.Ctx, ToolEventRequest{ClaudeSessionID: "conv-2", CWD: projA, ToolName: "WebFetch", URL: fmt.Sprintf("https://x.example/%d", i)})
			if r.Text != "" {
				nudges++
			}
		}
	}
	if nudges != maxSessionNudges {
		t.Errorf("%d nudges in one session; want at most %d", nudges, maxSessionNudges)
	}
}

// The fix of the replaced server: the counts are saved with the tick, not
// per event, and survive a restart.
func TestToolEventCountsAreSavedWithTheTick(t *testing.T) {
	e := newEnv(t)
	e.bootstrap("conv-1", "startup")
	e.bootstrap("conv-2", "startup")
	for range 20 {
		e.toolRead("conv-1", projA+"/a.go")
	}
	if doc, _ := e.Store.LoadToolEvents(e.Ctx); doc != nil {
		t.Fatalf("counts saved per event: %s", doc)
	}
	e.Tick()
	if doc, _ := e.Store.LoadToolEvents(e.Ctx); !strings.Contains(string(doc), `"file:a.go"`) {
		t.Fatalf("after the tick the counts are %s", doc)
	}
	e.Restart()
	if r := e.toolRead("conv-2", projA+"/a.go"); r.Text == "" {
		t.Error("the counts did not survive a restart: no nudge on the second conversation's read")
	}
}

func TestMaintenanceDebt(t *testing.T) {
	e := newEnv(t)
	s := e.Session(projA)
	for i := range 5 {
		e.Put(project(s), fmt.Sprintf("n%d", i), "gist")
	}
	e.Put(user(s), "u", "gist")
	e.Edge(user(s), "u", "u", "self")
	if err := e.Svc.SaveProgress(e.Ctx, user(s), "maintain", domain.RawJSON(`{"done":true}`)); err != nil {
		t.Fatal(err)
	}
	e.Clock.Advance(24 * time.Hour)
	rep, err := e.hooks().MaintenanceDebt(e.Ctx)
	if err != nil || len(rep.Graphs) != 2 {
		t.Fatalf("debt = %+v, %v", rep, err)
	}
	worst, best := rep.Graphs[0], rep.Graphs[1]
	if worst.Level != domain.LevelProject || worst.Project != projA || worst.SinceMaintained != -1 || worst.Active != 5 || worst.Unconnected != 5 {
		t.Errorf("worst = %+v; want the project, never maintained, 5 unconnected", worst)
	}
	if best.Level != domain.LevelUser || best.SinceMaintained != domain.Day || best.Score >= worst.Score {
		t.Errorf("user = %+v; maintained a day ago, owing less than %v", best, worst.Score)
	}
}
