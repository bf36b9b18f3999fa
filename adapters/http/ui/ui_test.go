package ui

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

func newTest(t *testing.T, opts Options) *Handler {
	t.Helper()
	h, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func get(t *testing.T, h http.Handler, method, path string, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// assetsOf returns the asset paths index.html names.
func assetsOf(t *testing.T, h http.Handler) (js, css string) {
	t.Helper()
	body := get(t, h, "GET", "/ui/", nil).Body.String()
	m := regexp.MustCompile(`src="(assets/app-[A-Z0-9]+\.js)"`).FindStringSubmatch(body)
	c := regexp.MustCompile(`href="(assets/app-[A-Z0-9]+\.css)"`).FindStringSubmatch(body)
	if m == nil || c == nil {
		t.Fatalf("index.html names no hashed script and stylesheet:\n%s", body)
	}
	return "/ui/" + m[1], "/ui/" + c[1]
}

func TestServesThePageAndItsAssets(t *testing.T) {
	h := newTest(t, Options{})
	js, css := assetsOf(t, h)
	tests := []struct {
		name, path, contentType, cache string
		csp                            bool
	}{
		{"page", "/ui/", "text/html; charset=utf-8", "no-cache", true},
		{"script", js, "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", false},
		{"stylesheet", css, "text/css; charset=utf-8", "public, max-age=31536000, immutable", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := get(t, h, "GET", tc.path, nil)
			if rec.Code != 200 {
				t.Fatalf("%s: %d", tc.path, rec.Code)
			}
			hd := rec.Header()
			if got := hd.Get("Content-Type"); got != tc.contentType {
				t.Errorf("Content-Type %q, want %q", got, tc.contentType)
			}
			if got := hd.Get("Cache-Control"); got != tc.cache {
				t.Errorf("Cache-Control %q, want %q", got, tc.cache)
			}
			if hd.Get("X-Content-Type-Options") != "nosniff" || hd.Get("ETag") == "" {
				t.Errorf("headers %v", hd)
			}
			if got := hd.Get("Content-Security-Policy") != ""; got != tc.csp {
				t.Errorf("CSP present %v, want %v", got, tc.csp)
			}
			if rec.Body.Len() == 0 {
				t.Error("empty body")
			}
		})
	}
}

// The page's script names the layout worker's script, which is served
// beside it: from the page's origin, as the CSP's script-src 'self' (which
// also covers workers) allows, hashed and cached like the other assets.
func TestServesTheLayoutWorker(t *testing.T) {
	h := newTest(t, Options{})
	js, _ := assetsOf(t, h)
	m := regexp.MustCompile(`"(layout-[A-Z0-9]+\.js)"`).FindStringSubmatch(get(t, h, "GET", js, nil).Body.String())
	if m == nil {
		t.Fatal("the page's script names no layout worker")
	}
	rec := get(t, h, "GET", "/ui/assets/"+m[1], nil)
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "text/javascript; charset=utf-8" ||
		rec.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" || rec.Body.Len() == 0 {
		t.Errorf("GET %s: %d %v", m[1], rec.Code, rec.Header())
	}
}

func TestPageCSPAllowsNoInlineScriptAndNoFraming(t *testing.T) {
	rec := get(t, newTest(t, Options{}), "GET", "/ui/", nil)
	csp := rec.Header().Get("Content-Security-Policy")
	for _, want := range []string{"script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "default-src 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("CSP %q allows inline code", csp)
	}
	if rec.Header().Get("X-Frame-Options") != "DENY" {
		t.Error("no X-Frame-Options")
	}
	if got := rec.Header().Get("Referrer-Policy"); got != "same-origin" {
		t.Errorf("Referrer-Policy %q, want same-origin (the log-out form posts with its Origin)", got)
	}
	if strings.Contains(rec.Body.String(), "<script>") {
		t.Error("the page has an inline script, which its CSP refuses")
	}
}

func TestRedirectsAndRefusals(t *testing.T) {
	h := newTest(t, Options{})
	tests := []struct {
		name, method, path string
		want               int
		location           string
	}{
		{"bare prefix", "GET", "/ui", 301, "/ui/"},
		{"bare prefix keeps the query", "GET", "/ui?x=1", 301, "/ui/?x=1"},
		{"index.html has one address", "GET", "/ui/index.html", 301, "/ui/"},
		{"no folder listing", "GET", "/ui/assets/", 404, ""},
		{"no folder listing without slash", "GET", "/ui/assets", 404, ""},
		{"unknown file", "GET", "/ui/nope.js", 404, ""},
		{"no client-side routes", "GET", "/ui/nodes/user/x", 404, ""},
		{"no dist prefix", "GET", "/ui/dist/index.html", 404, ""},
		{"post", "POST", "/ui/", 405, ""},
		{"put an asset", "PUT", "/ui/", 405, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := get(t, h, tc.method, tc.path, nil)
			if rec.Code != tc.want {
				t.Fatalf("%d, want %d", rec.Code, tc.want)
			}
			if got := rec.Header().Get("Location"); got != tc.location {
				t.Errorf("Location %q, want %q", got, tc.location)
			}
		})
	}
}

