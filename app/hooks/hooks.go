// Package hooks holds the use cases of the hook routes
// (docs/design/hooks.md): what Claude Code's hooks call at a session start,
// a prompt and a tool use, and the maintenance debt. It is built on app's
// Service and reaches the rest of the service through app.HookSupport only
// (docs/decisions/0103-hooks-room.md).
package hooks

// The hooks' type, the requests and results of the hook routes, and the
// helpers the use cases of bootstrap.go, prompt.go, toolevent.go and
// debt.go share.

import (
	"context"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/app/sessiontable"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/render"
	"github.com/kg-memory/kg/ports"
)

// Hooks is the hook routes' surface (docs/design/hooks.md): what Claude
// Code's hooks call, kept apart from the tools' surface, app.Service, so
// that each reads on its own (docs/decisions/0084-hooks-type.md). It works
// on the service's graphs and sessions, and is safe for concurrent use.
type Hooks struct {
	svc      *app.Service
	sup      *app.HookSupport
	sessions *sessiontable.Table // the session table, with each session's hook state (HookSupport.Sessions)
}

// New returns the hooks of svc. They share its store, sessions and
// tool-event counts, so a hook sees what the tools changed and the other
// way round.
func New(svc *app.Service) *Hooks {
	sup := app.NewHookSupport(svc)
	return &Hooks{svc: svc, sup: sup, sessions: sup.Sessions()}
}

// BootstrapRequest is GET /api/session_bootstrap: what Claude Code's
// SessionStart hook received on stdin.
type BootstrapRequest struct {
	ProjectPath     string // required, absolute (or, in team mode, the project's key)
	ProjectKey      string // team mode: the project's key as the client resolved it, before ProjectPath
	ClaudeSessionID string // the conversation; "" for none
	Source          string // startup, resume, clear, compact; "" or another: as startup
	TranscriptPath  string // the conversation's transcript, read only inside the home folder
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

// hookProjectOf resolves a hook's project path, required, naming field (a
// project key on a team server, like every other path: canonical), or the
// key the client resolved, which a team server takes first
// (docs/design/team.md#project-keys).
func (h *Hooks) hookProjectOf(ctx context.Context, field, p, key string) (string, error) {
	if p == "" && (key == "" || !h.sup.TeamMode()) {
		return "", domain.Invalidf(field, "required: the absolute path of the project root")
	}
	return h.sup.ProjectOf(ctx, field, p, key)
}

// sessionNudge is the full-read nudge of a prompt: it names the session to
// pass (docs/design/hooks.md#recall).
func sessionNudge(project, session string) string { return render.ReadNudge(project, session) }

// seenKeys are the seen-set keys of nodes of the graphs of lg.
func seenKey(g *domain.Graph, id string) string { return ports.SeenKey(g.Key().Level, id) }
