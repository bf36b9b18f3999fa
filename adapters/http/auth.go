package http

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// requireToken refuses (401) a request without "Authorization: Bearer
// <token>" when a token is configured; with none configured it lets every
// request through (the server then only binds loopback, operations.md).
//
// A browser cannot set headers on a WebSocket, so /ws also takes the token
// as ?token= (http.md, Security); no other route does, which keeps the token
// out of URLs elsewhere. The request log records the route, never the URL.
//
// Both sides are hashed before the constant-time comparison so that neither
// the content nor the length of the token leaks through timing.
func requireToken(token string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if token == "" {
			return next
		}
		want := sha256.Sum256([]byte(token))
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			given, ok := bearer(r.Header.Get("Authorization"))
			if !ok && r.URL.Path == wsPath {
				given = r.URL.Query().Get("token")
				ok = given != ""
			}
			got := sha256.Sum256([]byte(given))
			if !ok || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="kg"`)
				reject(w, http.StatusUnauthorized, "invalid", "Authorization",
					"missing or wrong bearer token; send Authorization: Bearer <KG_AUTH_TOKEN>")
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// wsPath is the route that also takes the token in its query.
const wsPath = "/ws"

// bearer extracts the token of an Authorization header value.
func bearer(h string) (string, bool) {
	const prefix = "bearer "
	if len(h) < len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return "", false
	}
	return strings.TrimSpace(h[len(prefix):]), true
}
