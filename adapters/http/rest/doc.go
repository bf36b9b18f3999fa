// Package rest is the REST API of kg under /api (docs/design/http.md#rest-api):
// JSON in and out, with the paths and shapes of the server kg replaces, its
// faults fixed.
//
// Every handler does the same four things and nothing else: decode the
// request (query, path, JSON body), call one use case of the app, map an
// error through the one table of apijson (invalid 400, not_found 404,
// conflict 409, unavailable 503, internal 500), and encode the result. The
// body limits (413) are the router's, per route; a body that is not sent as
// JSON is refused here with 415.
//
// Edge ends may contain "/" (file paths, URLs). The query form of DELETE
// /api/edges takes any end; the path form /api/edges/{level}/{from}/{to}/{rel}
// takes one whose slashes are escaped as %2F, e.g.
// /api/edges/project/auth/src%2Fauth%2Frefresh.py/touches.
package rest
