package http

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/kg-memory/kg/adapters/http/ui"
)

// route is one method and pattern of the router.
type route struct{ method, pattern string }

// routes walks the router NewServer built (chi.Walk), so that a route added
// later is checked by every test below without anyone listing it.
func routes(t *testing.T, h http.Handler) []route {
	t.Helper()
	mux, ok := h.(chi.Routes)
	if !ok {
		t.Fatalf("NewServer returned %T, not a chi router", h)
	}
	var out []route
	err := chi.Walk(mux, func(method, pattern string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		out = append(out, route{method, pattern})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Every route docs/design/http.md#endpoints names must be there, or the
	// walk missed a subrouter and the tests below would check too little.
	for _, want := range []route{{"POST", "/"}, {"GET", "/health"}, {"GET", "/api/health"}, {"POST", "/api/nodes"},
		{"POST", "/api/import"}, {"GET", "/ws"}, {"GET", "/ui"}, {"GET", "/ui/*"}, {"POST", ui.LoginPath}, {"POST", ui.LogoutPath}} {
		if !slices.Contains(out, want) {
			t.Fatalf("the walk did not find %s %s among %v", want.method, want.pattern, out)
		}
	}
	return out
}

// path fills a route pattern's parameters and wildcard with a value.
func (r route) path() string {
	p := regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(r.pattern, "x")
	return strings.Replace(p, "*", "x", 1)
}

// sendTo sends one request with header (a "Host" key sets the Host) and
// returns its status, following no redirect.
func (s *testServer) sendTo(t *testing.T, method, target string, header map[string]string) int {
	t.Helper()
	body := io.Reader(nil)
	if method == "POST" || method == "PUT" || method == "PATCH" {
		body = strings.NewReader("{}")
	}
	req, err := http.NewRequest(method, s.url+target, body)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestEveryRouteRefusesOtherHostsOriginsAndSites sends, to every route of
// the router, a rebinding Host (421), a foreign Origin (403) and a
// cross-site fetch (403), with and without a token configured and with the
// right token in hand: the checks come before anything else, the web page
// and its login included.
func TestEveryRouteRefusesOtherHostsOriginsAndSites(t *testing.T) {
	for _, token := range []string{"", "s3cret"} {
		s := newTestServer(t, Config{AuthToken: token, AllowedHosts: []string{"kg.lan"}, AllowedOrigins: []string{"http://localhost:5173"}}, nil)
		for _, r := range routes(t, s.handler) {
			auth := map[string]string{}
			if token != "" {
				auth["Authorization"] = "Bearer " + token
			}
			with := func(k, v string) map[string]string {
				h := map[string]string{k: v}
				for a, b := range auth {
					h[a] = b
				}
				return h
			}
			for _, tc := range []struct {
				name   string
				header map[string]string
				want   int
			}{
				{"a rebinding Host", with("Host", "evil.example:8765"), http.StatusMisdirectedRequest},
				{"a rebinding Host on the port", with("Host", "evil.example"), http.StatusMisdirectedRequest},
				{"a Host only allowed on another port", with("Host", "kg.lan.evil.example"), http.StatusMisdirectedRequest},
				{"a foreign Origin", with("Origin", "https://evil.example"), http.StatusForbidden},
				{"the Origin of another port", with("Origin", "http://127.0.0.1:1"), http.StatusForbidden},
				{"a null Origin", with("Origin", "null"), http.StatusForbidden},
				{"a cross-site fetch", with("Sec-Fetch-Site", "cross-site"), http.StatusForbidden},
			} {
				if got := s.sendTo(t, r.method, r.path(), tc.header); got != tc.want {
					t.Errorf("token %q: %s %s with %s: %d, want %d", token, r.method, r.path(), tc.name, got, tc.want)
				}
			}
			// The same requests from where they are allowed get past the
			// checks: not refused for Host, Origin or site.
			for _, h := range []map[string]string{with("Host", "kg.lan:8765"), with("Origin", "http://localhost:5173"), with("Sec-Fetch-Site", "same-origin")} {
				if got := s.sendTo(t, r.method, r.path(), h); got == http.StatusMisdirectedRequest || got == http.StatusForbidden {
					t.Errorf("token %q: %s %s with %v: %d, want it let through", token, r.method, r.path(), h, got)
				}
			}
		}
	}
}

// TestEveryRouteNeedsTheToken: with a token configured, every route of the
// router refuses a request without it (401; the web page answers with its
// login form) and with a wrong one, takes it in the query on /ws only, and
// lets the right one through. The only route that lets a request without a
// credential through is the logout form, which grants nothing: it clears
// the cookie (docs/decisions/0023-web-page-login.md). The login form checks
// the token itself.
func TestEveryRouteNeedsTheToken(t *testing.T) {
	const token = "s3cret"
	s := newTestServer(t, Config{AuthToken: token}, nil)
	for _, r := range routes(t, s.handler) {
		if r.method == "POST" && r.pattern == ui.LogoutPath {
			continue // below
		}
		for _, tc := range []struct {
			name   string
			query  string
			header map[string]string
			want   func(int) bool
		}{
			{"no credential", "", nil, is(401)},
			{"a wrong token", "", map[string]string{"Authorization": "Bearer s3cres"}, is(401)},
			{"a longer token", "", map[string]string{"Authorization": "Bearer " + token + "x"}, is(401)},
			{"the token as Basic", "", map[string]string{"Authorization": "Basic " + token}, is(401)},
			{"a forged login cookie", "", map[string]string{"Cookie": loginCookie + "=v1.99999999999.AAAA"}, is(401)},
			{"the token as the login cookie", "", map[string]string{"Cookie": loginCookie + "=" + token}, is(401)},
			{"the token in the query", "?token=" + token, nil, func(got int) bool { return (r.pattern == wsPath) == (got != 401) }},
			{"the right token", "", map[string]string{"Authorization": "Bearer " + token}, not(401)},
		} {
			want := tc.want
			if r.method == "POST" && r.pattern == ui.LoginPath {
				want = is(401) // it reads the token from its form, never from a header or the query
			}
			if got := s.sendTo(t, r.method, r.path()+tc.query, tc.header); !want(got) {
				t.Errorf("%s %s with %s: %d", r.method, r.path()+tc.query, tc.name, got)
			}
		}
	}
	// Logout grants nothing: it answers a redirect that clears the cookie,
	// and sets no other.
	req, _ := http.NewRequest("POST", s.url+ui.LogoutPath, nil)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Value != "" || c.MaxAge >= 0 {
			t.Errorf("logout without a login set a cookie %+v", c)
		}
	}
	// The login form with the right token is the one way in without the
	// header, and only from the page's own origin (auth_test.go).
	form := url.Values{"token": {token}}.Encode()
	req, _ = http.NewRequest("POST", s.url+ui.LoginPath, strings.NewReader(form))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if resp, err = client.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Errorf("login with the token: %d, cookies %v", resp.StatusCode, resp.Cookies())
	}
}

func is(want int) func(int) bool  { return func(got int) bool { return got == want } }
func not(want int) func(int) bool { return func(got int) bool { return got != want } }

// TestCredentialsAreComparedInConstantTime reads this package's source:
// the token and the login cookie's MAC are compared with
// crypto/subtle.ConstantTimeCompare and crypto/hmac.Equal, and nothing
// compares them with == or !=, whose time depends on where they differ.
func TestCredentialsAreComparedInConstantTime(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string][]string{} // function → the package.Func it calls
	secret := regexp.MustCompile(`(?i)token|mac|want|secret|given|cookie`)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
						if pkg, ok := sel.X.(*ast.Ident); ok {
							calls[fn.Name.Name] = append(calls[fn.Name.Name], pkg.Name+"."+sel.Sel.Name)
						}
					}
				case *ast.BinaryExpr:
					if n.Op != token.EQL && n.Op != token.NEQ {
						return true
					}
					// A comparison with a literal or nil is about shape
					// (empty, absent), not a secret's content.
					for _, side := range []ast.Expr{n.X, n.Y} {
						if _, lit := side.(*ast.BasicLit); lit {
							return true
						}
						if id, ok := side.(*ast.Ident); ok && id.Name == "nil" {
							return true
						}
					}
					for _, side := range []ast.Expr{n.X, n.Y} {
						if text := string(src[fset.Position(side.Pos()).Offset:fset.Position(side.End()).Offset]); secret.MatchString(text) {
							t.Errorf("%s: %s compares %q with %s", fset.Position(n.Pos()), fn.Name.Name, text, n.Op)
						}
					}
				}
				return true
			})
		}
	}
	for fn, want := range map[string]string{"matches": "subtle.ConstantTimeCompare", "validLogin": "hmac.Equal"} {
		if !slices.Contains(calls[fn], want) {
			t.Errorf("%s does not call %s (it calls %v)", fn, want, calls[fn])
		}
	}
}
