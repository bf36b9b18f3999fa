package http

import (
	"encoding/json"
	"net/http"
)

// writeJSON writes v as the JSON body of a response with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	// The client may have gone; there is nobody left to tell.
	_ = json.NewEncoder(w).Encode(v)
}

// rejection is the body of a response refused by the middleware, shaped like
// the REST errors (docs/design/http.md#errors) so one client-side decoder reads
// both.
type rejection struct {
	Detail string `json:"detail"`
	Kind   string `json:"kind"`
	Field  string `json:"field"`
}

// reject refuses a request with status and a one-line reason.
func reject(w http.ResponseWriter, status int, kind, field, detail string) {
	writeJSON(w, status, rejection{Detail: detail, Kind: kind, Field: field})
}
