package http

import (
	"log/slog"

	"github.com/go-chi/chi/v5"

	"github.com/kg-memory/kg/adapters/http/ws"
	"github.com/kg-memory/kg/adapters/metrics"
)

// metricsPath is where the Prometheus scrape is served. It sits behind
// the same Host, Origin and token checks as every route
// (docs/design/http.md#security): a scraper of a server with a token sends
// it as a bearer token.
const metricsPath = "/metrics"

// mountMetrics serves GET /metrics from m. What the server holds now —
// live sessions, loaded graphs and their nodes, open sockets — is read
// from svc and sockets at each scrape, as /health reads it.
func mountMetrics(r chi.Router, m *metrics.Metrics, svc Service, sockets *ws.Server, log *slog.Logger) {
	err := m.ReadState(func() metrics.State {
		g := svc.Gauges()
		st := metrics.State{Sessions: g.Sessions, WebSockets: sockets.Open(), Graphs: make([]metrics.GraphState, len(g.Graphs))}
		for i, gg := range g.Graphs {
			st.Graphs[i] = metrics.GraphState{Key: gg.Key, Stats: gg.Stats}
		}
		return st
	})
	if err != nil {
		// The same Metrics given to a second server: the first one's
		// gauges stay; the requests of both are counted.
		log.Error("metrics: the state gauges are already registered", "err", err)
	}
	r.Get(metricsPath, m.Handler(log).ServeHTTP)
}
