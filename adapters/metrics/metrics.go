package metrics

import (
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/ports"
)

// latencyBuckets are the upper bounds, in seconds, of every latency
// histogram: kg answers most calls in well under a millisecond and fsyncs
// in a few, so the buckets start at 100 µs; a save stuck behind a slow disk
// still lands below 10 s.
var latencyBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// batchBuckets are the upper bounds of the writes-per-batch histogram:
// powers of two, since batches grow with the writers waiting on one save.
var batchBuckets = prometheus.ExponentialBuckets(1, 2, 10) // 1 … 512

// Metrics is every series of the server on one registry. Build it with
// New; it is safe for concurrent use.
type Metrics struct {
	reg *prometheus.Registry

	// The app's series (ports.Metrics), resolved once per label value so
	// that recording is an array index and an atomic add.
	batches         [numLevels][numBatchOutcomes]prometheus.Counter
	batchWrites     [numLevels]prometheus.Observer
	saves           [numLevels][numSaveOutcomes]prometheus.Observer
	runs            map[ports.CompactionTrigger]prometheus.Counter // read-only once built
	runsVec         *prometheus.CounterVec
	moves           [numMoveKinds]prometheus.Counter
	sessionsStarted prometheus.Counter

	// The HTTP side's series.
	requests *prometheus.HistogramVec
	reqMu    sync.RWMutex
	reqSeen  map[requestKey]prometheus.Observer
	tools    *prometheus.HistogramVec
	hooks    map[string]*hookSeries           // by route; read-only once built
	captures map[[2]string]prometheus.Counter // by agent and outcome; read-only once built
}

var _ ports.Metrics = (*Metrics)(nil)

// New returns the server's metrics on a registry of their own, with the
// Go runtime and process collectors. A server has one: the registry is
// injected, never the global default one, so tests and several servers in
// one process do not share counts.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), reqSeen: map[requestKey]prometheus.Observer{}}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	batches := m.counterVec("kg_write_batches_total",
		"Write batches committed, by graph level and outcome: saved (durable), failed (the save failed or the batch panicked; nothing of it was kept), unchanged (nothing to save).",
		"level", "outcome")
	batchWrites := m.histogramVec("kg_write_batch_writes",
		"Writes per batch: the writes that waited on one save (group commit).", batchBuckets, "level")
	saves := m.histogramVec("kg_save_duration_seconds",
		"Time the storage took to commit one batch durably (the repository's Commit, fsync included), by graph level and outcome (ok, error).",
		latencyBuckets, "level", "outcome")
	for l := range numLevels {
		lv := levelLabels[l]
		for o := range numBatchOutcomes {
			m.batches[l][o] = batches.WithLabelValues(lv, batchOutcomeLabels[o])
		}
		m.batchWrites[l] = batchWrites.WithLabelValues(lv)
		for o := range numSaveOutcomes {
			m.saves[l][o] = saves.WithLabelValues(lv, saveOutcomeLabels[o])
		}
	}

	m.runsVec = m.counterVec("kg_compaction_runs_total",
		"Compaction runs, by what started them: write, load, maintenance, manual.", "trigger")
	m.runs = map[ports.CompactionTrigger]prometheus.Counter{}
	for _, t := range []ports.CompactionTrigger{ports.CompactionOnWrite, ports.CompactionOnLoad, ports.CompactionOnMaintenance, ports.CompactionOnRequest} {
		m.runs[t] = m.runsVec.WithLabelValues(string(t))
	}
	moves := m.counterVec("kg_compaction_moves_total",
		"Nodes moved by compaction once the move is durable, by kind: archived, restored, orphaned, pruned.", "kind")
	for k := range numMoveKinds {
		m.moves[k] = moves.WithLabelValues(moveKindLabels[k])
	}
	m.sessionsStarted = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "kg_sessions_started_total", Help: "Sessions started (kg_read with cwd, POST /api/sessions/register)."})
	m.reg.MustRegister(m.sessionsStarted)

	m.requests = m.histogramVec("kg_http_request_duration_seconds",
		"HTTP requests by method, route pattern (never the raw path) and status class, with their latency; the count is the number of requests. A WebSocket's duration is how long it stayed open.",
		latencyBuckets, "method", "route", "status_class")
	m.tools = m.histogramVec("kg_mcp_tool_call_duration_seconds",
		"MCP tool calls by tool and outcome (ok, invalid, not_found, conflict, unavailable: a tool error; protocol_error: a JSON-RPC error), with their latency; the count is the number of calls.",
		latencyBuckets, "tool", "outcome")
	m.registerHooks()
	return m
}

