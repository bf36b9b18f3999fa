package rest_test

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// hookInput reads a golden hook input of testdata/hook-inputs, as Claude
// Code documents it, for the conversation claude in the env's project.
func (e *env) hookInput(name, claude string) string {
	e.t.Helper()
	b, err := os.ReadFile("testdata/hook-inputs/" + name + ".json")
	if err != nil {
		e.t.Fatal(err)
	}
	return strings.NewReplacer("@SESSION@", claude, "@CWD@", e.proj, "@TRANSCRIPT@", "/nonexistent/t.jsonl").Replace(string(b))
}

func (e *env) bootstrap(claude, source string) reply {
	e.t.Helper()
	q := url.Values{"project_path": {e.proj}, "claude_session_id": {claude}, "source": {source}}
	return e.do("GET", "/api/session_bootstrap?"+q.Encode(), nil).ok(e.t)
}

// fill writes n project nodes about logging and, last, the ones a prompt
// about the oauth token refresh should find.
func (e *env) fill(n int) {
	e.t.Helper()
	w := e.session(e.proj)
	for i := range n {
		e.put("project", w, fmt.Sprintf("log-%03d", i), fmt.Sprintf("logging note %d: levels and output format", i))
	}
	e.put("project", w, "token-refresh", "the oauth token refresh races when two requests refresh at once")
	e.put("project", w, "refresh-lock", "one refresher per process: the oauth refresh takes a lock")
	e.do("POST", "/api/edges", map[string]any{"level": "project", "from": "refresh-lock", "to": "token-refresh", "rel": "fixes", "session_id": w}).ok(e.t)
	e.clock.Advance(time.Second) // the sessions started next are the project's most recent
}

func TestSessionBootstrapShapes(t *testing.T) {
	e := newEnv(t)
	e.fill(10)
	r := e.bootstrap("conv-1", "startup")
	for _, k := range []string{"session_id", "reused", "context", "text", "stats"} {
		if _, ok := r.body[k]; !ok {
			t.Errorf("no %q in %s", k, r.raw)
		}
	}
	if len(r.body) != 5 || r.body["reused"] != false || !strings.HasSuffix(r.body["context"].(string), r.body["text"].(string)) {
		t.Errorf("body %s", r.raw)
	}
	st := r.body["stats"].(map[string]any)
	if st["user_active"] != 0.0 || st["project_active"] != 12.0 || st["shown_gists"] != 12.0 || len(st) != 3 {
		t.Errorf("stats = %v", st)
	}
	res := e.bootstrap("conv-1", "resume")
	if res.body["reused"] != true || res.body["session_id"] != r.body["session_id"] || res.body["text"] != "" ||
		len(res.body["stats"].(map[string]any)) != 0 || utf8.RuneCountInString(res.body["context"].(string)) > 300 {
		t.Errorf("resume: %s", res.raw)
	}
	s := e.do("GET", "/api/session_state?project_path="+url.QueryEscape(e.proj), nil).ok(t)
	if s.body["found"] != true || s.body["session_id"] != r.body["session_id"] || s.body["full_read_done"] != true ||
		s.body["preloaded_count"] != 12.0 || len(s.body) != 4 {
		t.Errorf("session state: %s", s.raw)
	}
}

