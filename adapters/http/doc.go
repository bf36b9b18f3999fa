// Package http is the HTTP adapter of kg: one chi router on one port that
// serves MCP at "/", the health check at /health and /api/health, the REST
// API under /api (package rest), the WebSocket at /ws (package ws) and the
// web page under /ui/ (package ui) with its login form. Anything else is
// 404.
//
// Every route sits behind the same security middleware, outermost first:
// request logging, panic recovery, the Host allow-list (421), the
// Sec-Fetch-Site cross-site refusal (403), the Origin allow-list (403) and
// the bearer token (401; /ws also takes it as ?token=, and a browser may
// send the login cookie of POST /ui/login instead, from the page's own
// origin: docs/decisions/0023-web-page-login.md). Routes that take a body
// add the body limit (413) themselves, because POST /api/import has a
// larger limit than the rest.
//
// The package name shadows net/http only for importers, which name it
// (kghttp); inside, "http" is net/http.
package http
