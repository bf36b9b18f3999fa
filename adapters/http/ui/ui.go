package ui

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed all:dist
var dist embed.FS

// Prefix is the path the page is served under.
const Prefix = "/ui/"

// Options configure the page.
type Options struct {
	// Auth tells the page that a token guards the server, so that it offers
	// to log out.
	Auth bool
	// NotFound answers a path under /ui/ that names no file; nil: a plain 404.
	NotFound http.Handler
}

// pageCSP is the Content-Security-Policy of the page: its own scripts,
// styles and connections only (the REST API and /ws are same-origin), no
// inline script, no framing.
const pageCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// asset is one embedded file, ready to serve.
type asset struct {
	body        []byte
	contentType string
	etag        string
	immutable   bool // its name carries a content hash
}

// Handler serves the page's files; it expects full request paths (/ui/…).
type Handler struct {
	files    map[string]asset // by path under /ui/, "" for index.html
	notFound http.Handler
}

// contentTypes are the types of the files the build writes, fixed here
// rather than read from the operating system's MIME tables, which differ
// between machines.
var contentTypes = map[string]string{
	".html":  "text/html; charset=utf-8",
	".js":    "text/javascript; charset=utf-8",
	".css":   "text/css; charset=utf-8",
	".svg":   "image/svg+xml",
	".png":   "image/png",
	".ico":   "image/x-icon",
	".json":  "application/json",
	".map":   "application/json",
	".txt":   "text/plain; charset=utf-8",
	".woff2": "font/woff2",
}

// New reads the embedded build and returns its handler. It fails only when
// the build is missing or holds a file of an unknown type: a broken binary.
func New(opts Options) (*Handler, error) {
	return newHandler(dist, "dist", opts)
}

func newHandler(fsys fs.FS, root string, opts Options) (*Handler, error) {
	h := &Handler{files: map[string]asset{}, notFound: opts.NotFound}
	if h.notFound == nil {
		h.notFound = http.HandlerFunc(http.NotFound)
	}
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		ct, ok := contentTypes[path.Ext(p)]
		if !ok {
			return fmt.Errorf("ui: %s: no content type for %q files", p, path.Ext(p))
		}
		name := strings.TrimPrefix(p, root+"/")
		if name == "index.html" {
			name = ""
			if opts.Auth {
				body = bytes.Replace(body, []byte("<html "), []byte(`<html data-auth="token" `), 1)
			}
		}
		sum := sha256.Sum256(body)
		h.files[name] = asset{
			body:        body,
			contentType: ct,
			etag:        `"` + hex.EncodeToString(sum[:8]) + `"`,
			immutable:   strings.HasPrefix(name, "assets/"),
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("ui: read the embedded page: %w", err)
	}
	if _, ok := h.files[""]; !ok {
		return nil, fmt.Errorf("ui: the embedded page has no index.html; run make ui")
	}
	return h, nil
}

// ServeHTTP serves GET and HEAD of /ui (redirected to /ui/), /ui/ (the
// page) and /ui/<file>.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == strings.TrimSuffix(Prefix, "/") {
		target := Prefix
		if r.URL.RawQuery != "" {
			target += "?" + r.URL.RawQuery
		}
		http.Redirect(w, r, target, http.StatusMovedPermanently)
		return
	}
	name, ok := strings.CutPrefix(r.URL.Path, Prefix)
	if !ok {
		h.notFound.ServeHTTP(w, r)
		return
	}
	if name == "index.html" {
		// One address for the page, so that it is cached once.
		http.Redirect(w, r, Prefix, http.StatusMovedPermanently)
		return
	}
	a, ok := h.files[name]
	if !ok {
		h.notFound.ServeHTTP(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", a.contentType)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("ETag", a.etag)
	if a.immutable {
		hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		hd.Set("Cache-Control", "no-cache")
	}
	if name == "" {
		hd.Set("Content-Security-Policy", pageCSP)
		hd.Set("X-Frame-Options", "DENY")
		// Not no-referrer: with it Chromium sends "Origin: null" on the
		// page's own form posts (log out), which the Origin check refuses.
		hd.Set("Referrer-Policy", "same-origin")
	}
	if match := r.Header.Get("If-None-Match"); match != "" && etagMatches(match, a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hd.Set("Content-Length", fmt.Sprint(len(a.body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(a.body) // the client may have gone; nobody to tell
	}
}

// etagMatches reports whether an If-None-Match header names etag.
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}
