package rest

import (
	"net/http"
	"time"

	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/adapters/metrics"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/app/hooks"
	"github.com/kg-memory/kg/domain"
)

// The hook routes (docs/design/hooks.md): what the Claude Code plugin of the
// replaced server calls, with its exact shapes, and kg hook with it.

// hookCall is one call of a hook route, recorded when it is answered
// (docs/design/hooks.md#metrics).
type hookCall struct {
	a     *API
	route string
	start time.Time
}

func (a *API) hookCall(route string) hookCall { return hookCall{a: a, route: route, start: time.Now()} }

// fail answers the call with err and records it as failed.
func (c hookCall) fail(w http.ResponseWriter, r *http.Request, err error) {
	c.a.fail(w, r, err)
	c.a.calls.HookAnswered(c.route, 0, true, time.Since(c.start))
}

// answered records the call as answered with injected bytes of text for
// the model (0: nothing to add).
func (c hookCall) answered(injected int) {
	c.a.calls.HookAnswered(c.route, injected, false, time.Since(c.start))
}

// sessionBootstrap serves GET /api/session_bootstrap?project_path&
// project_key&claude_session_id&source&transcript_path: the session of the
// conversation and what to inject at its start.
func (a *API) sessionBootstrap(w http.ResponseWriter, r *http.Request) {
	call := a.hookCall(metrics.HookSessionBootstrap)
	q := r.URL.Query()
	res, err := a.hooks.SessionBootstrap(r.Context(), hooks.BootstrapRequest{ProjectPath: q.Get("project_path"), ProjectKey: q.Get("project_key"),
		ClaudeSessionID: q.Get("claude_session_id"), Source: q.Get("source"), TranscriptPath: q.Get("transcript_path"),
		Agent: q.Get("agent")})
	if err != nil {
		call.fail(w, r, err)
		return
	}
	type stats struct {
		UserActive    int `json:"user_active"`
		ProjectActive int `json:"project_active"`
		ShownGists    int `json:"shown_gists"`
	}
	body := struct {
		SessionID string `json:"session_id"`
		Reused    bool   `json:"reused"`
		Context   string `json:"context"`
		Text      string `json:"text"`
		Stats     any    `json:"stats"`
	}{SessionID: res.SessionID, Reused: res.Reused, Context: res.Context, Text: res.Text, Stats: struct{}{}}
	if st := res.Stats; st != nil {
		body.Stats = stats{UserActive: st.UserActive, ProjectActive: st.ProjectActive, ShownGists: st.ShownGists}
	}
	apijson.Write(w, http.StatusOK, body)
	call.answered(len(res.Context))
}

// sessionState serves GET /api/session_state?project_path&project_key: the project's
// most recently active session and whether it has read its memory.
func (a *API) sessionState(w http.ResponseWriter, r *http.Request) {
	call := a.hookCall(metrics.HookSessionState)
	st, err := a.hooks.SessionStateOf(r.Context(), r.URL.Query().Get("project_path"), r.URL.Query().Get("project_key"))
	if err != nil {
		call.fail(w, r, err)
		return
	}
	apijson.Write(w, http.StatusOK, struct {
		Found          bool    `json:"found"`
		SessionID      *string `json:"session_id"`
		FullReadDone   bool    `json:"full_read_done"`
		PreloadedCount int     `json:"preloaded_count"`
	}{st.Found, optional(st.SessionID), st.FullReadDone, st.PreloadedCount})
	call.answered(0)
}

// hookInput is the part of a Claude Code hook input the routes read; the
// other fields are ignored.
type hookInput struct {
	SessionID string `json:"session_id"`
	CWD       string `json:"cwd"`
	// ProjectKey is not Claude Code's: kg hook adds it as the query's
	// project_key (team mode; a body field is taken too).
	ProjectKey string `json:"project_key"`
	Prompt     string `json:"prompt"`
	// StopHookActive is a Stop input's: the agent is already continuing
	// because a stop hook blocked its stop.
	StopHookActive bool   `json:"stop_hook_active"`
	ToolName       string `json:"tool_name"`
	ToolInput      struct {
		FilePath string `json:"file_path"`
		URL      string `json:"url"`
		Query    string `json:"query"`
	} `json:"tool_input"`
}

// projectKey is the project_key of the query, else of the body.
func (in hookInput) projectKey(r *http.Request) string {
	if k := r.URL.Query().Get("project_key"); k != "" {
		return k
	}
	return in.ProjectKey
}

// promptContext serves POST /api/prompt_context: a UserPromptSubmit hook
// input in, what the hook prints out.
func (a *API) promptContext(w http.ResponseWriter, r *http.Request) {
	call := a.hookCall(metrics.HookPromptContext)
	var in hookInput
	if err := decodeBody(r, &in, true); err != nil {
		call.fail(w, r, err)
		return
	}
	res, err := a.hooks.PromptContext(r.Context(), hooks.PromptRequest{ClaudeSessionID: in.SessionID, CWD: in.CWD,
		ProjectKey: in.projectKey(r), Prompt: in.Prompt})
	if err != nil {
		call.fail(w, r, err)
		return
	}
	writeHookOutput(w, "UserPromptSubmit", res.Text)
	call.answered(len(res.Text))
}

