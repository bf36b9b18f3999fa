// Package ui serves kg's web page, the graph explorer, at /ui/
// (docs/design/http.md#web-page). The page is a single HTML file and a few
// hashed JavaScript and CSS assets built from web/ by `make ui` into dist/,
// which is committed and embedded, so `go build` alone gives a working page,
// offline, with no CDN.
//
// The page reads and writes through the REST API under /api and stays live
// through /ws; this package only serves its files and the login form that
// the HTTP adapter shows when a token is configured. Authentication itself
// (the token, the login cookie) is the HTTP adapter's middleware, in front
// of every route including these.
//
// Caveats: there is no client-side routing, so no fallback: a path under
// /ui/ that names no file is 404, and so is a folder (no listings). Assets
// have content hashes in their names and are cached for a year; index.html
// is revalidated on every load (ETag), so a new binary's page is seen at once.
package ui
