package ui

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"html/template"
	"net/http"
)

// LoginPath is where the login form posts the token.
const LoginPath = Prefix + "login"

// LogoutPath forgets the login.
const LogoutPath = Prefix + "logout"

// loginStyle is the login page's only style, inline so that the page needs
// no other file (every other file is behind the token). The CSP names it by
// its hash.
const loginStyle = `body{font:16px/1.5 system-ui,sans-serif;margin:0;display:grid;place-items:center;min-height:100vh;background:#f4f5f7;color:#1d2330}
main{background:#fff;border:1px solid #c9ced8;border-radius:8px;padding:2rem;width:min(22rem,90vw)}
h1{font-size:1.3rem;margin:0 0 .5rem}label{display:block;font-weight:600;margin:1rem 0 .25rem}
input{font:inherit;width:100%;box-sizing:border-box;padding:.5rem;border:1px solid #6b7385;border-radius:4px}
button{font:inherit;margin-top:1rem;padding:.5rem 1rem;border:0;border-radius:4px;background:#2453a6;color:#fff;cursor:pointer}
:focus-visible{outline:3px solid #e0a100;outline-offset:2px}.error{color:#a1121d;font-weight:600}`

var loginCSP = "default-src 'none'; style-src 'sha256-" + hashOf(loginStyle) + "'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.StdEncoding.EncodeToString(sum[:])
}

var loginPage = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>kg — log in</title>
<style>{{.Style}}</style>
</head>
<body>
<main>
<h1>kg memory</h1>
<p>This server needs its access token (<code>--auth-token</code> / <code>KG_AUTH_TOKEN</code>).</p>
{{if .Message}}<p class="error" role="alert" id="login-error">{{.Message}}</p>{{end}}
<form method="post" action="{{.Action}}">
<label for="token">Access token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus
{{- if .Message}} aria-describedby="login-error" aria-invalid="true"{{end}}>
<button type="submit">Log in</button>
</form>
</main>
</body>
</html>
`))

// WriteLogin answers with the login form and status (401 before a login,
// or after a wrong token, with message saying so).
func WriteLogin(w http.ResponseWriter, status int, message string) {
	var buf bytes.Buffer
	data := struct {
		Style   template.CSS
		Action  string
		Message string
	}{template.CSS(loginStyle), LoginPath, message}
	if err := loginPage.Execute(&buf, data); err != nil {
		http.Error(w, "login page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", loginCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	// Not no-referrer: with it Chromium sends "Origin: null" on the
	// form's post, which the Origin check refuses.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
