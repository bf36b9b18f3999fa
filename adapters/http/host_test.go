package http

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestCheckHost(t *testing.T) {
	mw := checkHost([]string{"kg.internal", "Box.LAN:9000", " "})
	tests := []struct {
		host string
		want int
	}{
		{"localhost", 204},
		{"localhost:8765", 204},
		{"LOCALHOST:1", 204},
		{"127.0.0.1:8765", 204},
		{"127.0.0.1", 204},
		{"[::1]:8765", 204},
		{"[::1]", 204},
		{"kg.internal", 204},
		{"kg.internal:443", 204},
		{"box.lan:9000", 204},
		{"box.lan:9001", 421},
		{"box.lan", 421},
		{"evil.example", 421},
		{"evil.example:8765", 421},
		{"127.0.0.2:8765", 421},
		{"localhost.evil.example", 421},
		{"", 421},
	}
	for _, tc := range tests {
		t.Run(tc.host, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.Host = tc.host
			if got := serve(t, mw, req); got != tc.want {
				t.Errorf("Host %q: %d, want %d", tc.host, got, tc.want)
			}
		})
	}
}
