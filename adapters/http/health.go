package http

import (
	"net/http"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
)

// health serves GET /health and GET /api/health.
type health struct {
	cfg Config
	svc Service
}

// Health is the JSON of the health check (docs/design/http.md#health), as
// the server answers it and as `kg status` reads it.
type Health struct {
	Status         string   `json:"status"` // "ok", or "degraded" when a graph could not be loaded
	Version        string   `json:"version"`
	Transport      string   `json:"transport"`
	Storage        string   `json:"storage"`
	ActiveSessions int      `json:"active_sessions"`
	LoadedGraphs   int      `json:"loaded_graphs"`
	UptimeS        int64    `json:"uptime_s"`
	Problems       []string `json:"problems,omitempty"`
	// Settings are the settings the server runs with, by flag name, as a
	// command writes them (the token left out): a command that would go
	// through the server with other ones refuses rather than ignore them.
	Settings map[string]string `json:"settings,omitempty"`
}

// statusOnly is the health body of a team server to a request without a
// verified token: a load balancer's probe learns whether to send traffic,
// and nothing of who uses the server.
type statusOnly struct {
	Status string `json:"status"`
}

// ServeHTTP answers 200 with the health body, degraded or not: the server
// itself is up, and a monitor reads status. A team server answers a
// request that carries no verified token with the status alone.
func (h *health) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a := h.svc.Health(r.Context())
	if _, verified := app.PrincipalOf(r.Context()); h.cfg.Principals != nil && !verified {
		status := "ok"
		if len(a.Problems) > 0 {
			status = "degraded"
		}
		writeJSON(w, http.StatusOK, statusOnly{Status: status})
		return
	}
	body := Health{
		Status:         "ok",
		Version:        h.cfg.Version,
		Transport:      "streamable-http",
		Storage:        h.cfg.Storage,
		ActiveSessions: a.ActiveSessions,
		LoadedGraphs:   a.LoadedGraphs,
		Problems:       a.Problems,
		Settings:       h.cfg.Settings,
	}
	if len(a.Problems) > 0 {
		body.Status = "degraded"
	}
	if h.cfg.Clock != nil {
		body.UptimeS = int64(max(0, h.cfg.Clock.Now()-h.cfg.Started) / domain.Second)
	}
	writeJSON(w, http.StatusOK, body)
}
