package http

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestRequireToken(t *testing.T) {
	tests := []struct {
		name, token, header string
		want                int
	}{
		{"no token configured", "", "", 204},
		{"no token configured, header ignored", "", "Bearer whatever", 204},
		{"right token", "s3cret", "Bearer s3cret", 204},
		{"scheme is case-insensitive", "s3cret", "bearer s3cret", 204},
		{"missing", "s3cret", "", 401},
		{"wrong", "s3cret", "Bearer s3cres", 401},
		{"prefix of the token", "s3cret", "Bearer s3cre", 401},
		{"other scheme", "s3cret", "Basic s3cret", 401},
		{"empty bearer", "s3cret", "Bearer ", 401},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/health", nil)
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			rec := httptest.NewRecorder()
			requireToken(tc.token)(passed).ServeHTTP(rec, req)
			if rec.Code != tc.want {
				t.Fatalf("%d, want %d", rec.Code, tc.want)
			}
			if tc.want == 401 && rec.Header().Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
}