func TestNotFoundHandlerIsUsed(t *testing.T) {
	h := newTest(t, Options{NotFound: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusTeapot)
	})})
	if rec := get(t, h, "GET", "/ui/nope", nil); rec.Code != http.StatusTeapot {
		t.Errorf("%d, want the given NotFound's 418", rec.Code)
	}
}

func TestConditionalAndHead(t *testing.T) {
	h := newTest(t, Options{})
	first := get(t, h, "GET", "/ui/", nil)
	etag := first.Header().Get("ETag")
	tests := []struct {
		name, method, ifNoneMatch string
		want                      int
		body                      bool
	}{
		{"same etag", "GET", etag, 304, false},
		{"weak form", "GET", "W/" + etag, 304, false},
		{"in a list", "GET", `"other", ` + etag, 304, false},
		{"other etag", "GET", `"other"`, 200, true},
		{"head", "HEAD", "", 200, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hdr := map[string]string{}
			if tc.ifNoneMatch != "" {
				hdr["If-None-Match"] = tc.ifNoneMatch
			}
			rec := get(t, h, tc.method, "/ui/", hdr)
			if rec.Code != tc.want || (rec.Body.Len() > 0) != tc.body {
				t.Errorf("%d with %d body bytes, want %d (body %v)", rec.Code, rec.Body.Len(), tc.want, tc.body)
			}
		})
	}
	if head := get(t, h, "HEAD", "/ui/", nil); head.Header().Get("Content-Length") != first.Header().Get("Content-Length") {
		t.Errorf("HEAD Content-Length %q, GET %q", head.Header().Get("Content-Length"), first.Header().Get("Content-Length"))
	}
}

func TestAuthMarksThePage(t *testing.T) {
	for _, auth := range []bool{false, true} {
		body := get(t, newTest(t, Options{Auth: auth}), "GET", "/ui/", nil).Body.String()
		if got := strings.Contains(body, `<html data-auth="token" lang="en">`); got != auth {
			t.Errorf("Auth %v: marked %v:\n%s", auth, got, body)
		}
	}
}

func TestBrokenBuildsAreRefused(t *testing.T) {
	tests := []struct {
		name  string
		files fstest.MapFS
		want  string
	}{
		{"no index", fstest.MapFS{"dist/assets/app.js": {Data: []byte("x")}}, "no index.html"},
		{"unknown type", fstest.MapFS{"dist/index.html": {Data: []byte("<html >")}, "dist/x.exe": {Data: []byte("MZ")}}, `no content type for ".exe"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newHandler(tc.files, "dist", Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestLoginPage(t *testing.T) {
	tests := []struct {
		name, message string
		status        int
	}{
		{"first visit", "", 401},
		{"wrong token", "That token is not the server's.", 401},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			WriteLogin(rec, tc.status, tc.message)
			body := rec.Body.String()
			if rec.Code != tc.status || rec.Header().Get("Content-Type") != "text/html; charset=utf-8" {
				t.Fatalf("%d %q", rec.Code, rec.Header().Get("Content-Type"))
			}
			for _, want := range []string{`<form method="post" action="/ui/login">`, `name="token" type="password"`, `<label for="token">`} {
				if !strings.Contains(body, want) {
					t.Errorf("no %q in\n%s", want, body)
				}
			}
			if got := strings.Contains(body, `role="alert"`); got != (tc.message != "") {
				t.Errorf("alert shown %v with message %q", got, tc.message)
			}
			// The CSP must name the inline style by its hash, or the
			// browser drops it.
			style := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindStringSubmatch(body)
			if style == nil {
				t.Fatal("no <style>")
			}
			if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "'sha256-"+hashOf(style[1])+"'") {
				t.Errorf("CSP %q does not allow the page's style", csp)
			}
			if rec.Header().Get("Cache-Control") != "no-store" {
				t.Error("the login page may be cached")
			}
			// no-referrer would make Chromium send "Origin: null" with the
			// form's post, which the Origin check refuses.
			if got := rec.Header().Get("Referrer-Policy"); got != "same-origin" {
				t.Errorf("Referrer-Policy %q, want same-origin", got)
			}
		})
	}
}

func TestLoginPageEscapesTheMessage(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteLogin(rec, 401, "<script>x</script>")
	b, _ := io.ReadAll(rec.Body)
	if strings.Contains(string(b), "<script>") {
		t.Errorf("message not escaped:\n%s", b)
	}
}