func TestHookRoutesBadInput(t *testing.T) {
	e := newEnv(t)
	e.do("GET", "/api/session_bootstrap", nil).fails(t, 400, "invalid", "project_path", "required")
	e.do("GET", "/api/session_bootstrap?project_path=rel/dir", nil).fails(t, 400, "invalid", "project_path", "absolute")
	e.do("GET", "/api/session_state", nil).fails(t, 400, "invalid", "project_path", "required")
	e.do("POST", "/api/prompt_context", map[string]any{"session_id": "c", "cwd": "rel", "prompt": "hello there friend"}).
		fails(t, 400, "invalid", "cwd", "absolute")
	e.do("POST", "/api/prompt_context", map[string]any{"session_id": "c", "prompt": "hello there friend"}).
		fails(t, 400, "invalid", "cwd", "required")
	if r := e.do("POST", "/api/prompt_context", "a=b", "Content-Type", "application/x-www-form-urlencoded"); r.status != 415 {
		t.Errorf("a form body: %d %s; want 415", r.status, r.raw)
	}
	// An unknown conversation is no error: its session starts, and the
	// answer is the nudge naming it.
	r := e.do("POST", "/api/prompt_context", map[string]any{"session_id": "unknown-conv", "cwd": e.proj, "prompt": "what does the parser do"}).ok(t)
	if !strings.Contains(fmt.Sprint(get(r.body, "hookSpecificOutput", "additionalContext")), "kg_read") {
		t.Errorf("unknown conversation: %s", r.raw)
	}
	// 1 MiB of prompt: 413, and nothing recorded.
	before := e.do("GET", "/api/session_state?project_path="+url.QueryEscape(e.proj), nil).ok(t)
	big := fmt.Sprintf(`{"session_id":"big-conv","cwd":%q,"prompt":"%s"}`, e.proj, strings.Repeat("word ", 1<<20/5+1))
	if r := e.do("POST", "/api/prompt_context", big); r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("1 MiB prompt: %d %.200s; want 413", r.status, r.raw)
	}
	after := e.do("GET", "/api/session_state?project_path="+url.QueryEscape(e.proj), nil).ok(t)
	if before.raw != after.raw {
		t.Errorf("an oversized prompt changed the sessions: %s → %s", before.raw, after.raw)
	}
	// A transcript outside the home folder is ignored: a new session.
	q := url.Values{"project_path": {e.proj}, "source": {"resume"}, "transcript_path": {"/etc/passwd"}}
	if r := e.do("GET", "/api/session_bootstrap?"+q.Encode(), nil).ok(t); r.body["reused"] != false {
		t.Errorf("transcript outside home: %s", r.raw)
	}
	e.do("POST", "/api/nodes/useful", map[string]any{"session_id": "0000000000000000", "ids": []string{"a"}}).
		fails(t, 404, "not_found", "session_id", "")
}

func TestPromptContextRecallsWhatThePromptIsAbout(t *testing.T) {
	e := newEnv(t)
	e.fill(30)
	sid := e.bootstrap("conv-1", "startup").body["session_id"].(string)
	// The preload showed everything: nothing new to recall.
	r := e.do("POST", "/api/prompt_context", e.hookInput("prompt-human", "conv-1")).ok(t)
	if r.raw != "{}\n" && r.raw != "{}" {
		t.Errorf("recall of nodes the preload showed: %s", r.raw)
	}
	// After a compaction the context lost them: the preload comes again.
	e.bootstrap("conv-1", "compact")
	// A second conversation started with no preload reads memory first.
	e.put("project", sid, "refresh-backoff", "the oauth token refresh backs off 250 ms after a race")
	e.do("GET", "/api/session_bootstrap?"+url.Values{"project_path": {e.proj}, "claude_session_id": {"conv-2"}}.Encode(), nil).ok(t)
	e.put("project", sid, "refresh-metric", "oauth token refresh races are counted in kg_refresh_races_total")
	r = e.do("POST", "/api/prompt_context", e.hookInput("prompt-human", "conv-2")).ok(t)
	hso, _ := r.body["hookSpecificOutput"].(map[string]any)
	text, _ := hso["additionalContext"].(string)
	if hso["hookEventName"] != "UserPromptSubmit" || !strings.Contains(text, "refresh-metric: ") || strings.Contains(text, "log-0") ||
		utf8.RuneCountInString(text) > 2500 || len(r.body) != 1 {
		t.Errorf("recall: %s", r.raw)
	}
	for _, name := range []string{"prompt-notification", "prompt-image"} {
		if r := e.do("POST", "/api/prompt_context", e.hookInput(name, "conv-2")).ok(t); len(r.body) != 0 {
			t.Errorf("%s: %s; want {}", name, r.raw)
		}
	}
}

func TestToolEventShapes(t *testing.T) {
	e := newEnv(t)
	e.bootstrap("conv-1", "startup")
	e.bootstrap("conv-2", "startup")
	for _, name := range []string{"post-tool-use-read", "post-tool-use-webfetch", "post-tool-use-websearch", "post-tool-use-bash"} {
		if r := e.do("POST", "/api/tool_event", e.hookInput(name, "conv-1")).ok(t); len(r.body) != 0 {
			t.Errorf("%s once: %s; want {}", name, r.raw)
		}
	}
	r := e.do("POST", "/api/tool_event", e.hookInput("post-tool-use-read", "conv-2")).ok(t)
	if get(r.body, "hookSpecificOutput", "hookEventName") != "PostToolUse" ||
		!strings.Contains(fmt.Sprint(get(r.body, "hookSpecificOutput", "additionalContext")), "internal/parse.go") {
		t.Errorf("a file read in two conversations: %s", r.raw)
	}
	if r := e.do("POST", "/api/tool_event", e.hookInput("post-tool-use-bash", "conv-2")).ok(t); len(r.body) != 0 {
		t.Errorf("bash: %s", r.raw)
	}
}

