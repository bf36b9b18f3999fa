package http

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kg-memory/kg/adapters/http/ui"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// The web page cannot send an Authorization header when the browser loads
// it, so a person logs in once with the token (POST /ui/login) and gets a
// login cookie that this middleware accepts in place of the header, from
// the page's own origin only (docs/decisions/0023-web-page-login.md).
const (
	loginCookie = "kg_login"
	loginTTL    = 7 * 24 * time.Hour
	// loginBodyMax bounds the login form: a token and its field name.
	loginBodyMax = 4 << 10
)

// wsPath is the route that also takes the token in its query: a browser
// cannot set headers on a WebSocket. No other route does, which keeps the
// token out of URLs elsewhere; the request log records the route, never the
// URL.
const wsPath = "/ws"

// tokenAuth checks the configured token, in constant time, and issues and
// checks the login cookies derived from it. A nil *tokenAuth (no token
// configured) lets everything through.
type tokenAuth struct {
	token []byte
	want  [32]byte // sha256 of the token
	clock ports.Clock
}

// newTokenAuth returns nil when token is empty.
func newTokenAuth(token string, clk ports.Clock) *tokenAuth {
	if token == "" {
		return nil
	}
	return &tokenAuth{token: []byte(token), want: sha256.Sum256([]byte(token)), clock: clk}
}

// matches compares given with the token in constant time. Both sides are
// hashed first so that neither the content nor the length of the token
// leaks through timing.
func (a *tokenAuth) matches(given string) bool {
	got := sha256.Sum256([]byte(given))
	return subtle.ConstantTimeCompare(got[:], a.want[:]) == 1
}

// requireToken refuses (401) a request that carries neither "Authorization:
// Bearer <token>", nor (on /ws, whose browser API cannot set headers)
// "?token=<token>", nor a valid login cookie sent by the page's own origin.
// With no token configured it lets every request through (the server then only
// binds loopback, docs/design/operations.md#configuration).
//
// Two requests pass without credentials because they check the token
// themselves or need none: POST /ui/login and POST /ui/logout. A browser
// that loads the page without a login gets the login form, with 401.
func requireToken(a *tokenAuth) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if a == nil {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if a.allows(r) {
				next.ServeHTTP(w, r)
				return
			}
			path := r.URL.Path
			if r.Method == http.MethodPost && (path == ui.LoginPath || path == ui.LogoutPath) {
				next.ServeHTTP(w, r)
				return
			}
			unauthorized(w, r, "missing or wrong bearer token; send Authorization: Bearer <KG_AUTH_TOKEN>")
		})
	}
}

// unauthorized answers a request without valid credentials: the login form
// for the web page, else 401 with detail.
func unauthorized(w http.ResponseWriter, r *http.Request, detail string) {
	path := r.URL.Path
	if (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
		(path == strings.TrimSuffix(ui.Prefix, "/") || strings.HasPrefix(path, ui.Prefix)) {
		ui.WriteLogin(w, http.StatusUnauthorized, "")
		return
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="kg"`)
	reject(w, http.StatusUnauthorized, "invalid", "Authorization", detail)
}

// allows reports whether r carries the token or a valid login cookie.
func (a *tokenAuth) allows(r *http.Request) bool {
	if given, ok := bearer(r.Header.Get("Authorization")); ok {
		return a.matches(given)
	}
	if r.URL.Path == wsPath && r.URL.Query().Has("token") {
		return a.matches(r.URL.Query().Get("token"))
	}
	c, err := r.Cookie(loginCookie)
	if err != nil {
		return false
	}
	return fromOwnOrigin(r) && a.validLogin(c.Value, a.clock.Now())
}

// fromOwnOrigin reports whether a browser sent r from the server's own
// origin (or a person typed the address). A cookie is not scoped by port,
// so a page on another port of the same host — same-site, and sent the
// cookie even with SameSite=Strict — must not ride on it, not even with a
// GET from an <img> tag, which carries no Origin header but does carry
// Sec-Fetch-Site.
func fromOwnOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return false
	}
	o := r.Header.Get("Origin")
	return o == "" || strings.EqualFold(o, ownOrigin(r))
}

// issueLogin returns a login cookie value valid until now + loginTTL:
// "v1.<expiry, unix seconds>.<HMAC-SHA256 of it, keyed by the token>". It
// is not the token, expires on its own, and every cookie dies when the
// token changes.
func (a *tokenAuth) issueLogin(now domain.Micros) string {
	exp := strconv.FormatInt(int64(now)/1e6+int64(loginTTL/time.Second), 10)
	return "v1." + exp + "." + a.loginMAC(exp)
}

// validLogin checks a login cookie value at now.
func (a *tokenAuth) validLogin(value string, now domain.Micros) bool {
	version, rest, ok := strings.Cut(value, ".")
	if !ok || version != "v1" {
		return false
	}
	exp, mac, ok := strings.Cut(rest, ".")
	if !ok {
		return false
	}
	expSec, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || expSec <= int64(now)/1e6 {
		return false
	}
	return hmac.Equal([]byte(mac), []byte(a.loginMAC(exp)))
}

func (a *tokenAuth) loginMAC(exp string) string {
	m := hmac.New(sha256.New, a.token)
	m.Write([]byte("kg ui login\x00" + exp))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// login is POST /ui/login: the page's login form. The right token gets a
// login cookie and a redirect to the page; a wrong one gets the form again
// with 401. With no token configured there is nothing to log in to.
func (a *tokenAuth) login(w http.ResponseWriter, r *http.Request) {
	if a == nil {
		http.Redirect(w, r, ui.Prefix, http.StatusSeeOther)
		return
	}
	if err := r.ParseForm(); err != nil {
		ui.WriteLogin(w, http.StatusBadRequest, "The form could not be read; try again.")
		return
	}
	if !a.matches(r.PostForm.Get("token")) {
		ui.WriteLogin(w, http.StatusUnauthorized, "That token is not the server's. Try again.")
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name:     loginCookie,
		Value:    a.issueLogin(a.clock.Now()),
		Path:     "/",
		MaxAge:   int(loginTTL / time.Second),
		HttpOnly: true,
		Secure:   r.TLS != nil,
		SameSite: http.SameSiteStrictMode,
	})
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, ui.Prefix, http.StatusSeeOther)
}

// logout is POST /ui/logout: the browser forgets its login cookie.
func logout(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{
		Name: loginCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode,
	})
	http.Redirect(w, r, ui.Prefix, http.StatusSeeOther)
}

// bearer extracts the token of an Authorization header value.
func bearer(h string) (string, bool) {
	const prefix = "bearer "
	if len(h) < len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return "", false
	}
	return strings.TrimSpace(h[len(prefix):]), true
}
