package apijson

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/kg-memory/kg/domain"
)

// Error is the body of every REST error (docs/design/http.md#errors): a
// one-line message, the kind, and the field at fault (empty when none).
type Error struct {
	Detail string `json:"detail"`
	Kind   string `json:"kind"`
	Field  string `json:"field"`
}

// statusOf is the one table from an error's kind to its status. A kind not
// in it is a bug, answered 500.
var statusOf = map[domain.Kind]int{
	domain.KindInvalid:     http.StatusBadRequest,
	domain.KindNotFound:    http.StatusNotFound,
	domain.KindConflict:    http.StatusConflict,
	domain.KindUnavailable: http.StatusServiceUnavailable,
	domain.KindInternal:    http.StatusInternalServerError,
}

// internalDetail is all a client is told of a bug; the log has the rest.
const internalDetail = "internal error in kg; the server log has the details"

// Status returns the status of an error of kind k.
func Status(k domain.Kind) int {
	if s, ok := statusOf[k]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// ErrorOf returns the status and body that answer err. The message of a
// domain error is shown (a not-found one without its field, since it names
// the thing itself); any other error is internal and shown as nothing more
// than that.
func ErrorOf(err error) (int, Error) {
	kind := domain.KindOf(err)
	status := Status(kind)
	if status == http.StatusInternalServerError {
		return status, Error{Detail: internalDetail, Kind: string(domain.KindInternal)}
	}
	var de *domain.Error
	errors.As(err, &de) // a kind other than internal comes from a *domain.Error
	body := Error{Detail: de.Error(), Kind: string(de.Kind), Field: de.Field}
	if de.Kind == domain.KindNotFound {
		body.Detail = de.Msg
	}
	return status, body
}

// WriteError answers a request with err, logging what the client is not
// told: storage failures as warnings, bugs as errors.
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	status, body := ErrorOf(err)
	switch status {
	case http.StatusInternalServerError:
		log.LogAttrs(r.Context(), slog.LevelError, "request failed with an internal error",
			slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Any("err", err))
	case http.StatusServiceUnavailable:
		log.LogAttrs(r.Context(), slog.LevelWarn, "request failed: unavailable",
			slog.String("method", r.Method), slog.Any("err", err))
	}
	Write(w, status, body)
}

// Reject answers a request with an error the adapter itself found (a body
// over its limit, not JSON, …).
func Reject(w http.ResponseWriter, status int, kind domain.Kind, field, detail string) {
	Write(w, status, Error{Detail: detail, Kind: string(kind), Field: field})
}

// Write writes v as the JSON body of a response with status.
func Write(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	// The client may have gone; there is nobody left to tell.
	_ = json.NewEncoder(w).Encode(v)
}