func (m *Metrics) counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	m.reg.MustRegister(v)
	return v
}

func (m *Metrics) histogramVec(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	v := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
	m.reg.MustRegister(v)
	return v
}

// Register adds collectors of the storage backend (Fsync, BoltWrites) to
// the registry.
func (m *Metrics) Register(cs ...prometheus.Collector) error {
	for _, c := range cs {
		if err := m.reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// Gatherer is the registry as its metrics are read.
func (m *Metrics) Gatherer() prometheus.Gatherer { return m.reg }

// Handler serves the registry in the Prometheus text format (GET
// /metrics). A collector that fails is logged and the rest still served.
// Call it once per Metrics: it registers its own error counter.
func (m *Metrics) Handler(log *slog.Logger) http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorLog:      slogPrinter{log},
		ErrorHandling: promhttp.ContinueOnError,
		Registry:      m.reg,
	})
}

// slogPrinter is the logger promhttp wants, writing to slog.
type slogPrinter struct{ log *slog.Logger }

func (p slogPrinter) Println(v ...any) { p.log.Error("serving /metrics", "err", slogArgs(v)) }

func slogArgs(v []any) any {
	if len(v) == 1 {
		return v[0]
	}
	return v
}

// Graph levels as array indexes.
const (
	levelUser = iota
	levelProject
	numLevels
)

var levelLabels = [numLevels]string{levelUser: string(domain.LevelUser), levelProject: string(domain.LevelProject)}

func levelIndex(l domain.Level) (int, bool) {
	switch l {
	case domain.LevelUser:
		return levelUser, true
	case domain.LevelProject:
		return levelProject, true
	}
	return 0, false
}

// Outcomes of a batch.
const (
	batchSaved = iota
	batchFailed
	batchUnchanged
	numBatchOutcomes
)

var batchOutcomeLabels = [numBatchOutcomes]string{batchSaved: "saved", batchFailed: "failed", batchUnchanged: "unchanged"}

// Outcomes of a save.
const (
	saveOK = iota
	saveError
	numSaveOutcomes
)

var saveOutcomeLabels = [numSaveOutcomes]string{saveOK: "ok", saveError: "error"}

// Kinds of compaction moves.
const (
	moveArchived = iota
	moveRestored
	moveOrphaned
	movePruned
	numMoveKinds
)

var moveKindLabels = [numMoveKinds]string{moveArchived: "archived", moveRestored: "restored", moveOrphaned: "orphaned", movePruned: "pruned"}

// BatchCommitted implements ports.Metrics.
func (m *Metrics) BatchCommitted(b ports.Batch) {
	l, ok := levelIndex(b.Level)
	if !ok {
		return
	}
	m.batchWrites[l].Observe(float64(b.Writes))
	switch {
	case b.Err != nil:
		m.batches[l][batchFailed].Inc()
		if b.Saved {
			m.saves[l][saveError].Observe(b.SaveTime.Seconds())
		}
	case !b.Saved:
		m.batches[l][batchUnchanged].Inc()
	default:
		m.batches[l][batchSaved].Inc()
		m.saves[l][saveOK].Observe(b.SaveTime.Seconds())
	}
}

