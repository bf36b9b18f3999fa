package hooks

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/kg-memory/kg/app/hookstate"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/render"
)

// Nudge throttles of tool events (docs/design/hooks.md#tool-events).
const (
	maxSessionNudges = 3
	nudgeGap         = 10 * 60 * domain.Second
)

// The kinds of target a tool event counts.
const (
	targetFile   = "file:"
	targetURL    = "url:"
	targetSearch = "search:"
)

// ToolEvent is POST /api/tool_event, what a Claude Code tool use calls
// (docs/design/hooks.md#tool-events). A Read of a file under the project
// root, a WebFetch of a URL and a WebSearch are counted per project, in
// memory (saved with the maintenance tick: no write per event). When a file
// was read in two or more conversations, or a URL or query used twice, and no
// node of the user or project graph mentions it, the answer nudges the model
// to record what it learned — at most once a day per target, three times per
// session, ten minutes apart. Anything else is answered with nothing.
func (h *Hooks) ToolEvent(ctx context.Context, req ToolEventRequest) (_ HookText, err error) {
	if err := hookstate.CheckString("session_id", req.ClaudeSessionID, maxClaudeID); err != nil {
		return HookText{}, err
	}
	now := h.sup.Now()
	project, err := h.hookProject(ctx, req.ClaudeSessionID, req.CWD, req.ProjectKey, now)
	if err != nil {
		return HookText{}, err
	}
	h.sup.Capture().Tool(req.ClaudeSessionID, req.ToolName, now) // the "did work" of a stop (stop.go)
	key, mention, ok := h.toolTarget(h.toolRoot(project, req.CWD), req)
	if !ok {
		return HookText{}, nil
	}
	tt := h.sup.ToolEvents().Record(ctx, project, key, req.ClaudeSessionID, now)
	if strings.HasPrefix(key, targetFile) && len(tt.Sessions) < 2 || !strings.HasPrefix(key, targetFile) && tt.Count < 2 {
		return HookText{}, nil
	}
	sess, ok := h.hookSession(ctx, req.ClaudeSessionID, project, now)
	if !ok {
		return HookText{}, nil
	}
	defer h.sessions.HookStore(ctx, sess.ID) // after countOp: with the operation counted
	defer h.sup.CountOp(sess.ID, &err)
	if hv, _ := h.sessions.HookView(sess.ID); !nudgeAllowed(hv.Nudges, hv.LastNudge, now) {
		return HookText{}, nil
	}
	lg, err := h.sup.LockGraphs(ctx, project)
	if err != nil {
		return HookText{}, err
	}
	covered := mentioned(lg.Graphs(), mention)
	lg.Unlock()
	if covered {
		return HookText{}, nil
	}
	claimed := false
	h.sessions.WithHooks(sess.ID, func(h *hookstate.State) bool {
		if !nudgeAllowed(h.Nudges, h.LastNudge, now) {
			return false
		}
		h.Nudges++
		h.LastNudge = now
		claimed = true
		return true
	})
	if !claimed || !h.sup.ToolEvents().ClaimNudge(ctx, project, key, now) {
		return HookText{}, nil
	}
	return HookText{Text: toolNudge(key, mention, sess.ID)}, nil
}

// nudgeAllowed is the per-session throttle: three nudges, ten minutes apart.
func nudgeAllowed(nudges int, last, now domain.Micros) bool {
	return nudges < maxSessionNudges && (last == 0 || now-last >= nudgeGap)
}

// toolRoot is the folder a tool event's files are counted under: the
// project's own path, or in team mode, where the project is a key, the
// folder the event's cwd names (so a file is counted by its path in the
// repository, the same in every checkout); "" when there is none (a
// project named by its key alone: no file is counted).
func (h *Hooks) toolRoot(project, cwd string) string {
	if !h.sup.TeamMode() {
		return project
	}
	root := h.sup.RootOf(project, cwd)
	if root != "" {
		if c, err := h.sup.Canonical(root); err == nil {
			root = c
		}
	}
	return root
}

// toolTarget is what a tool event counts: its key among the project's
// targets and the text a node mentions it by; ok is false for an event
// that is not counted (another tool, a file outside the project root).
func (h *Hooks) toolTarget(root string, req ToolEventRequest) (key, mention string, ok bool) {
	switch req.ToolName {
	case "Read":
		p := req.FilePath
		if root == "" || p == "" || !filepath.IsAbs(p) || hookstate.CheckString("tool_input.file_path", p, maxToolTarget) != nil {
			return "", "", false
		}
		if c, err := h.sup.Canonical(p); err == nil {
			p = c
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", "", false
		}
		rel = filepath.ToSlash(rel)
		return targetFile + rel, rel, true
	case "WebFetch":
		u := strings.TrimSpace(req.URL)
		if u == "" || hookstate.CheckString("tool_input.url", u, maxToolTarget) != nil {
			return "", "", false
		}
		return targetURL + u, u, true
	case "WebSearch":
		q := strings.ToLower(strings.Join(strings.Fields(req.Query), " "))
		if q == "" || hookstate.CheckString("tool_input.query", q, maxToolTarget) != nil {
			return "", "", false
		}
		return targetSearch + q, q, true
	}
	return "", "", false
}

// mentioned reports whether a node of graphs mentions text in its id,
// gist, notes or touches, or an edge of them names it as an end
// (case-insensitively). It reads every node: a nudge is rare, and this is
// what lets it never speak about something memory holds.
func mentioned(graphs []*domain.Graph, text string) bool {
	want := strings.ToLower(text)
	has := func(s string) bool { return strings.Contains(strings.ToLower(s), want) }
	for _, g := range graphs {
		if g == nil {
			continue
		}
		for n := range g.AllNodes() {
			if has(n.ID) || has(n.Gist) {
				return true
			}
			for _, x := range n.Notes {
				if has(x) {
					return true
				}
			}
			for _, x := range n.Touches {
				if has(x) {
					return true
				}
			}
		}
		for e := range g.AllEdges() {
			if has(e.From) || has(e.To) {
				return true
			}
		}
	}
	return false
}

// toolNudge is the text of a tool-event nudge: of a file, a URL or a web
// search, by the target key's kind.
func toolNudge(key, mention, session string) string {
	switch {
	case strings.HasPrefix(key, targetFile):
		return render.FileNudge(mention, session)
	case strings.HasPrefix(key, targetURL):
		return render.URLNudge(mention, session)
	}
	return render.SearchNudge(mention, session)
}
