package http

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestLimitBody(t *testing.T) {
	const max = 10
	tests := []struct {
		name          string
		body          string
		contentLength int64 // -1: unknown (chunked)
		want          int
	}{
		{"no body", "", 0, 204},
		{"at the limit", strings.Repeat("x", max), max, 204},
		{"over, declared", strings.Repeat("x", max+1), max + 1, 413},
		{"over, chunked", strings.Repeat("x", max+1), -1, 413},
		{"at the limit, chunked", strings.Repeat("x", max), -1, 204},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tc.body))
			req.ContentLength = tc.contentLength
			var seen string
			h := limitBody(max)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				seen = string(b)
				w.WriteHeader(http.StatusNoContent)
			}))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.want {
				t.Fatalf("%d, want %d", rec.Code, tc.want)
			}
			if tc.want == 204 && seen != tc.body {
				t.Errorf("handler read %q, want %q", seen, tc.body)
			}
		})
	}
}
