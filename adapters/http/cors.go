package http

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
)

// routeMethods are the methods a route may take, in the order Allow lists
// them.
var routeMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// corsHeaders are the request headers a page of an allowed origin may send:
// the token, the body's type, and the headers of MCP's Streamable HTTP.
const corsHeaders = "Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID"

// allowedMethods lists the methods the router has a route for at the
// request's path, as the Allow header of a 405 and of a preflight's answer
// name them (docs/design/http.md#cross-origin-pages).
func allowedMethods(mux *chi.Mux, r *http.Request) []string {
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	var out []string
	for _, m := range routeMethods {
		if mux.Find(chi.NewRouteContext(), m, path) != "" {
			out = append(out, m)
		}
	}
	return out
}

// crossOrigin lets the pages of the configured origins use the server as
// the browser's CORS rules ask (docs/design/http.md#cross-origin-pages). It
// runs after checkOrigin, so an Origin it sees is the server's own or one
// of extra, and before the token check, since a browser sends a preflight
// without credentials:
//
//   - a preflight (OPTIONS with Origin and Access-Control-Request-Method)
//     from one of extra is answered 204 with the methods the route takes
//     and the headers a client sends; nothing else runs;
//   - any other request from one of extra gets Access-Control-Allow-Origin
//     naming it, so the page can read the answer.
//
// The server's own origin needs neither (its page is same-origin), and a
// request without an Origin header (every client that is not a browser)
// is not touched.
func crossOrigin(extra []string, methods func(*http.Request) []string) func(http.Handler) http.Handler {
	allowed := originSet(extra)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			origin := r.Header.Get("Origin")
			if origin == "" || !allowed[strings.ToLower(origin)] {
				next.ServeHTTP(w, r)
				return
			}
			h := w.Header()
			h.Add("Vary", "Origin")
			h.Set("Access-Control-Allow-Origin", origin)
			if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
				next.ServeHTTP(w, r)
				return
			}
			ms := methods(r)
			if len(ms) == 0 {
				h.Del("Access-Control-Allow-Origin")
				next.ServeHTTP(w, r) // no such route: its 404
				return
			}
			h.Add("Vary", "Access-Control-Request-Method, Access-Control-Request-Headers")
			h.Set("Access-Control-Allow-Methods", strings.Join(ms, ", "))
			h.Set("Access-Control-Allow-Headers", corsHeaders)
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
		})
	}
}
