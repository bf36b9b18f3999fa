package hooks

import (
	"context"

	"github.com/kg-memory/kg/app/capture"
	"github.com/kg-memory/kg/app/hookstate"
	"github.com/kg-memory/kg/domain/render"
)

// StopRequest is POST /api/hooks/stop: an agent's Stop hook input.
type StopRequest struct {
	ClaudeSessionID string // the conversation (the agent's own session id)
	CWD             string
	ProjectKey      string // team mode: the key of the project at CWD, as the client resolved it
	// StopHookActive is the agent's stop_hook_active: it is already
	// continuing because a stop hook blocked its stop.
	StopHookActive bool
}

// StopResult is what a stop answers: Text to block the stop with, "" to let
// it stop, and what the rule came to.
type StopResult struct {
	Text    string
	Outcome capture.Outcome
}

// Stop is POST /api/hooks/stop, what an agent's Stop hook calls
// (docs/design/hooks.md#capture-before-forgetting). When the conversation
// did work (its tool events showed an edit, or three tools) and its kg
// session wrote nothing, it asks the model once to record what a future
// session on this project would need, or to stop: never when the agent is
// already continuing for a stop hook, at most once per conversation and
// once per project an hour, and never with KG_CAPTURE=off. The rule and its
// state are app/capture's; this is the glue.
func (h *Hooks) Stop(ctx context.Context, req StopRequest) (StopResult, error) {
	if err := hookstate.CheckString("session_id", req.ClaudeSessionID, maxClaudeID); err != nil {
		return StopResult{}, err
	}
	mode := h.sup.CaptureMode()
	if mode == capture.Off {
		return StopResult{Outcome: capture.Disabled}, nil
	}
	now := h.sup.Now()
	project, err := h.hookProject(ctx, req.ClaudeSessionID, req.CWD, req.ProjectKey, now)
	if err != nil {
		return StopResult{}, err
	}
	session := ""
	if b, ok := h.sessions.Bound(req.ClaudeSessionID, h.sup.Owner(ctx), now); ok && b.ProjectPath == project {
		session = b.ID
	}
	out := h.sup.Capture().Stop(capture.StopAt{Mode: mode, Conversation: req.ClaudeSessionID, Session: session,
		Project: project, Active: req.StopHookActive, Now: now})
	if out != capture.Asked {
		return StopResult{Outcome: out}, nil
	}
	if session == "" {
		// A conversation with no kg session yet: one bound to it, so that
		// the request can name the session its write should carry.
		sess, err := h.sup.NewSession(ctx, project, h.sup.RootOf(project, req.CWD), req.ClaudeSessionID)
		if err != nil {
			return StopResult{}, err
		}
		session = sess.ID
	}
	return StopResult{Text: render.CaptureRequest(session), Outcome: out}, nil
}
