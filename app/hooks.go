package app

// The hooks' type, the requests and results of the hook routes
// (docs/design/hooks.md), and the helpers the use cases of bootstrap.go,
// prompt.go, toolevent.go, debt.go and useful.go share.

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/kg-memory/kg/app/graphstore"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/render"
	"github.com/kg-memory/kg/ports"
)

// Hooks is the hook routes' surface (docs/design/hooks.md): what Claude
// Code's hooks call, kept apart from the tools' surface, Service, so that
// each reads on its own (docs/decisions/0084-hooks-type.md). It works on the
// service's graphs and sessions, and is safe for concurrent use.
type Hooks struct {
	svc *Service
}

// NewHooks returns the hooks of svc. They share its store, sessions and
// tool-event counts, so a hook sees what the tools changed and the other
// way round.
func NewHooks(svc *Service) *Hooks { return &Hooks{svc: svc} }

// BootstrapRequest is GET /api/session_bootstrap: what Claude Code's
// SessionStart hook received on stdin.
type BootstrapRequest struct {
	ProjectPath     string // required, absolute (or, in team mode, the project's key)
	ProjectKey      string // team mode: the project's key as the client resolved it, before ProjectPath
	ClaudeSessionID string // the conversation; "" for none
	Source          string // startup, resume, clear, compact; "" or another: as startup
	TranscriptPath  string // the conversation's transcript, read only inside the home folder
	Agent           string // the agent whose hook calls (claude-code, codex, gemini); "" unsaid
}

// BootstrapResult is what a session start injects.
type BootstrapResult struct {
	SessionID string
	Reused    bool
	Context   string // the whole text to inject
	Text      string // the preload alone; "" for a continuity note
	// Stats is nil for a continuity note.
	Stats *PreloadStats
}

// PreloadStats count what a preload holds.
type PreloadStats struct {
	UserActive, ProjectActive, ShownGists int
}

// SessionState is GET /api/session_state.
type SessionState struct {
	Found          bool
	SessionID      string
	FullReadDone   bool
	PreloadedCount int
}

// PromptRequest is POST /api/prompt_context: Claude Code's UserPromptSubmit
// hook input.
type PromptRequest struct {
	ClaudeSessionID string
	CWD             string
	ProjectKey      string // team mode: the key of the project at CWD, as the client resolved it
	Prompt          string
}

// ToolEventRequest is POST /api/tool_event: Claude Code's PostToolUse hook
// input.
type ToolEventRequest struct {
	ClaudeSessionID string
	CWD             string
	ProjectKey      string // team mode: the key of the project at CWD, as the client resolved it
	ToolName        string
	// FilePath, URL and Query are the fields of tool_input the tracked
	// tools carry: Read's file_path, WebFetch's url, WebSearch's query.
	FilePath, URL, Query string
}

// HookText is what a prompt or a tool event adds to the agent's context: ""
// for nothing.
type HookText struct {
	Text string
	// Nodes counts the nodes the text shows (recall); 0 for a nudge.
	Nodes int
}

// DebtReport is GET /api/maintenance_debt: every graph, worst first.
type DebtReport struct {
	Graphs []GraphDebt
}

// GraphDebt is the maintenance debt of one graph
// (docs/design/hooks.md#maintenance-debt).
type GraphDebt struct {
	Level                                   domain.Level
	Project                                 string
	Score                                   float64
	Active, Archived, Orphaned, Unconnected int
	// SinceMaintained is how long ago the last maintenance pass was
	// recorded (kg_progress task "maintain"); -1 for never.
	SinceMaintained domain.Micros
}

// UsefulResult is what kg_useful marked.
type UsefulResult struct {
	SessionID string
	Marked    []UsefulNode // marked now
	Already   []UsefulNode // marked by this session before: unchanged
}

// UsefulNode names a node of one graph.
type UsefulNode struct {
	Level   domain.Level
	Project string
	ID      string
}

// Limits of the hook routes' own fields.
const (
	maxClaudeID    = 256
	maxSource      = 64
	maxToolTarget  = 2048
	recallMaxChars = 2500
	recallMaxNodes = 5
	// maxPromptNudges is how many prompts of one session get the
	// full-read nudge; after them recall speaks, read or not.
	maxPromptNudges = 3
)

// checkHookString refuses a hook field that is too long or holds control
// characters, naming it.
func checkHookString(field, v string, limit int) error {
	if !utf8.ValidString(v) {
		return domain.Invalidf(field, "must be valid UTF-8")
	}
	if n := utf8.RuneCountInString(v); n > limit {
		return domain.Invalidf(field, "%d chars, limit %d", n, limit)
	}
	if strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return domain.Invalidf(field, "must not hold control characters")
	}
	return nil
}

// hookProjectOf resolves a hook's project path, required, naming field (a
// project key on a team server, like every other path: canonical), or the
// key the client resolved, which a team server takes first
// (docs/design/team.md#project-keys).
func (h *Hooks) hookProjectOf(ctx context.Context, field, p, key string) (string, error) {
	if p == "" && (key == "" || h.svc.store.Shared == nil) {
		return "", domain.Invalidf(field, "required: the absolute path of the project root")
	}
	return h.svc.scope.projectOf(ctx, field, p, key)
}

// lockedGraphs are the user graph and a project graph, read-locked in the
// store's order (user first) for as long as a hook builds its answer.
type lockedGraphs struct {
	entries []*graphstore.Entry
	graphs  []*domain.Graph
	at      []*graphstore.Entry // the entry of each of graphs; nil for a nil graph
}

// lockGraphs loads and read-locks the user graph and project's graph,
// caught up first with what other servers committed (team mode). A graph
// that cannot be loaded is left out (nil in graphs): a hook serves what it
// can. Release with unlock.
func (h *Hooks) lockGraphs(ctx context.Context, project string) (*lockedGraphs, error) {
	t := target{project: project, owner: h.svc.scope.owner(ctx)}
	lg := &lockedGraphs{}
	h.svc.store.Fresh(ctx, t.keys()...) // team mode: what other servers committed
	for _, k := range t.keys() {
		e, down, err := h.svc.reader.spanned(ctx, k)
		if err != nil {
			lg.unlock()
			return nil, err
		}
		if down != nil {
			h.svc.log.Warn("hook served without a graph", "graph", k.String(), "err", down)
			lg.graphs = append(lg.graphs, nil)
			lg.at = append(lg.at, nil)
			continue
		}
		e.RLock()
		lg.entries = append(lg.entries, e)
		lg.graphs = append(lg.graphs, e.Graph())
		lg.at = append(lg.at, e)
	}
	return lg, nil
}

func (lg *lockedGraphs) unlock() {
	for _, e := range lg.entries {
		e.RUnlock()
	}
	lg.entries = nil
}

// nodeCount is the number of nodes the graphs hold, every tier.
func (lg *lockedGraphs) nodeCount() int {
	n := 0
	for _, g := range lg.graphs {
		if g != nil {
			n += g.NodeCount()
		}
	}
	return n
}

// sessionNudge is the full-read nudge of a prompt: it names the session to
// pass (docs/design/hooks.md#recall).
func sessionNudge(project, session string) string { return render.ReadNudge(project, session) }

// seenKeys are the seen-set keys of nodes of the graphs of lg.
func seenKey(g *domain.Graph, id string) string { return ports.SeenKey(g.Key().Level, id) }
