package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// injectedBuckets are the upper bounds, in bytes, of the injected-text
// histogram: a recall or a nudge is at most 2,500 characters, a preload at
// most KG_PRELOAD_CHARS (9,000 by default), and a raised budget still lands
// below the last bound (docs/design/hooks.md#metrics).
var injectedBuckets = []float64{256, 512, 1024, 2048, 4096, 8192, 16384, 32768}

// The hook routes, as the label values of the hook series.
const (
	HookSessionBootstrap = "session_bootstrap"
	HookSessionState     = "session_state"
	HookPromptContext    = "prompt_context"
	HookToolEvent        = "tool_event"
	HookStop             = "stop"
)

var hookRoutes = [...]string{HookSessionBootstrap, HookSessionState, HookPromptContext, HookToolEvent, HookStop}

// CaptureAgents and CaptureOutcomes are the label values of
// kg_capture_requests_total (docs/design/hooks.md#capture-before-forgetting):
// the agents kg hook speaks for, "other" for any caller that names none,
// and what a stop came to (app/capture's outcomes; a test holds the two
// lists equal).
var (
	CaptureAgents   = []string{"claude-code", "codex", "gemini", "other"}
	CaptureOutcomes = []string{"asked", "off", "active", "repeat", "no_work", "wrote", "throttled"}
)

// Outcomes of a hook call.
const (
	hookInjected = iota
	hookEmpty
	hookError
	numHookOutcomes
)

var hookOutcomeLabels = [numHookOutcomes]string{hookInjected: "injected", hookEmpty: "empty", hookError: "error"}

// hookSeries is the series of one hook route, resolved once.
type hookSeries struct {
	calls    [numHookOutcomes]prometheus.Observer
	injected prometheus.Observer
}

func (m *Metrics) registerHooks() {
	calls := m.histogramVec("kg_hook_duration_seconds",
		"Hook route calls by route (session_bootstrap, session_state, prompt_context, tool_event, stop) and outcome (injected: text for the model; empty: nothing to add; error: an error answer), with their latency; the count is the number of calls.",
		latencyBuckets, "route", "outcome")
	injected := m.histogramVec("kg_hook_injected_bytes",
		"Bytes of text a hook route put in front of the model (the preload's context, a recall, a nudge), by route; the count is the calls that injected something.",
		injectedBuckets, "route")
	m.hooks = make(map[string]*hookSeries, len(hookRoutes))
	for _, r := range hookRoutes {
		s := &hookSeries{injected: injected.WithLabelValues(r)}
		for o := range numHookOutcomes {
			s.calls[o] = calls.WithLabelValues(r, hookOutcomeLabels[o])
		}
		m.hooks[r] = s
	}
	captures := m.counterVec("kg_capture_requests_total",
		"Stops seen by the stop hook route, by agent (claude-code, codex, gemini, other) and outcome: asked (the model was asked to record what it learned), off (KG_CAPTURE=off), active (the agent was already continuing for a stop hook), repeat (asked before in the conversation), no_work, wrote (the session wrote to kg), throttled (the project was asked within the hour).",
		"agent", "outcome")
	m.captures = make(map[[2]string]prometheus.Counter, len(CaptureAgents)*len(CaptureOutcomes))
	for _, a := range CaptureAgents {
		for _, o := range CaptureOutcomes {
			m.captures[[2]string{a, o}] = captures.WithLabelValues(a, o)
		}
	}
}

// CaptureDecided counts one stop of agent (an agent not in CaptureAgents
// is "other") that came to outcome (one of CaptureOutcomes; any other is
// ignored). Safe on a nil *Metrics.
func (m *Metrics) CaptureDecided(agent, outcome string) {
	if m == nil {
		return
	}
	c, ok := m.captures[[2]string{agent, outcome}]
	if !ok {
		c, ok = m.captures[[2]string{"other", outcome}]
	}
	if ok {
		c.Inc()
	}
}

// HookAnswered records one call of the hook route (one of the Hook*
// constants; any other is ignored): how long it took, how many bytes of
// text it gave the model (0: none) and whether it failed. Safe on a nil
// *Metrics.
func (m *Metrics) HookAnswered(route string, injected int, failed bool, took time.Duration) {
	if m == nil {
		return
	}
	s, ok := m.hooks[route]
	if !ok {
		return
	}
	o := hookEmpty
	switch {
	case failed:
		o = hookError
	case injected > 0:
		o = hookInjected
		s.injected.Observe(float64(injected))
	}
	s.calls[o].Observe(took.Seconds())
}