// A stop after an edit, by a conversation whose session wrote nothing to
// kg, is blocked once with the capture request, in the shape Claude Code's
// and Codex's Stop read (docs/design/hooks.md#capture-before-forgetting).
func TestStopRouteAsksOnceAfterAnEdit(t *testing.T) {
	e := newEnv(t)
	sid := e.bootstrap("conv-1", "startup").body["session_id"].(string)
	if r := e.do("POST", "/api/hooks/stop", e.hookInput("stop", "conv-1")).ok(t); len(r.body) != 0 {
		t.Fatalf("a stop before any work: %s, want {}", r.raw)
	}
	e.do("POST", "/api/tool_event", e.hookInput("post-tool-use-edit", "conv-1")).ok(t)
	r := e.do("POST", "/api/hooks/stop?agent=claude-code", e.hookInput("stop", "conv-1")).ok(t)
	reason, _ := r.body["reason"].(string)
	if r.body["decision"] != "block" || len(r.body) != 2 || !strings.Contains(reason, `session_id "`+sid+`"`) ||
		!strings.Contains(reason, "kg_put_node") || utf8.RuneCountInString(reason) > 400 {
		t.Fatalf("a stop after an edit: %s, want decision block with the request naming %s", r.raw, sid)
	}
	for _, name := range []string{"stop-active", "stop"} {
		if r := e.do("POST", "/api/hooks/stop", e.hookInput(name, "conv-1")).ok(t); len(r.body) != 0 {
			t.Errorf("%s after the request: %s, want {}", name, r.raw)
		}
	}
	e.do("POST", "/api/hooks/stop", map[string]any{"session_id": strings.Repeat("x", 300), "cwd": e.proj}).
		fails(t, 400, "invalid", "session_id", "limit 256")
}

func TestMarkUsefulRoute(t *testing.T) {
	e := newEnv(t)
	sid := e.session(e.proj)
	e.put("project", sid, "a", "alpha")
	e.put("project", sid, "b", "beta")
	e.do("POST", "/api/nodes/useful", map[string]any{"session_id": sid, "ids": []string{"a"}}).ok(t)
	r := e.do("POST", "/api/nodes/useful", map[string]any{"session_id": sid, "ids": []string{"b", "a"}}).ok(t)
	if r.body["result"] != "Marked useful: b (already marked: a)" || get(r.body, "marked", 0, "id") != "b" ||
		get(r.body, "already_marked", 0, "id") != "a" || get(r.body, "marked", 0, "level") != "project" {
		t.Errorf("useful: %s", r.raw)
	}
	e.do("POST", "/api/nodes/useful", map[string]any{"session_id": sid, "ids": []string{"a", "ghost"}}).
		fails(t, 404, "not_found", "ids", `"ghost"`)
	e.do("POST", "/api/nodes/useful", map[string]any{"session_id": sid, "ids": []string{}}).fails(t, 400, "invalid", "ids", "1 to 5")
	// The mark shows on the read by id.
	n := e.do("GET", "/api/nodes/project/b?session_id="+sid, nil).ok(t)
	if marks, _ := get(n.body, "node", "_useful").([]any); len(marks) != 1 {
		t.Errorf("read by id shows no mark: %s", n.raw)
	}
}

func TestMaintenanceDebtRoute(t *testing.T) {
	e := newEnv(t)
	e.fill(3)
	r := e.do("GET", "/api/maintenance_debt", nil).ok(t)
	g := get(r.body, "graphs", 0).(map[string]any)
	if g["level"] != "project" || g["project"] != e.proj || g["since_maintained"] != nil || g["active"] != 5.0 || g["score"].(float64) <= 0 {
		t.Errorf("debt: %s", r.raw)
	}
	for _, k := range []string{"level", "project", "score", "active", "archived", "orphaned", "unconnected", "since_maintained"} {
		if _, ok := g[k]; !ok {
			t.Errorf("no %q in %v", k, g)
		}
	}
}
