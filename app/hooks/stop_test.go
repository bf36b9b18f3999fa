package hooks

import (
	"strings"
	"testing"
	"time"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/app/capture"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/render"
)

// tool sends a tool event of the conversation claude.
func (e *env) tool(claude, name string) {
	e.T.Helper()
	if _, err := e.hooks().ToolEvent(e.Ctx, ToolEventRequest{ClaudeSessionID: claude, CWD: projA, ToolName: name}); err != nil {
		e.T.Fatal(err)
	}
}

// stop sends a stop of the conversation claude.
func (e *env) stop(claude string, active bool) StopResult {
	e.T.Helper()
	r, err := e.hooks().Stop(e.Ctx, StopRequest{ClaudeSessionID: claude, CWD: projA, StopHookActive: active})
	if err != nil {
		e.T.Fatal(err)
	}
	return r
}

func TestStopAsksOnceAConversationThatEditedAndWroteNothing(t *testing.T) {
	e := newEnv(t)
	s := e.bootstrap("conv-1", "startup").SessionID
	if r := e.stop("conv-1", false); r.Text != "" || r.Outcome != capture.NoWork {
		t.Fatalf("a stop before any work: %+v, want nothing (no_work)", r)
	}
	e.tool("conv-1", "Edit")
	r := e.stop("conv-1", false)
	if r.Outcome != capture.Asked || r.Text != render.CaptureRequest(s) {
		t.Fatalf("a stop after an edit: %+v, want the capture request naming session %s", r, s)
	}
	if n := len([]rune(r.Text)); n > 400 {
		t.Errorf("the request is %d characters, limit 400", n)
	}
	// The stop the request caused: the agent says its stop hook is active.
	if r := e.stop("conv-1", true); r.Text != "" || r.Outcome != capture.Looping {
		t.Errorf("the stop after the block: %+v, want nothing (active)", r)
	}
	// A later turn of the same conversation: asked once only.
	e.Clock.Advance(2 * time.Hour)
	e.tool("conv-1", "Write")
	if r := e.stop("conv-1", false); r.Text != "" || r.Outcome != capture.Repeat {
		t.Errorf("a second stop of the conversation: %+v, want nothing (repeat)", r)
	}
}

func TestStopCountsThreeToolsAsWork(t *testing.T) {
	e := newEnv(t)
	e.bootstrap("conv-1", "startup")
	e.tool("conv-1", "Read")
	e.tool("conv-1", "Bash")
	if r := e.stop("conv-1", false); r.Outcome != capture.NoWork {
		t.Fatalf("two tools: %+v, want no_work", r)
	}
	e.tool("conv-1", "Bash")
	if r := e.stop("conv-1", false); r.Outcome != capture.Asked {
		t.Errorf("three tools: %+v, want asked", r)
	}
}

func TestStopLeavesAConversationThatWroteToKG(t *testing.T) {
	e := newEnv(t)
	s := e.bootstrap("conv-1", "startup").SessionID
	e.tool("conv-1", "Edit")
	if _, err := e.Svc.PutNode(e.Ctx, project(s), domain.NodeInput{ID: "build-cache", Gist: "the build cache lives in .cache"}); err != nil {
		t.Fatal(err)
	}
	if r := e.stop("conv-1", false); r.Text != "" || r.Outcome != capture.Wrote {
		t.Errorf("a stop after a kg write: %+v, want nothing (wrote)", r)
	}
	// Another conversation's write is not this one's.
	e.bootstrap("conv-2", "startup")
	e.tool("conv-2", "Edit")
	if r := e.stop("conv-2", false); r.Outcome != capture.Asked {
		t.Errorf("a conversation that did not write: %+v, want asked", r)
	}
}

func TestStopAsksAProjectAtMostOnceAnHour(t *testing.T) {
	e := newEnv(t)
	for _, c := range []string{"conv-1", "conv-2", "conv-3"} {
		e.bootstrap(c, "startup")
		e.tool(c, "Edit")
	}
	if r := e.stop("conv-1", false); r.Outcome != capture.Asked {
		t.Fatalf("first: %+v, want asked", r)
	}
	e.Clock.Advance(59 * time.Minute)
	if r := e.stop("conv-2", false); r.Text != "" || r.Outcome != capture.Throttled {
		t.Errorf("another conversation 59 minutes later: %+v, want nothing (throttled)", r)
	}
	e.Clock.Advance(time.Minute)
	if r := e.stop("conv-3", false); r.Outcome != capture.Asked {
		t.Errorf("an hour later: %+v, want asked", r)
	}
}

func TestStopNamesASessionForAConversationWithNone(t *testing.T) {
	e := newEnv(t)
	e.tool("conv-9", "Edit") // no session start ran: no kg session is bound
	r := e.stop("conv-9", false)
	if r.Outcome != capture.Asked {
		t.Fatalf("%+v, want asked", r)
	}
	b, ok := e.Support().Sessions().Bound("conv-9", "", e.Clock.Now())
	if !ok || !strings.Contains(r.Text, `session_id "`+b.ID+`"`) {
		t.Errorf("the request %q names no session bound to the conversation (bound: %v %s)", r.Text, ok, b.ID)
	}
}

func TestStopAsksNothingWithCaptureOff(t *testing.T) {
	e := newEnv(t, func(c *app.Config) { c.Capture = capture.Off })
	e.bootstrap("conv-1", "startup")
	e.tool("conv-1", "Edit")
	if r := e.stop("conv-1", false); r.Text != "" || r.Outcome != capture.Disabled {
		t.Errorf("KG_CAPTURE=off: %+v, want nothing (off)", r)
	}
}

func TestStopCountsNoToolEventRefusedForBadInput(t *testing.T) {
	e := newEnv(t)
	for range 3 {
		if _, err := e.hooks().ToolEvent(e.Ctx, ToolEventRequest{ClaudeSessionID: "conv-1", CWD: "relative/dir", ToolName: "Edit"}); err == nil {
			t.Fatal("a relative cwd was taken")
		}
	}
	if r := e.stop("conv-1", false); r.Outcome != capture.NoWork {
		t.Errorf("after three refused tool events: %+v, want no_work (a refused request changes nothing)", r)
	}
}

func TestStopRefusesALongSessionID(t *testing.T) {
	e := newEnv(t)
	_, err := e.hooks().Stop(e.Ctx, StopRequest{ClaudeSessionID: strings.Repeat("x", 300), CWD: projA})
	if err == nil || !strings.Contains(err.Error(), "session_id") || !strings.Contains(err.Error(), "256") {
		t.Errorf("a 300-character session_id: %v, want an error naming the field and its limit", err)
	}
}
