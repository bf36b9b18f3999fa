package http

import (
	"context"
	"net/http"

	"github.com/kg-memory/kg/adapters/http/ui"
	"github.com/kg-memory/kg/adapters/http/ws"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Team mode (docs/design/team.md#people-and-tokens): every request carries a
// person's token — "Authorization: Bearer <token>", "?token=" on /ws, or the
// web page's login cookie, which holds the token itself — and runs as the
// principal it names. A revoked token stops working within the store's
// cache time (2 s), and a /ws opened with it is closed (1008) within that
// and one recheck interval (1 s). A token of scope read may read and sync,
// and nothing else.

// requirePrincipal authenticates each request with a (nil: not team mode,
// every request passes).
func requirePrincipal(a ports.Authenticator) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if a == nil {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			path := r.URL.Path
			if r.Method == http.MethodPost && (path == ui.LoginPath || path == ui.LogoutPath) {
				next.ServeHTTP(w, r)
				return
			}
			token, ok := requestToken(r)
			if isHealth(r) && !ok {
				// A load balancer probes without a token: it gets the
				// status alone (health.go), never the details.
				next.ServeHTTP(w, r)
				return
			}
			if ok {
				p, err := a.Authenticate(r.Context(), token)
				if err == nil {
					if why := refusal(p, r); why != "" {
						reject(w, http.StatusForbidden, string(domain.KindInvalid), "Authorization", why)
						return
					}
					ctx := app.WithPrincipal(r.Context(), p)
					if path == wsPath {
						ctx = ws.WithRecheck(ctx, recheckToken(a, token))
					}
					next.ServeHTTP(w, r.WithContext(ctx))
					return
				}
				if domain.KindOf(err) == domain.KindUnavailable {
					if isHealth(r) {
						next.ServeHTTP(w, r) // the status alone: degraded, as the database is away
						return
					}
					reject(w, http.StatusServiceUnavailable, string(domain.KindUnavailable), "", "the tokens cannot be checked right now; retry")
					return
				}
			}
			unauthorized(w, r, "missing, unknown or revoked token; send Authorization: Bearer <token> (kg token create makes one)")
		})
	}
}

// recheckToken checks token again for an open /ws, through the same
// Authenticate (and its cache) as every request, so a token revoked on any
// server closes the sockets opened with it on every server within the
// cache time plus ws.DefaultRecheckInterval.
func recheckToken(a ports.Authenticator, token string) ws.Recheck {
	return func(ctx context.Context) error {
		_, err := a.Authenticate(ctx, token)
		return err
	}
}

// isHealth reports whether r asks for the health check, which answers
// without a token with the status alone (docs/design/team.md#when-the-database-is-away).
func isHealth(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && (r.URL.Path == "/health" || r.URL.Path == "/api/health")
}

// requestToken finds the token a request carries.
func requestToken(r *http.Request) (string, bool) {
	if t, ok := bearer(r.Header.Get("Authorization")); ok {
		return t, true
	}
	if r.URL.Path == wsPath && r.URL.Query().Has("token") {
		return r.URL.Query().Get("token"), true
	}
	if c, err := r.Cookie(loginCookie); err == nil && c.Value != "" && fromOwnOrigin(r) {
		return c.Value, true
	}
	return "", false
}

// refusal says why p's scope does not allow r, "" when it does.
func refusal(p ports.Principal, r *http.Request) string {
	if r.URL.Path == metricsPath && p.Scope != ports.ScopeAdmin {
		// The metrics name every graph this server holds — other people's
		// user graphs and private projects among them — so they are the
		// operators' (docs/decisions/0061-authorization-matrix.md).
		return "the token of " + p.Name + " has scope " + p.Scope + ": /metrics names every graph, and needs a token of scope admin (kg token create --scope admin)"
	}
	if !mayServe(p, r) {
		return "the token of " + p.Name + " has scope read: it can read and sync, not change memory"
	}
	return ""
}

// mayServe reports whether p's scope allows r: anything for write and
// admin; for read, reads, syncs and session starts — the REST routes that
// change no memory and MCP (whose tools check the scope themselves).
func mayServe(p ports.Principal, r *http.Request) bool {
	if p.CanWrite() {
		return true
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return true
	}
	switch r.URL.Path {
	case "/", "/api/sync", "/api/sessions/register", ui.LogoutPath:
		return true
	}
	return false
}

// teamLogin is POST /ui/login in team mode: a person's token gets a login
// cookie holding it, so that revoking the token ends the page's login too.
func teamLogin(a ports.Authenticator) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			ui.WriteLogin(w, http.StatusBadRequest, "The form could not be read; try again.")
			return
		}
		token := r.PostForm.Get("token")
		if _, err := a.Authenticate(r.Context(), token); err != nil {
			ui.WriteLogin(w, http.StatusUnauthorized, "That token is unknown or revoked. Try again.")
			return
		}
		http.SetCookie(w, &http.Cookie{Name: loginCookie, Value: token, Path: "/", MaxAge: int(loginTTL.Seconds()),
			HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, ui.Prefix, http.StatusSeeOther)
	}
}
