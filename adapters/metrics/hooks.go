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
)

var hookRoutes = [...]string{HookSessionBootstrap, HookSessionState, HookPromptContext, HookToolEvent}

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
		"Hook route calls by route (session_bootstrap, session_state, prompt_context, tool_event) and outcome (injected: text for the model; empty: nothing to add; error: an error answer), with their latency; the count is the number of calls.",
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
