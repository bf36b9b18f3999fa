package hooks

import (
	"context"

	"github.com/kg-memory/kg/app/hookstate"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/recall"
	"github.com/kg-memory/kg/domain/render"
	"github.com/kg-memory/kg/ports"
)

// Limits of what a session start injects (docs/design/hooks.md#the-preload).
const (
	// MaxPreloadHeader and MaxContinuityNote bound the header of a preload
	// and the note of a resumed conversation.
	MaxPreloadHeader  = 600
	MaxContinuityNote = 300
)

// SessionBootstrap is GET /api/session_bootstrap, what a Claude Code session
// start calls (docs/design/hooks.md#session_bootstrap): it finds the session
// of the conversation — the one bound to its Claude session id (revived
// when it expired), else, on a resume or a compaction, the last one its
// transcript names — or starts one bound to it, and returns what to inject:
// the preload, or on a resume of a session that had one, a continuity note.
// A compaction clears the seen set and preloads again.
func (h *Hooks) SessionBootstrap(ctx context.Context, req BootstrapRequest) (_ BootstrapResult, err error) {
	project, err := h.hookProjectOf(ctx, "project_path", req.ProjectPath, req.ProjectKey)
	if err != nil {
		return BootstrapResult{}, err
	}
	if err := req.check(); err != nil {
		return BootstrapResult{}, err
	}
	now := h.sup.Now()
	h.sup.SyncConversation(ctx, req.ClaudeSessionID, "")
	sess, reused, err := h.conversationSession(ctx, project, req, now)
	if err != nil {
		return BootstrapResult{}, err
	}
	defer h.sessions.HookStore(ctx, sess.ID) // after countOp: with the operation counted
	defer h.sup.CountOp(sess.ID, &err)
	res := BootstrapResult{SessionID: sess.ID, Reused: reused}

	compact := req.Source == "compact"
	if reused && req.Source == "resume" {
		hv, _ := h.sessions.HookView(sess.ID)
		if hv.FullReadDone {
			res.Context = render.ContinuityNote(sess.ID)
			return res, nil
		}
	}
	if compact {
		// The conversation's context was summarised: it no longer holds
		// what the seen set says it does.
		h.sessions.WithHooks(sess.ID, func(h *hookstate.State) bool {
			h.ClearSeen()
			h.FullRead = false
			return true
		})
	}
	header := render.PreloadHeader(sess.ID)
	pre, err := h.sup.Preload(ctx, project, now, h.sup.PreloadChars()-runeLen(header)-2)
	if err != nil {
		return BootstrapResult{}, err
	}
	keys := make([]string, len(pre.Shown))
	for i, n := range pre.Shown {
		keys[i] = ports.SeenKey(n.Key.Level, n.ID)
	}
	h.sessions.WithHooks(sess.ID, func(h *hookstate.State) bool {
		for _, k := range keys {
			h.See(k)
		}
		h.FullRead = true
		h.Preloaded = len(keys)
		return true
	})
	res.Text = pre.Text
	res.Context = header + "\n\n" + pre.Text
	res.Stats = &PreloadStats{UserActive: pre.Active[0], ShownGists: len(pre.Shown)}
	if len(pre.Active) > 1 {
		res.Stats.ProjectActive = pre.Active[1]
	}
	return res, nil
}

// check refuses a session start whose fields are too long or hold control
// characters, naming the field.
func (req BootstrapRequest) check() error {
	if err := hookstate.CheckString("claude_session_id", req.ClaudeSessionID, maxClaudeID); err != nil {
		return err
	}
	if err := hookstate.CheckString("source", req.Source, maxSource); err != nil {
		return err
	}
	return hookstate.CheckString("transcript_path", req.TranscriptPath, 4096)
}

// conversationSession finds or starts the session of a session start
// (docs/design/hooks.md#session-binding) and reports whether it existed.
func (h *Hooks) conversationSession(ctx context.Context, project string, req BootstrapRequest, now domain.Micros) (ports.Session, bool, error) {
	claude := req.ClaudeSessionID
	if claude != "" && req.Source != "clear" {
		if b, ok := h.sessions.Bound(claude, h.sup.Owner(ctx), now); ok && b.ProjectPath == project {
			sess, err := h.sessions.Revive(b.ID, claude, now)
			if err == nil {
				return sess, true, nil
			}
		}
	}
	if (req.Source == "resume" || req.Source == "compact") && req.TranscriptPath != "" && h.sup.Transcripts() != nil {
		if id := h.transcriptSession(ctx, project, req.TranscriptPath, now); id != "" {
			if sess, err := h.sessions.Revive(id, claude, now); err == nil {
				return sess, true, nil
			}
		}
	}
	sess, err := h.sup.NewSession(ctx, project, h.sup.RootOf(project, req.ProjectPath), claude)
	return sess, false, err
}

// transcriptSession returns the last kg session the transcript at path
// names that is live, of project and, in team mode, of the requesting
// person, started on any server; "" for none, and for a transcript it may
// not read (outside the home folder) or cannot.
func (h *Hooks) transcriptSession(ctx context.Context, project, path string, now domain.Micros) string {
	owner := h.sup.Owner(ctx)
	tail, err := h.sup.Transcripts().Tail(ctx, path, recall.MaxTranscriptTail)
	if err != nil {
		h.sup.Log().Info("transcript not read", "path", path, "err", err)
		return ""
	}
	for _, id := range recall.TranscriptSessionIDs(tail) {
		if sess, err := h.sup.Lookup(ctx, id, now); err == nil && sess.ProjectPath == project && sess.Principal == owner {
			return id
		}
	}
	return ""
}

func runeLen(s string) int { return len([]rune(s)) }
