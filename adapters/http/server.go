package http

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/kg-memory/kg/adapters/events"
	"github.com/kg-memory/kg/adapters/http/mcp"
	"github.com/kg-memory/kg/adapters/http/rest"
	"github.com/kg-memory/kg/adapters/http/ui"
	"github.com/kg-memory/kg/adapters/http/ws"
	"github.com/kg-memory/kg/adapters/metrics"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Config holds the settings of the HTTP side.
type Config struct {
	Version        string   // the binary's version, reported by /health and MCP
	Storage        string   // "json" or "bolt", reported by /health
	AllowedHosts   []string // Host values allowed beyond loopback: "name" (any port) or "name:port" (KG_ALLOWED_HOSTS)
	AllowedOrigins []string // Origins allowed beyond the server's own, e.g. "http://localhost:5173" (KG_ALLOWED_ORIGINS)
	AuthToken      string   // when set, every request needs "Authorization: Bearer <token>" (KG_AUTH_TOKEN)
	// Settings are what the server runs with, by flag name, which /health
	// reports; they must not hold the token.
	Settings map[string]string
	// BodyReadTimeout is the base time a request body has to arrive in;
	// each MiB it declares adds a second (bodydeadline.go). 0:
	// DefaultBodyReadTimeout.
	BodyReadTimeout time.Duration

	// WebSocket tunes /ws; its zero value takes the defaults of
	// docs/design/http.md#websocket (256 sockets, a ping every 30 s). Its
	// AllowedOrigins are set from AllowedOrigins above.
	WebSocket ws.Options

	// Clock and Started give the uptime /health reports; they are passed in
	// so that tests control it.
	Clock   ports.Clock
	Started domain.Micros

	// Metrics records the requests and tool calls and is served at
	// /metrics; nil: metrics of this server alone (metrics.New).
	Metrics *metrics.Metrics

	// Principals, in team mode, checks the person's token every request
	// carries (principals.go); nil otherwise.
	Principals ports.Authenticator
}

// Service is what the HTTP side needs of the app: the use cases of the
// tools, the REST API and the WebSocket, and the health report.
// *app.Service implements it.
type Service interface {
	mcp.Service
	rest.Service
	ws.Service
	Health(ctx context.Context) app.Health
	Gauges() app.Gauges
}

// Hooks is what the HTTP side needs of the hooks: the use cases of the hook
// routes. *hooks.Hooks implements it.
type Hooks interface {
	rest.Hooks
}

// NewServer returns the one handler of the HTTP side: the chi router with
// its security middleware, serving MCP at "/", the health check at /health
// and /api/health, the metrics at /metrics, the REST API under /api, the
// WebSocket at /ws, fed by hub, and the web page at /ui/. Anything else is
// 404.
func NewServer(cfg Config, svc Service, hooks Hooks, hub *events.Hub, log *slog.Logger) http.Handler {
	auth := newTokenAuth(cfg.AuthToken, cfg.Clock)
	m := cfg.Metrics
	if m == nil {
		m = metrics.New()
	}
	r := chi.NewRouter()
	methods := func(req *http.Request) []string { return allowedMethods(r, req) }
	r.Use(
		logRequests(log, m),
		middleware.Recoverer,
		boundBody(cfg.BodyReadTimeout),
		checkHost(cfg.AllowedHosts),
		rejectCrossSite,
		checkOrigin(cfg.AllowedOrigins),
		crossOrigin(cfg.AllowedOrigins, methods),
		requireToken(auth),
		requirePrincipal(cfg.Principals),
	)
	notFound := func(w http.ResponseWriter, r *http.Request) {
		reject(w, http.StatusNotFound, string(domain.KindNotFound), "", "no such route: "+quote(r.URL.Path))
	}
	r.NotFound(notFound)
	r.MethodNotAllowed(func(w http.ResponseWriter, req *http.Request) {
		ms := methods(req)
		w.Header().Set("Allow", strings.Join(ms, ", "))
		reject(w, http.StatusMethodNotAllowed, string(domain.KindInvalid), "method",
			req.Method+" is not allowed on "+quote(req.URL.Path)+"; it takes "+strings.Join(ms, ", "))
	})

	h := &health{cfg: cfg, svc: svc}
	r.Get("/health", h.ServeHTTP)
	r.Route("/api", func(r chi.Router) {
		r.Get("/health", h.ServeHTTP)
		rest.New(svc, hooks, log, m).Register(r, limitBody)
	})
	wsOpts := cfg.WebSocket
	wsOpts.AllowedOrigins = cfg.AllowedOrigins
	sockets := ws.New(svc, hub, wsOpts, log)
	r.Get(wsPath, sockets.ServeHTTP)

	// MCP answers POST only; chi answers GET and DELETE (and any other
	// method) with 405, as stateless Streamable HTTP has no server stream
	// and no session to delete.
	r.With(limitBody(domain.MaxBodyBytes)).Post("/", mcp.New(cfg.Version, svc, log, m).ServeHTTP)

	mountMetrics(r, m, svc, sockets, log)

	mountUI(r, auth, cfg.Principals, http.HandlerFunc(notFound), log)
	return r
}

// mountUI serves the web page at /ui/ and its login and logout forms.
func mountUI(r chi.Router, auth *tokenAuth, team ports.Authenticator, notFound http.Handler, log *slog.Logger) {
	var page http.Handler
	page, err := ui.New(ui.Options{Auth: auth != nil || team != nil, NotFound: notFound})
	if err != nil {
		// The page is embedded at build time, so this is a broken build
		// (ui's tests catch it); the rest of the server still serves.
		log.Error("web page unavailable", "err", err)
		page = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			reject(w, http.StatusInternalServerError, string(domain.KindInternal), "", err.Error())
		})
	}
	r.Get("/ui", page.ServeHTTP)
	r.Head("/ui", page.ServeHTTP)
	r.Handle("/ui/*", page)
	login := auth.login
	if team != nil {
		login = teamLogin(team)
	}
	r.With(limitBody(loginBodyMax)).Post(ui.LoginPath, login)
	r.Post(ui.LogoutPath, logout)
}
