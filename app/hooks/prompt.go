package hooks

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/kg-memory/kg/app/hookstate"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/graphsearch"
	"github.com/kg-memory/kg/domain/recall"
	"github.com/kg-memory/kg/domain/render"
	"github.com/kg-memory/kg/ports"
)

// SessionStateOf is GET /api/session_state: the most recently active session
// of the project, and whether it has read its memory
// (docs/design/hooks.md#session_state).
func (h *Hooks) SessionStateOf(ctx context.Context, projectPath, projectKey string) (SessionState, error) {
	project, err := h.hookProjectOf(ctx, "project_path", projectPath, projectKey)
	if err != nil {
		return SessionState{}, err
	}
	h.sup.SyncConversation(ctx, "", project)
	sess, ok := h.sessions.MostRecent(project, h.sup.Owner(ctx), h.sup.Now())
	if !ok {
		return SessionState{}, nil
	}
	hv, _ := h.sessions.HookView(sess.ID)
	return SessionState{Found: true, SessionID: sess.ID, FullReadDone: hv.FullReadDone, PreloadedCount: hv.PreloadedCount}, nil
}

// hookSession is the session a prompt or tool event of a conversation
// belongs to: the one bound to its Claude session id (revived if it went
// dormant), else the project's most recent. ok is false for none.
func (h *Hooks) hookSession(ctx context.Context, claude, project string, now domain.Micros) (ports.Session, bool) {
	owner := h.sup.Owner(ctx)
	if b, ok := h.sessions.Bound(claude, owner, now); ok && (project == "" || b.ProjectPath == project) {
		if sess, err := h.sessions.Revive(b.ID, "", now); err == nil {
			return sess, true
		}
	}
	if project == "" {
		return ports.Session{}, false
	}
	return h.sessions.MostRecent(project, owner, now)
}

// hookProject resolves the project of a prompt or tool event: cwd, or,
// without one, the project of the session bound to the conversation. In
// team mode it first brings in the conversation's session from the
// database (HookSupport.SyncConversation).
func (h *Hooks) hookProject(ctx context.Context, claude, cwd, key string, now domain.Micros) (string, error) {
	if cwd != "" || key != "" && h.sup.TeamMode() {
		p, err := h.sup.ProjectOf(ctx, "cwd", cwd, key)
		if err == nil {
			h.sup.SyncConversation(ctx, claude, p)
		}
		return p, err
	}
	h.sup.SyncConversation(ctx, claude, "")
	if b, ok := h.sessions.Bound(claude, h.sup.Owner(ctx), now); ok && b.ProjectPath != "" {
		return b.ProjectPath, nil
	}
	return "", domain.Invalidf("cwd", "required: the absolute path of the project root (or a session_id bound to a session of one)")
}

// PromptContext is POST /api/prompt_context, what a Claude Code prompt
// calls (docs/design/hooks.md#recall). Until the conversation's session has
// had a preload or a full read, it answers with the nudge to call kg_read,
// naming the session (started, bound to the conversation, when there is
// none); the nudge is given at most maxPromptNudges times. Then it recalls:
// the nodes the prompt's human text finds above the relevance threshold
// that the session has not been shown, at most recallMaxNodes, with the
// edges among them and to nodes it has seen.
func (h *Hooks) PromptContext(ctx context.Context, req PromptRequest) (_ HookText, err error) {
	if err := hookstate.CheckString("session_id", req.ClaudeSessionID, maxClaudeID); err != nil {
		return HookText{}, err
	}
	if !utf8.ValidString(req.Prompt) {
		return HookText{}, domain.Invalidf("prompt", "must be valid UTF-8")
	}
	now := h.sup.Now()
	project, err := h.hookProject(ctx, req.ClaudeSessionID, req.CWD, req.ProjectKey, now)
	if err != nil {
		return HookText{}, err
	}
	h.sup.Capture().Began(req.ClaudeSessionID, now) // where a stop starts counting writes to the project (stop.go)
	sess, ok := h.hookSession(ctx, req.ClaudeSessionID, project, now)
	if !ok && req.ClaudeSessionID != "" {
		// A conversation kg has not seen: its session starts here, so
		// that the nudge can name it and a full read in it ends the nudge.
		if sess, err = h.sup.NewSession(ctx, project, h.sup.RootOf(project, req.CWD), req.ClaudeSessionID); err != nil {
			return HookText{}, err
		}
		ok = true
	}
	if !ok {
		return HookText{Text: sessionNudge(project, "")}, nil
	}
	defer h.sessions.HookStore(ctx, sess.ID) // after countOp: with the operation counted
	defer h.sup.CountOp(sess.ID, &err)
	nudge := false
	h.sessions.WithHooks(sess.ID, func(h *hookstate.State) bool {
		if h.FullRead || h.PromptNudges >= maxPromptNudges {
			return false
		}
		h.PromptNudges++
		nudge = true
		return true
	})
	if nudge {
		return HookText{Text: sessionNudge(project, sess.ID)}, nil
	}
	return h.recall(ctx, sess, project, req.Prompt)
}

