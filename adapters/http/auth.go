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

// bearer extracts the token of an Authorization header value.
func bearer(h string) (string, bool) {
	const prefix = "bearer "
	if len(h) < len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return "", false
	}
	return strings.TrimSpace(h[len(prefix):]), true
}
