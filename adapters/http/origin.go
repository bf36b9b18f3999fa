package http

import (
	"net/http"
	"strings"
)

// checkOrigin refuses (403) a request whose Origin header names neither the
// server's own origin nor one of extra. mcp-go does not check Origin, and a
// browser page on another origin can POST a simple request to "/" without
// a preflight. A request without an Origin header (every non-browser
// client) passes.
//
// The server's own origin is the scheme and the Host the request was sent
// to; checkHost runs first, so that Host is already one we answer to.
func checkOrigin(extra []string) func(http.Handler) http.Handler {
	allowed := originSet(extra)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			origin := r.Header.Get("Origin")
			if origin == "" {
				next.ServeHTTP(w, r)
				return
			}
			o := strings.ToLower(origin)
			if o == ownOrigin(r) || allowed[o] {
				next.ServeHTTP(w, r)
				return
			}
			reject(w, http.StatusForbidden, "invalid", "Origin",
				"Origin "+quote(origin)+" is not allowed; add it to KG_ALLOWED_ORIGINS to let that page in")
		})
	}
}

// originSet is the configured origins as a request's Origin is compared
// with them: lower case, without a trailing slash.
func originSet(extra []string) map[string]bool {
	allowed := map[string]bool{}
	for _, o := range extra {
		if o = strings.TrimRight(strings.ToLower(strings.TrimSpace(o)), "/"); o != "" {
			allowed[o] = true
		}
	}
	return allowed
}

// ownOrigin is the origin of the server as the request addressed it.
func ownOrigin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + strings.ToLower(r.Host)
}
