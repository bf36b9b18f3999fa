package hooks

import (
	"testing"

	"github.com/kg-memory/kg/domain"
)

// The agent a session start names is kept with the session — across a
// restart — and told by its stats; a later start that names none keeps it.
func TestSessionStartKeepsTheAgent(t *testing.T) {
	e := newEnv(t)
	r, err := e.hooks().SessionBootstrap(e.Ctx, BootstrapRequest{ProjectPath: projA, ClaudeSessionID: "conv-1", Source: "startup", Agent: "codex"})
	if err != nil {
		t.Fatal(err)
	}
	agent := func(when string) {
		t.Helper()
		st, err := e.Svc.SessionStats(e.Ctx, r.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		if st.Agent != "codex" {
			t.Errorf("%s: the session's agent is %q, want codex", when, st.Agent)
		}
	}
	agent("after the start")
	e.Restart()
	agent("after a restart")
	again, err := e.hooks().SessionBootstrap(e.Ctx, BootstrapRequest{ProjectPath: projA, ClaudeSessionID: "conv-1", Source: "resume"})
	if err != nil || again.SessionID != r.SessionID {
		t.Fatalf("resume: %+v, %v; want session %s", again, err, r.SessionID)
	}
	agent("after a resume naming no agent")

	// A session no hook started names none.
	st, err := e.Svc.SessionStats(e.Ctx, e.Session(projA))
	if err != nil || st.Agent != "" {
		t.Errorf("a registered session's agent: %q, %v; want none", st.Agent, err)
	}
}

// An agent kg hook does not name is refused, naming the field, and starts
// no session.
func TestSessionStartRefusesAnUnknownAgent(t *testing.T) {
	e := newEnv(t)
	_, err := e.hooks().SessionBootstrap(e.Ctx, BootstrapRequest{ProjectPath: projA, ClaudeSessionID: "conv-2", Agent: "cursor"})
	de := wantKind(t, err, domain.KindInvalid, "agent")
	if de.Error() != `agent: "cursor" is not one of claude-code, codex, gemini` {
		t.Errorf("message %q", de.Error())
	}
	if _, ok := e.Support().Sessions().MostRecent(projA, "", e.Support().Now()); ok {
		t.Error("a refused start started a session")
	}
}
