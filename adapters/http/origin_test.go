package http

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestCheckOrigin(t *testing.T) {
	mw := checkOrigin([]string{"http://localhost:5173/", "https://Tools.Example"})
	tests := []struct {
		name, host, origin string
		want               int
	}{
		{"no origin (not a browser)", "127.0.0.1:8765", "", 204},
		{"own origin", "127.0.0.1:8765", "http://127.0.0.1:8765", 204},
		{"own origin, other case", "localhost:8765", "http://LOCALHOST:8765", 204},
		{"configured", "127.0.0.1:8765", "http://localhost:5173", 204},
		{"configured, other case", "127.0.0.1:8765", "https://tools.example", 204},
		{"same host, other port", "127.0.0.1:8765", "http://127.0.0.1:9999", 403},
		{"other scheme", "127.0.0.1:8765", "https://127.0.0.1:8765", 403},
		{"another site", "127.0.0.1:8765", "https://evil.example", 403},
		{"null", "127.0.0.1:8765", "null", 403},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/", nil)
			req.Host = tc.host
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if got := serve(t, mw, req); got != tc.want {
				t.Errorf("%d, want %d", got, tc.want)
			}
		})
	}
}
