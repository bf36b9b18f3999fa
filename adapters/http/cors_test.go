package http

import (
	"net/http"
	"strings"
	"testing"
)

// A page of an origin --allowed-origins names can use the REST API and MCP,
// as the browser's CORS rules ask: its preflight is answered (without the
// token, which a browser never sends in one) with the methods of the route
// and the headers clients send, and its requests get
// Access-Control-Allow-Origin. A foreign origin's preflight is refused, and
// the server's own origin, which needs none, gets no CORS headers.
func TestAllowedOriginsGetCORS(t *testing.T) {
	const page = "http://localhost:5173"
	s := newTestServer(t, Config{AuthToken: "s3cret", AllowedOrigins: []string{page + "/"}}, nil)
	preflight := func(origin, path, method string) *http.Response {
		t.Helper()
		resp, _ := s.do(t, http.MethodOptions, path, "", map[string]string{"Origin": origin,
			"Access-Control-Request-Method": method, "Access-Control-Request-Headers": "authorization, content-type"})
		return resp
	}
	for _, tc := range []struct {
		path, method, allow string
	}{
		{"/api/nodes", "POST", "POST"},
		{"/api/nodes/user/x", "DELETE", "GET, DELETE"},
		{"/api/graph/read", "GET", "GET"},
		{"/", "POST", "POST"},
	} {
		resp := preflight(page, tc.path, tc.method)
		h := resp.Header
		if resp.StatusCode != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != page ||
			h.Get("Access-Control-Allow-Methods") != tc.allow ||
			!strings.Contains(h.Get("Access-Control-Allow-Headers"), "Authorization") ||
			!strings.Contains(h.Get("Access-Control-Allow-Headers"), "Content-Type") || !strings.Contains(strings.Join(h.Values("Vary"), ","), "Origin") {
			t.Errorf("preflight of %s %s: %d %v", tc.method, tc.path, resp.StatusCode, h)
		}
	}
	if resp := preflight("https://evil.example", "/api/nodes", "POST"); resp.StatusCode != http.StatusForbidden ||
		resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a foreign origin's preflight: %d %v", resp.StatusCode, resp.Header)
	}
	if resp := preflight(page, "/api/no-such-route", "GET"); resp.StatusCode == http.StatusNoContent ||
		resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a preflight of no route: %d %v", resp.StatusCode, resp.Header)
	}

	// The request itself: with the token, the page can read the answer; a
	// refusal (here no token) carries the header too, so the page can read
	// why.
	auth := map[string]string{"Origin": page, "Authorization": "Bearer s3cret"}
	resp, body := s.do(t, "POST", "/api/nodes", `{"level":"user","id":"from-the-page","gist":"g"}`, auth)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != page {
		t.Errorf("POST from the page: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	resp, _ = s.do(t, "GET", "/api/graph/read", "", map[string]string{"Origin": page})
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Access-Control-Allow-Origin") != page {
		t.Errorf("GET from the page without the token: %d %v", resp.StatusCode, resp.Header)
	}
	resp, _ = s.do(t, "GET", "/api/graph/read", "", map[string]string{"Origin": s.url, "Authorization": "Bearer s3cret"})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("GET from the server's own origin: %d, CORS %q; want none", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
}

// A 405 names the methods the route takes, in Allow, for every route of the
// router, MCP's "/" included.
func TestMethodNotAllowedSaysWhatIsAllowed(t *testing.T) {
	s := newTestServer(t, Config{}, nil)
	for _, tc := range []struct {
		method, path, allow string
	}{
		{"GET", "/", "POST"},
		{"DELETE", "/", "POST"},
		{"PUT", "/api/nodes", "POST"},
		{"PUT", "/api/nodes/user/x", "GET, DELETE"},
		{"POST", "/health", "GET"},
		{"GET", "/api/sync", "POST"},
	} {
		resp, body := s.do(t, tc.method, tc.path, "", nil)
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != tc.allow ||
			!strings.Contains(body, "it takes "+tc.allow) {
			t.Errorf("%s %s: %d, Allow %q, %s; want 405 and Allow %q", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Allow"), body, tc.allow)
		}
	}
	for _, r := range routes(t, s.handler) {
		if r.pattern == "/ui/*" {
			continue // the page answers its own 405
		}
		for _, m := range routeMethods {
			resp, _ := s.do(t, m, r.path(), "", nil)
			if resp.StatusCode == http.StatusMethodNotAllowed && !strings.Contains(resp.Header.Get("Allow"), r.method) {
				t.Errorf("%s %s: 405 with Allow %q, which lacks %s", m, r.path(), resp.Header.Get("Allow"), r.method)
			}
		}
	}
}
