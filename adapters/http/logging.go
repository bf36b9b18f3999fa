package http

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/kg-memory/kg/adapters/metrics"
)

// logRequests logs one line per request: method, route pattern (not the raw
// path, which may carry ids), status, bytes written and duration, and records
// the same in the request metrics of m (nil: none). A request the server turned
// away (see refused) or that matched no route also gets its path, Host and
// Origin (and Sec-Fetch-Site), so an operator can tell what was refused and
// why. Bodies, query strings (a WebSocket may carry its token there) and the
// Authorization header are never logged: bodies hold node contents
// (docs/design/operations.md#logs).
func logRequests(log *slog.Logger, m *metrics.Metrics) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
			next.ServeHTTP(ww, r)
			status := ww.Status()
			if status == 0 {
				status = http.StatusOK // nothing written: net/http sends 200
			}
			took := time.Since(start)
			route := routeOf(r)
			m.Request(r.Method, route, status, took)
			attrs := []slog.Attr{
				slog.String("method", r.Method),
				slog.String("route", route),
				slog.Int("status", status),
				slog.Int("bytes", ww.BytesWritten()),
				slog.Duration("duration", took),
			}
			if route == unmatched || refused(status) {
				attrs = append(attrs, slog.String("path", bounded(r.URL.Path)), slog.String("host", bounded(r.Host)))
				for _, h := range []struct{ header, key string }{{"Origin", "origin"}, {"Sec-Fetch-Site", "fetch_site"}} {
					if v := r.Header.Get(h.header); v != "" {
						attrs = append(attrs, slog.String(h.key, bounded(v)))
					}
				}
			}
			log.LogAttrs(r.Context(), levelOf(status), "request", attrs...)
		})
	}
}

// unmatched is the route of a request that matched no route, or was
// refused before routing.
const unmatched = "unmatched"

// routeOf returns the chi route pattern the request matched, or unmatched.
func routeOf(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil {
		if p := rc.RoutePattern(); p != "" {
			return p
		}
	}
	return unmatched
}

// refused reports whether status turns a request away at the door rather
// than answering it: a missing token (401), a refused origin or cross-site
// request (403), a method the route does not take (405), a body over its
// limit (413) or not JSON (415), a Host that is not ours (421).
func refused(status int) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusMethodNotAllowed,
		http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusMisdirectedRequest:
		return true
	}
	return false
}

// levelOf is the log level of a response: an error for a server fault, a
// warning for the security refusals an operator should notice (401, 403,
// 421), info otherwise.
func levelOf(status int) slog.Level {
	switch {
	case status >= 500:
		return slog.LevelError
	case status == http.StatusUnauthorized, status == http.StatusForbidden, status == http.StatusMisdirectedRequest:
		return slog.LevelWarn
	}
	return slog.LevelInfo
}

// bounded cuts a request value for the log, so that a huge header or path
// does not make a huge log line.
func bounded(s string) string {
	const max = 200
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
