package rest_test

import (
	"net/http"
	"testing"

	"github.com/kg-memory/kg/domain"
)

func TestUnknownRoutesAndMethods(t *testing.T) {
	e := newEnv(t)
	e.do("GET", "/api/nope", nil).fails(t, http.StatusNotFound, "not_found", "", `no such route: "/api/nope"`)
	e.do("GET", "/api/nodes/user", nil).fails(t, http.StatusNotFound, "not_found", "", "no such route")
	e.do("PUT", "/api/nodes", `{}`).fails(t, http.StatusMethodNotAllowed, "invalid", "method", "PUT is not allowed")
	e.do("POST", "/api/graph/read", `{}`).fails(t, http.StatusMethodNotAllowed, "invalid", "method", "POST is not allowed")
	if r := e.do("GET", "/api/health", nil).ok(t); r.body["status"] != "ok" {
		t.Errorf("/api/health = %s", r.raw)
	}
}

// The security middleware covers /api like every route
// (docs/design/http.md#security): a page on another site can neither read nor
// recall.
func TestSecurityOnTheAPI(t *testing.T) {
	e := newEnv(t, seedTiers(), func(_ *testing.T, s *setup) {
		s.http.AllowedOrigins = []string{"http://localhost:5173"}
	})
	tests := []struct {
		name         string
		method, path string
		header       []string
		want         int
	}{
		{"rebound host", "GET", "/api/graph/read", []string{"Host", "evil.example:8765"}, 421},
		{"foreign origin", "POST", "/api/sessions/register", []string{"Origin", "https://evil.example"}, 403},
		{"cross-site recall", "GET", "/api/nodes/user/a", []string{"Sec-Fetch-Site", "cross-site"}, 403},
		{"cross-site read", "GET", "/api/graph/read", []string{"Sec-Fetch-Site", "cross-site"}, 403},
		{"configured origin", "GET", "/api/graph/read", []string{"Origin", "http://localhost:5173"}, 200},
		{"same-origin", "GET", "/api/projects", []string{"Sec-Fetch-Site", "same-origin"}, 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if r := e.do(tc.method, tc.path, nil, tc.header...); r.status != tc.want {
				t.Errorf("%d, want %d: %s", r.status, tc.want, r.raw)
			}
		})
	}
	if n, _ := e.stored(domain.UserGraph, "a"); n.Tier != domain.Archived {
		t.Error("a refused cross-site GET recalled the node")
	}
}

func TestTokenOnTheAPI(t *testing.T) {
	e := newEnv(t, func(_ *testing.T, s *setup) { s.http.AuthToken = "s3cret" })
	e.do("GET", "/api/graph/read", nil).fails(t, http.StatusUnauthorized, "invalid", "Authorization", "bearer token")
	e.do("GET", "/api/graph/read", nil, "Authorization", "Bearer wrong").fails(t, http.StatusUnauthorized, "invalid", "Authorization", "bearer token")
	// Only /ws takes the token in its query.
	e.do("GET", "/api/graph/read?token=s3cret", nil).fails(t, http.StatusUnauthorized, "invalid", "Authorization", "bearer token")
	e.do("GET", "/api/graph/read", nil, "Authorization", "Bearer s3cret").ok(t)
}