// toolEvent serves POST /api/tool_event: a PostToolUse hook input in, what
// the hook prints out.
func (a *API) toolEvent(w http.ResponseWriter, r *http.Request) {
	call := a.hookCall(metrics.HookToolEvent)
	var in hookInput
	if err := decodeBody(r, &in, true); err != nil {
		call.fail(w, r, err)
		return
	}
	res, err := a.hooks.ToolEvent(r.Context(), hooks.ToolEventRequest{ClaudeSessionID: in.SessionID, CWD: in.CWD,
		ProjectKey: in.projectKey(r), ToolName: in.ToolName,
		FilePath: in.ToolInput.FilePath, URL: in.ToolInput.URL, Query: in.ToolInput.Query})
	if err != nil {
		call.fail(w, r, err)
		return
	}
	writeHookOutput(w, "PostToolUse", res.Text)
	call.answered(len(res.Text))
}

// stop serves POST /api/hooks/stop?agent: a Stop hook input in, and out
// {} to let the agent stop or {"decision":"block","reason":TEXT} to ask the
// model to record what it learned first (Claude Code's and Codex's Stop
// output; docs/design/hooks.md#capture-before-forgetting). agent names the
// agent for kg_capture_requests_total.
func (a *API) stop(w http.ResponseWriter, r *http.Request) {
	call := a.hookCall(metrics.HookStop)
	var in hookInput
	if err := decodeBody(r, &in, true); err != nil {
		call.fail(w, r, err)
		return
	}
	res, err := a.hooks.Stop(r.Context(), hooks.StopRequest{ClaudeSessionID: in.SessionID, CWD: in.CWD,
		ProjectKey: in.projectKey(r), StopHookActive: in.StopHookActive})
	if err != nil {
		call.fail(w, r, err)
		return
	}
	a.calls.CaptureDecided(r.URL.Query().Get("agent"), string(res.Outcome))
	out := StopOutput{}
	if res.Text != "" {
		out = StopOutput{Decision: "block", Reason: res.Text}
	}
	apijson.Write(w, http.StatusOK, out)
	call.answered(len(res.Text))
}

// StopOutput is what a Stop hook prints: {} lets the agent stop; decision
// "block" with a reason has the model continue with the reason as its
// next instruction.
type StopOutput struct {
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// HookOutput is what a Claude Code hook prints to add text to the
// model's context: {} when there is nothing to add.
type HookOutput struct {
	HookSpecificOutput *HookSpecificOutput `json:"hookSpecificOutput,omitempty"`
	// SystemMessage is shown to the person, not the model (kg hook's
	// session start).
	SystemMessage string `json:"systemMessage,omitempty"`
}

// HookSpecificOutput is the event's part of a HookOutput.
type HookSpecificOutput struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext"`
}

func writeHookOutput(w http.ResponseWriter, event, text string) {
	var out HookOutput
	if text != "" {
		out.HookSpecificOutput = &HookSpecificOutput{HookEventName: event, AdditionalContext: text}
	}
	apijson.Write(w, http.StatusOK, out)
}

// maintenanceDebt serves GET /api/maintenance_debt.
func (a *API) maintenanceDebt(w http.ResponseWriter, r *http.Request) {
	rep, err := a.hooks.MaintenanceDebt(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	type graph struct {
		Level           domain.Level `json:"level"`
		Project         *string      `json:"project"`
		Score           float64      `json:"score"`
		Active          int          `json:"active"`
		Archived        int          `json:"archived"`
		Orphaned        int          `json:"orphaned"`
		Unconnected     int          `json:"unconnected"`
		SinceMaintained *float64     `json:"since_maintained"` // seconds; null: never
	}
	out := struct {
		Graphs []graph `json:"graphs"`
	}{Graphs: make([]graph, 0, len(rep.Graphs))}
	for _, g := range rep.Graphs {
		x := graph{Level: g.Level, Project: optional(g.Project), Score: g.Score, Active: g.Active, Archived: g.Archived,
			Orphaned: g.Orphaned, Unconnected: g.Unconnected}
		if g.SinceMaintained >= 0 {
			s := apijson.Seconds(g.SinceMaintained)
			x.SinceMaintained = &s
		}
		out.Graphs = append(out.Graphs, x)
	}
	apijson.Write(w, http.StatusOK, out)
}

// markUseful serves POST /api/nodes/useful {session_id, ids}: kg_useful.
func (a *API) markUseful(w http.ResponseWriter, r *http.Request) {
	var in struct {
		SessionID string   `json:"session_id"`
		IDs       []string `json:"ids"`
	}
	if err := decodeBody(r, &in, true); err != nil {
		a.fail(w, r, err)
		return
	}
	res, err := a.svc.MarkUseful(r.Context(), in.SessionID, in.IDs)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	type node struct {
		Level   domain.Level `json:"level"`
		Project *string      `json:"project"`
		ID      string       `json:"id"`
	}
	list := func(ns []app.UsefulNode) []node {
		out := make([]node, len(ns))
		for i, n := range ns {
			out[i] = node{n.Level, optional(n.Project), n.ID}
		}
		return out
	}
	apijson.Write(w, http.StatusOK, struct {
		Result        string `json:"result"`
		Marked        []node `json:"marked"`
		AlreadyMarked []node `json:"already_marked"`
	}{res.Summary(), list(res.Marked), list(res.Already)})
}