// recall is the recall of PromptContext for session sess: the unseen
// relevant nodes that fit recallMaxChars, then the edges among them and to
// nodes the session has seen, while they fit.
func (h *Hooks) recall(ctx context.Context, sess ports.Session, project, prompt string) (HookText, error) {
	query, ok := recall.RecallQuery(recall.PromptText(prompt))
	if !ok {
		return HookText{}, nil
	}
	lg, err := h.sup.LockGraphs(ctx, project)
	if err != nil {
		return HookText{}, err
	}
	defer lg.Unlock()
	found, err := graphsearch.Find(lg.Graphs(), query, recall.RecallSearchLimit)
	if err != nil {
		return HookText{}, err
	}
	cands, keys := recallCandidates(lg.Graphs(), found.Hits, lg.NodeCount())
	var b strings.Builder
	b.WriteString(render.RecallHeader(sess.ID))
	left := recallMaxChars - runeLen(b.String())
	shown, left := writeRecallNodes(&b, cands, setOf(h.sessions.Unseen(sess.ID, keys)), left)
	if len(shown) == 0 {
		return HookText{}, nil
	}
	inShown := map[string]bool{}
	for _, c := range shown {
		inShown[c.key] = true
	}
	edges, ends := recallEdges(shown, inShown)
	seenEnds := map[string]bool{}
	if len(ends) > 0 {
		unseenEnds := setOf(h.sessions.Unseen(sess.ID, ends))
		for _, k := range ends {
			seenEnds[k] = !unseenEnds[k]
		}
	}
	writeRecallEdges(&b, edges, func(k string) bool { return inShown[k] || seenEnds[k] }, left)
	shownKeys := make([]string, len(shown))
	for i, c := range shown {
		shownKeys[i] = c.key
	}
	h.sessions.See(sess.ID, shownKeys...)
	return HookText{Text: strings.TrimSuffix(b.String(), "\n"), Nodes: len(shown)}, nil
}

// recallPick is a node a recall may show: a search hit of graph g, and its
// seen-set key.
type recallPick struct {
	g   *domain.Graph
	hit graphsearch.Hit
	key string
}

// recallCandidates are the hits above the relevance threshold, best first,
// with their seen-set keys; nodes is how many nodes the graphs hold.
func recallCandidates(graphs []*domain.Graph, hits []graphsearch.Hit, nodes int) ([]recallPick, []string) {
	var cands []recallPick
	var keys []string
	for _, h := range hits {
		if recall.Relevance(h.Score, nodes) < recall.RecallThreshold {
			break // hits come best first
		}
		var g *domain.Graph
		for _, x := range graphs {
			if x != nil && x.Key() == h.Key {
				g = x
			}
		}
		k := seenKey(g, h.Node.ID)
		cands = append(cands, recallPick{g, h, k})
		keys = append(keys, k)
	}
	return cands, keys
}

// writeRecallNodes writes the lines of the unseen candidates that fit in
// left characters, at most recallMaxNodes, and returns them and what is left.
func writeRecallNodes(b *strings.Builder, cands []recallPick, unseen map[string]bool, left int) ([]recallPick, int) {
	var shown []recallPick
	for _, c := range cands {
		if !unseen[c.key] || len(shown) == recallMaxNodes {
			continue
		}
		line := render.Node{Label: recallLabel(c.g), ID: c.hit.Node.ID, Gist: c.hit.Node.Gist}
		if n := line.Len(); n <= left {
			left -= n
			line.Write(b)
			shown = append(shown, c)
		}
	}
	return shown, left
}

// recallEdge is an edge of graph g.
type recallEdge struct {
	g *domain.Graph
	e *domain.Edge
}

// recallEdges are the edges of the shown nodes to nodes, each edge among
// them once, and the seen-set keys of their other ends that are not shown.
func recallEdges(shown []recallPick, inShown map[string]bool) ([]recallEdge, []string) {
	var edges []recallEdge
	var ends []string
	for _, c := range shown {
		for _, e := range c.g.EdgesOf(c.hit.Node.ID) {
			other := e.To
			if other == c.hit.Node.ID {
				other = e.From
			}
			if !c.g.IsNode(other) {
				continue
			}
			ok := seenKey(c.g, other)
			if inShown[ok] && e.From != c.hit.Node.ID {
				continue // listed from its other end
			}
			edges = append(edges, recallEdge{c.g, e})
			if !inShown[ok] {
				ends = append(ends, ok)
			}
		}
	}
	return edges, ends
}

// writeRecallEdges writes, under their header, the edges both of whose ends
// the session sees (shown now or seen before) while they fit in left
// characters.
func writeRecallEdges(b *strings.Builder, edges []recallEdge, sees func(key string) bool, left int) {
	wroteEdges := false
	for _, x := range edges {
		if !sees(seenKey(x.g, x.e.From)) || !sees(seenKey(x.g, x.e.To)) {
			continue
		}
		line := render.Indent + x.e.Key().String() + "\n"
		cost := runeLen(line)
		if !wroteEdges {
			cost += runeLen(render.RecallEdgesHeader)
		}
		if cost > left {
			continue
		}
		if !wroteEdges {
			b.WriteString(render.RecallEdgesHeader)
			wroteEdges = true
		}
		left -= cost
		b.WriteString(line)
	}
}

// setOf is the set of keys.
func setOf(keys []string) map[string]bool {
	set := make(map[string]bool, len(keys))
	for _, k := range keys {
		set[k] = true
	}
	return set
}

// recallLabel marks a node of the user graph in a recall: most memory is
// the project's.
func recallLabel(g *domain.Graph) string {
	if g.Key().Level == domain.LevelUser {
		return render.UserLabel
	}
	return ""
}
