package http

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/domain"
)

var authEpoch = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

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
			requireToken(newTokenAuth(tc.token, clock.NewManual(authEpoch)))(passed).ServeHTTP(rec, req)
			if rec.Code != tc.want {
				t.Fatalf("%d, want %d", rec.Code, tc.want)
			}
			if tc.want == 401 && rec.Header().Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
}

// TestTokenInTheQuery: a browser's WebSocket cannot set headers, so /ws
// (and only /ws) takes the token as ?token=.
func TestTokenInTheQuery(t *testing.T) {
	mw := requireToken(newTokenAuth("s3cret", clock.NewManual(authEpoch)))
	tests := []struct {
		name, target string
		want         int
	}{
		{"ws, right token", "/ws?token=s3cret", 204},
		{"ws with a project, right token", "/ws?project_path=%2Ftmp%2Fp&token=s3cret", 204},
		{"ws, wrong token", "/ws?token=s3cres", 401},
		{"ws, empty token", "/ws?token=", 401},
		{"ws, none", "/ws", 401},
		{"api refuses the query form", "/api/graph/read?token=s3cret", 401},
		{"mcp refuses the query form", "/?token=s3cret", 401},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := serve(t, mw, httptest.NewRequest("GET", tc.target, nil)); got != tc.want {
				t.Errorf("%d, want %d", got, tc.want)
			}
		})
	}
}

func TestLoginCookie(t *testing.T) {
	clk := clock.NewManual(authEpoch)
	a := newTokenAuth("s3cret", clk)
	good := a.issueLogin(clk.Now())
	other := newTokenAuth("another", clk).issueLogin(clk.Now())
	exp, mac, _ := strings.Cut(strings.TrimPrefix(good, "v1."), ".")
	tests := []struct {
		name, cookie string
		header       map[string]string
		advance      time.Duration
		want         int
	}{
		{"same origin", good, map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "http://127.0.0.1:8765"}, 0, 204},
		{"typed address", good, map[string]string{"Sec-Fetch-Site": "none"}, 0, 204},
		{"no fetch metadata, no origin", good, nil, 0, 204},
		{"just before expiry", good, nil, loginTTL - time.Second, 204},
		{"expired", good, nil, loginTTL, 401},
		{"same site, other port: an <img> on localhost:3000", good, map[string]string{"Sec-Fetch-Site": "same-site"}, 0, 401},
		{"cross site", good, map[string]string{"Sec-Fetch-Site": "cross-site"}, 0, 401},
		{"other origin without fetch metadata", good, map[string]string{"Origin": "http://127.0.0.1:3000"}, 0, 401},
		{"made with another token", other, nil, 0, 401},
		{"expiry moved on", "v1." + exp + "9." + mac, nil, 0, 401},
		{"the token itself", "s3cret", nil, 0, 401},
		{"other version", "v2." + exp + "." + mac, nil, 0, 401},
		{"empty", "", nil, 0, 401},
		{"garbage", "v1..", nil, 0, 401},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk.Set(domain.Micros(authEpoch.Add(tc.advance).UnixMicro()))
			req := httptest.NewRequest("POST", "http://127.0.0.1:8765/api/nodes", nil)
			req.AddCookie(&http.Cookie{Name: loginCookie, Value: tc.cookie})
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			if got := serve(t, requireToken(a), req); got != tc.want {
				t.Errorf("%d, want %d", got, tc.want)
			}
		})
	}
}

// TestWithoutLoginThePageIsTheLoginForm: a browser sent to the page is
// shown the form (401, HTML), an API client gets the JSON error, and the
// two forms go through to their handlers, which check for themselves.
func TestWithoutLoginThePageIsTheLoginForm(t *testing.T) {
	mw := requireToken(newTokenAuth("s3cret", clock.NewManual(authEpoch)))
	tests := []struct {
		method, path string
		want         int
		contentType  string
	}{
		{"GET", "/ui/", 401, "text/html; charset=utf-8"},
		{"GET", "/ui", 401, "text/html; charset=utf-8"},
		{"HEAD", "/ui/", 401, "text/html; charset=utf-8"},
		{"GET", "/ui/assets/app.js", 401, "text/html; charset=utf-8"},
		{"GET", "/uix", 401, "application/json"},
		{"GET", "/api/graph/read", 401, "application/json"},
		{"POST", "/ui/", 401, "application/json"},
		{"POST", "/ui/login", 204, ""},
		{"POST", "/ui/logout", 204, ""},
		{"GET", "/ui/login", 401, "text/html; charset=utf-8"},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			mw(passed).ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
			if rec.Code != tc.want || rec.Header().Get("Content-Type") != tc.contentType {
				t.Errorf("%d %q, want %d %q", rec.Code, rec.Header().Get("Content-Type"), tc.want, tc.contentType)
			}
		})
	}
}