// CompactionRan implements ports.Metrics.
func (m *Metrics) CompactionRan(t ports.CompactionTrigger) {
	if c, ok := m.runs[t]; ok {
		c.Inc()
		return
	}
	m.runsVec.WithLabelValues(string(t)).Inc() // a trigger added to ports but not here
}

// NodesMoved implements ports.Metrics.
func (m *Metrics) NodesMoved(mv compaction.Moves) {
	m.moves[moveArchived].Add(float64(len(mv.Archived)))
	m.moves[moveRestored].Add(float64(len(mv.Restored)))
	m.moves[moveOrphaned].Add(float64(len(mv.Orphaned)))
	m.moves[movePruned].Add(float64(len(mv.Pruned)))
}

// SessionStarted implements ports.Metrics.
func (m *Metrics) SessionStarted() { m.sessionsStarted.Inc() }

// requestKey is the labels of one request series.
type requestKey struct{ method, route, class string }

// Request records one HTTP request: its method, the route pattern it
// matched (or "unmatched"), its status and how long it took. The series of
// a method, route and status class is resolved once and kept, so a request
// costs a map lookup and an atomic add, and allocates nothing. route must
// come from a bounded set (the router's patterns), never from the request.
func (m *Metrics) Request(method, route string, status int, took time.Duration) {
	if m == nil {
		return
	}
	k := requestKey{method: methodLabel(method), route: route, class: statusClass(status)}
	m.reqMu.RLock()
	o, ok := m.reqSeen[k]
	m.reqMu.RUnlock()
	if !ok {
		o = m.requests.WithLabelValues(k.method, k.route, k.class)
		m.reqMu.Lock()
		m.reqSeen[k] = o
		m.reqMu.Unlock()
	}
	o.Observe(took.Seconds())
}

// methodLabel bounds the method label: a client may send any token as a
// method.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return m
	}
	return "other"
}

var statusClasses = [...]string{"1xx", "2xx", "3xx", "4xx", "5xx"}

func statusClass(status int) string {
	if c := status/100 - 1; c >= 0 && c < len(statusClasses) {
		return statusClasses[c]
	}
	return "other"
}

// ToolOutcome is how a tool call ended.
type ToolOutcome uint8

// The outcomes of a tool call: success, a tool error (isError) of each
// kind a client can act on, or a JSON-RPC error (an internal fault or a
// panic, whose details only the log has).
const (
	ToolOK ToolOutcome = iota
	ToolInvalid
	ToolNotFound
	ToolConflict
	ToolUnavailable
	ToolProtocolError
	numToolOutcomes
)

var toolOutcomeLabels = [numToolOutcomes]string{
	ToolOK: "ok", ToolInvalid: "invalid", ToolNotFound: "not_found", ToolConflict: "conflict",
	ToolUnavailable: "unavailable", ToolProtocolError: "protocol_error",
}

// String returns the outcome's label value.
func (o ToolOutcome) String() string {
	if o < numToolOutcomes {
		return toolOutcomeLabels[o]
	}
	return "unknown"
}

// ToolCalls records the calls of one tool. Its series, one per outcome,
// exist from the start (at zero), so a rate over them never starts from
// an absent series.
type ToolCalls struct {
	by [numToolOutcomes]prometheus.Observer
}

// Tool returns the recorder of the tool name's calls; resolve it once, when
// the tool is registered. On a nil *Metrics it returns nil, which records
// nothing.
func (m *Metrics) Tool(name string) *ToolCalls {
	if m == nil {
		return nil
	}
	t := &ToolCalls{}
	for o := range numToolOutcomes {
		t.by[o] = m.tools.WithLabelValues(name, toolOutcomeLabels[o])
	}
	return t
}

// Observe records one call that ended with o after took.
func (t *ToolCalls) Observe(o ToolOutcome, took time.Duration) {
	if t == nil || o >= numToolOutcomes {
		return
	}
	t.by[o].Observe(took.Seconds())
}
