package http

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// passed is the handler behind a middleware under test: it answers 204 so
// a test can tell "let through" from any refusal.
var passed = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })

// serve runs req through mw in front of passed and returns the status.
func serve(t *testing.T, mw func(http.Handler) http.Handler, req *http.Request) int {
	t.Helper()
	rec := httptest.NewRecorder()
	mw(passed).ServeHTTP(rec, req)
	return rec.Code
}
