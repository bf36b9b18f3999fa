package team

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// checkout makes a folder at dir that is a checkout of the git repository
// origin, as git leaves one (.git/config naming the remote).
func checkout(t *testing.T, dir, origin string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[remote \"origin\"]\n\turl = "+origin+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// hookOut is what a prompt or tool-event hook route answers.
type hookOut struct {
	HookSpecificOutput *struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

func (h hookOut) text() string {
	if h.HookSpecificOutput == nil {
		return ""
	}
	return h.HookSpecificOutput.AdditionalContext
}

// bootstrap is GET /api/session_bootstrap.
type bootstrap struct {
	SessionID string `json:"session_id"`
	Reused    bool   `json:"reused"`
	Context   string `json:"context"`
}

func (in *instance) bootstrap(project, claude, source string) bootstrap {
	in.t.Helper()
	var out bootstrap
	q := url.Values{"project_path": {project}, "claude_session_id": {claude}, "source": {source}}
	if code := in.call("GET", "/api/session_bootstrap?"+q.Encode(), nil, &out); code != 200 {
		in.t.Fatalf("session_bootstrap on %s: %d", in.name, code)
	}
	return out
}

func (in *instance) hook(route string, body map[string]any) hookOut {
	in.t.Helper()
	var out hookOut
	if code := in.call("POST", route, body, &out); code != 200 {
		in.t.Fatalf("%s on %s: %d", route, in.name, code)
	}
	return out
}

// TestHooksAcrossServers: the hook routes (docs/design/hooks.md) behave as one server
// when a conversation's hooks land on different servers, for two people
// with their own checkouts of one repository: the preload shows the shared
// project and the person's own user graph only; a prompt on another server
// finds the conversation's session, knows what its preload showed (the seen
// set) and recalls what others wrote since; session_state names the
// person's own session, never another's; a file read in two conversations
// through two servers is counted as two (the counts are in the database)
// and nudged; maintenance_debt lists the person's graphs only.
func TestHooksAcrossServers(t *testing.T) {
	_, ins := team(t, 3, options{poll: time.Minute})
	aliceToken, bobToken := ins[0].newToken("alice", "write"), ins[0].newToken("bob", "write")
	var alice, bob []*instance
	for _, in := range ins {
		alice, bob = append(alice, in.as(aliceToken)), append(bob, in.as(bobToken))
	}
	base := t.TempDir()
	aliceDir, bobDir := filepath.Join(base, "home", "alice", "hooks"), filepath.Join(base, "Users", "bob", "src", "hooks")
	checkout(t, aliceDir, "git@github.com:acme/hooks.git")
	checkout(t, bobDir, "https://bob@GitHub.com/acme/hooks")
	scratch := filepath.Join(base, "scratch") // no key: a private project of whoever names it
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		t.Fatal(err)
	}

	for _, w := range []struct {
		in   *instance
		body map[string]any
	}{
		{alice[0], map[string]any{"level": "project", "project_path": aliceDir, "id": "pay-flow", "gist": "payment retries use exponential backoff"}},
		{alice[0], map[string]any{"level": "user", "id": "alice-pref", "gist": "alice prefers table driven tests"}},
		{bob[1], map[string]any{"level": "user", "id": "bob-secret", "gist": "bob keeps payment retries notes here"}},
		{bob[1], map[string]any{"level": "project", "project_path": scratch, "id": "bob-scratch", "gist": "bob's private scratch"}},
	} {
		if code, _ := w.in.putNode(w.body); code != 200 {
			t.Fatalf("put %v: %d", w.body["id"], code)
		}
	}

	// Alice's conversation starts on b.
	pre := alice[1].bootstrap(aliceDir, "conv-alice", "startup")
	if !strings.Contains(pre.Context, "pay-flow") || !strings.Contains(pre.Context, "alice-pref") || strings.Contains(pre.Context, "bob-") {
		t.Errorf("alice's preload on b:\n%s\nwant the shared project and her own user graph, nothing of bob's", pre.Context)
	}
	// Bob's starts on c; his preload shows the same project, his user graph.
	bobPre := bob[2].bootstrap(bobDir, "conv-bob", "startup")
	if bobPre.SessionID == pre.SessionID || !strings.Contains(bobPre.Context, "pay-flow") || !strings.Contains(bobPre.Context, "bob-secret") ||
		strings.Contains(bobPre.Context, "alice-pref") {
		t.Errorf("bob's preload on c (session %s, alice's %s):\n%s", bobPre.SessionID, pre.SessionID, bobPre.Context)
	}

	// A resume of alice's conversation on a finds her session.
	if again := alice[0].bootstrap(aliceDir, "conv-alice", "resume"); again.SessionID != pre.SessionID || !again.Reused {
		t.Errorf("alice's resume on a: session %s reused %v; want her session %s", again.SessionID, again.Reused, pre.SessionID)
	}
	// A resume under a Claude session id kg never saw finds, through its
	// transcript, bob's session started on c — for bob on a, never for
	// alice.
	transcript := filepath.Join(t.TempDir(), "conv.jsonl")
	if err := os.WriteFile(transcript, []byte(`{"type":"tool_use","input":{"session_id":"`+bobPre.SessionID+`"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	resume := func(in *instance, dir, claude string) bootstrap {
		var out bootstrap
		q := url.Values{"project_path": {dir}, "claude_session_id": {claude}, "source": {"resume"}, "transcript_path": {transcript}}
		if code := in.call("GET", "/api/session_bootstrap?"+q.Encode(), nil, &out); code != 200 {
			t.Fatalf("resume with a transcript on %s: %d", in.name, code)
		}
		return out
	}
	if got := resume(alice[0], aliceDir, "conv-alice-forked"); got.SessionID == bobPre.SessionID {
		t.Errorf("alice's resume with a transcript naming bob's session took it")
	}
	if got := resume(bob[0], bobDir, "conv-bob-forked"); got.SessionID != bobPre.SessionID || !got.Reused {
		t.Errorf("bob's resume on a with a transcript naming his session from c: session %s reused %v; want %s", got.SessionID, got.Reused, bobPre.SessionID)
	}

	// A sync of her session on a stores its watermarks at once, and
	// keeps what the hooks stored with it.
	alice[0].sync(pre.SessionID)

	// Her prompt on c: what the preload showed is not recalled again; bob's
	// write since, on a, is.
	prompt := map[string]any{"session_id": "conv-alice", "cwd": aliceDir, "prompt": "how do the payment retries back off and when do they stop"}
	if got := alice[2].hook("/api/prompt_context", prompt).text(); got != "" {
		t.Errorf("alice's prompt on c right after her preload recalled:\n%s\nwant nothing: it was all shown", got)
	}
	if code, _ := bob[0].putNode(map[string]any{"level": "project", "project_path": bobDir, "id": "retry-limit", "gist": "payment retries stop after five attempts"}); code != 200 {
		t.Fatal("bob's write")
	}
	recall := alice[2].hook("/api/prompt_context", prompt).text()
	if !strings.Contains(recall, "retry-limit") || strings.Contains(recall, "pay-flow:") || !strings.Contains(recall, pre.SessionID) || strings.Contains(recall, "bob-secret") {
		t.Errorf("alice's prompt on c after bob's write recalled:\n%s\nwant retry-limit only, naming her session %s", recall, pre.SessionID)
	}
	if again := alice[1].hook("/api/prompt_context", prompt).text(); again != "" {
		t.Errorf("the same prompt on b recalled again:\n%s", again)
	}

	// session_state: each person's own session of the project.
	var state struct {
		Found        bool   `json:"found"`
		SessionID    string `json:"session_id"`
		FullReadDone bool   `json:"full_read_done"`
	}
	alice[0].call("GET", "/api/session_state?project_path="+url.QueryEscape(aliceDir), nil, &state)
	if !state.Found || state.SessionID != pre.SessionID || !state.FullReadDone {
		t.Errorf("alice's session_state on a: %+v; want her session %s, read", state, pre.SessionID)
	}
	state.SessionID = ""
	bob[0].call("GET", "/api/session_state?project_path="+url.QueryEscape(bobDir), nil, &state)
	if state.SessionID != bobPre.SessionID {
		t.Errorf("bob's session_state on a: %+v; want his session %s, never alice's %s", state, bobPre.SessionID, pre.SessionID)
	}

	// A file read by alice through a, then by bob through b: two
	// conversations, no memory mentions it: bob is nudged.
	read := func(in *instance, claude, dir string) string {
		return in.hook("/api/tool_event", map[string]any{"session_id": claude, "cwd": dir, "tool_name": "Read",
			"tool_input": map[string]any{"file_path": filepath.Join(dir, "src", "ledger.go")}}).text()
	}
	if got := read(alice[0], "conv-alice", aliceDir); got != "" {
		t.Errorf("the first read of a file nudged: %s", got)
	}
	nudge := read(bob[1], "conv-bob", bobDir)
	if !strings.Contains(nudge, "src/ledger.go") || !strings.Contains(nudge, bobPre.SessionID) {
		t.Errorf("the second conversation reading src/ledger.go, through another server: %q; want a nudge naming the file and bob's session", nudge)
	}
	if again := read(alice[2], "conv-alice", aliceDir); again != "" {
		t.Errorf("a nudge about the same file again within a day, through c: %q", again)
	}

	// Carol's checkout is on a machine no server can read: kg hook sends
	// the project's key beside her cwd, and the routes take it first.
	carol := ins[1].as(ins[0].newToken("carol", "write"))
	carolDir := "/home/carol/not/on/this/machine/hooks"
	q := url.Values{"project_path": {carolDir}, "project_key": {"github.com/acme/hooks"}, "claude_session_id": {"conv-carol"}, "source": {"startup"}}
	var carolPre bootstrap
	if code := carol.call("GET", "/api/session_bootstrap?"+q.Encode(), nil, &carolPre); code != 200 || !strings.Contains(carolPre.Context, "retry-limit") {
		t.Errorf("carol's preload by project_key: %d\n%s\nwant the shared project", code, carolPre.Context)
	}
	carolOnC := ins[2].as(carol.token)
	if code, _ := bob[0].putNode(map[string]any{"level": "project", "project_path": bobDir, "id": "retry-jitter", "gist": "payment retries add random jitter to the backoff"}); code != 200 {
		t.Fatal("bob's second write")
	}
	var carolRecall hookOut
	carolPrompt := map[string]any{"session_id": "conv-carol", "cwd": carolDir, "prompt": "do the payment retries add jitter to the backoff"}
	if code := carolOnC.call("POST", "/api/prompt_context?project_key="+url.QueryEscape("github.com/acme/hooks"), carolPrompt, &carolRecall); code != 200 ||
		!strings.Contains(carolRecall.text(), "retry-jitter") || !strings.Contains(carolRecall.text(), carolPre.SessionID) {
		t.Errorf("carol's prompt on c by project_key: %d\n%s\nwant retry-jitter, naming her session %s", code, carolRecall.text(), carolPre.SessionID)
	}

	// maintenance_debt: alice's user graph and the projects she may read.
	var debt struct {
		Graphs []struct {
			Level   string `json:"level"`
			Project string `json:"project"`
		} `json:"graphs"`
	}
	if code := alice[2].call("GET", "/api/maintenance_debt", nil, &debt); code != 200 {
		t.Fatalf("maintenance_debt: %d", code)
	}
	var projects []string
	users := 0
	for _, g := range debt.Graphs {
		if g.Level == "user" {
			users++
		} else {
			projects = append(projects, g.Project)
		}
	}
	if users != 1 || strings.Contains(strings.Join(projects, " "), "private/bob") || !strings.Contains(strings.Join(projects, " "), "github.com/acme/hooks") {
		t.Errorf("alice's maintenance_debt on c: %d user graphs, projects %v; want her own and the shared project, nothing of bob's", users, projects)
	}
}
