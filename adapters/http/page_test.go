package http

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestPageThroughTheRouter: the web page is mounted at /ui/, behind the same
// security middleware as every other route.
func TestPageThroughTheRouter(t *testing.T) {
	s := newTestServer(t, Config{}, nil)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	_, page := s.do(t, "GET", "/ui/", "", nil)
	script := regexp.MustCompile(`assets/app-[A-Z0-9]+\.js`).FindString(page)
	if script == "" {
		t.Fatalf("the page names no script:\n%s", page)
	}
	tests := []struct {
		name, method, path string
		header             map[string]string
		want               int
		contentType        string
	}{
		{"the page", "GET", "/ui/", nil, 200, "text/html; charset=utf-8"},
		{"its script", "GET", "/ui/" + script, nil, 200, "text/javascript; charset=utf-8"},
		{"no listing", "GET", "/ui/assets/", nil, 404, "application/json"},
		{"unknown file", "GET", "/ui/app.js", nil, 404, "application/json"},
		{"bare prefix", "GET", "/ui", nil, 301, ""},
		{"cross-site load of the page", "GET", "/ui/", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, "application/json"},
		{"cross-site load of the script", "GET", "/ui/" + script, map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, "application/json"},
		{"rebinding Host", "GET", "/ui/", map[string]string{"Host": "evil.example:8765"}, 421, "application/json"},
		{"post to the page", "POST", "/ui/", nil, 405, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, s.url+tc.path, nil)
			for k, v := range tc.header {
				if k == "Host" {
					req.Host = v
					continue
				}
				req.Header.Set(k, v)
			}
			resp, err := noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("%d, want %d", resp.StatusCode, tc.want)
			}
			if ct := resp.Header.Get("Content-Type"); tc.contentType != "" && !strings.HasPrefix(ct, tc.contentType) {
				t.Errorf("Content-Type %q, want %q", ct, tc.contentType)
			}
			if tc.want == 301 && resp.Header.Get("Location") != "/ui/" {
				t.Errorf("Location %q", resp.Header.Get("Location"))
			}
		})
	}
}