// TestLoginFlow logs in through the whole server as a browser would.
func TestLoginFlow(t *testing.T) {
	s := newTestServer(t, Config{AuthToken: "s3cret"}, nil)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(t *testing.T, path string, form url.Values, header map[string]string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", s.url+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}

	t.Run("wrong token", func(t *testing.T) {
		resp := post(t, "/ui/login", url.Values{"token": {"s3cres"}}, nil)
		if resp.StatusCode != 401 || len(resp.Cookies()) != 0 {
			t.Errorf("%d, cookies %v", resp.StatusCode, resp.Cookies())
		}
	})
	t.Run("from another site", func(t *testing.T) {
		resp := post(t, "/ui/login", url.Values{"token": {"s3cret"}}, map[string]string{"Origin": "http://evil.example"})
		if resp.StatusCode != 403 || len(resp.Cookies()) != 0 {
			t.Errorf("%d, cookies %v", resp.StatusCode, resp.Cookies())
		}
	})
	t.Run("body over its limit", func(t *testing.T) {
		resp := post(t, "/ui/login", url.Values{"token": {strings.Repeat("x", loginBodyMax)}}, nil)
		if resp.StatusCode != 413 {
			t.Errorf("%d, want 413", resp.StatusCode)
		}
	})

	resp := post(t, "/ui/login", url.Values{"token": {"s3cret"}}, map[string]string{"Origin": s.url, "Sec-Fetch-Site": "same-origin"})
	if resp.StatusCode != 303 || resp.Header.Get("Location") != "/ui/" {
		t.Fatalf("login: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	var c *http.Cookie
	for _, k := range resp.Cookies() {
		if k.Name == loginCookie {
			c = k
		}
	}
	if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.MaxAge != int(loginTTL/time.Second) {
		t.Fatalf("login cookie %+v", c)
	}
	if strings.Contains(c.Value, "s3cret") {
		t.Error("the cookie carries the token")
	}

	withCookie := map[string]string{"Cookie": loginCookie + "=" + c.Value, "Sec-Fetch-Site": "same-origin"}
	for _, path := range []string{"/ui/", "/api/health"} {
		r, body := s.do(t, "GET", path, "", withCookie)
		if r.StatusCode != 200 {
			t.Errorf("%s with the cookie: %d %s", path, r.StatusCode, body)
		}
		if path == "/ui/" && !strings.Contains(body, `data-auth="token"`) {
			t.Errorf("the page does not know a token is set:\n%s", body)
		}
	}
	if r, _ := s.do(t, "GET", "/ui/", "", nil); r.StatusCode != 401 {
		t.Errorf("the page without the cookie: %d", r.StatusCode)
	}

	out := post(t, "/ui/logout", nil, nil)
	if out.StatusCode != 303 || len(out.Cookies()) != 1 || out.Cookies()[0].MaxAge >= 0 {
		t.Errorf("logout: %d %v", out.StatusCode, out.Cookies())
	}
}

func TestLoginWithoutToken(t *testing.T) {
	s := newTestServer(t, Config{}, nil)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.PostForm(s.url+"/ui/login", url.Values{"token": {"x"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 303 || len(resp.Cookies()) != 0 {
		t.Errorf("%d %v: with no token there is nothing to log in to", resp.StatusCode, resp.Cookies())
	}
	if r, body := s.do(t, "GET", "/ui/", "", nil); r.StatusCode != 200 || strings.Contains(body, "data-auth") {
		t.Errorf("%d %s", r.StatusCode, body)
	}
}
