package rest

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
)

// errNotJSON marks a body sent with another media type; it is answered 415,
// outside the kind table, since no use case was called.
type errNotJSON struct{ contentType string }

func (e errNotJSON) Error() string {
	if e.contentType == "" {
		return "the request body must be JSON; send it with Content-Type: application/json"
	}
	return "the request body must be JSON, not " + strconv.Quote(e.contentType) + "; send it with Content-Type: application/json"
}

// writeError answers a request with err: 415 for a body that is not JSON,
// else the status of its kind.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	if nj, ok := err.(errNotJSON); ok {
		apijson.Reject(w, http.StatusUnsupportedMediaType, domain.KindInvalid, "Content-Type", nj.Error())
		return
	}
	apijson.WriteError(w, r, log, err)
}

// hasBody reports whether the request carries a body.
func hasBody(r *http.Request) bool {
	return r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0
}

// checkJSON refuses (415) a body declared as anything but JSON
// (application/json or application/…+json): a form or text/plain body is
// what a cross-site page can send without a preflight, so it is never
// read as JSON. A body sent with no Content-Type at all (some scripted
// clients) is read as JSON; browsers always name one.
func checkJSON(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || !(mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))) {
		return errNotJSON{contentType: ct}
	}
	return nil
}

// decodeBody reads the JSON object of a request's body into v. Unknown
// fields are ignored, as the tools ignore unknown arguments. A missing body
// is an error when required, else leaves v as it is.
func decodeBody(r *http.Request, v any, required bool) error {
	if !hasBody(r) {
		if required {
			return domain.Invalidf("body", "required: a JSON object")
		}
		return nil
	}
	if err := checkJSON(r); err != nil {
		return err
	}
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return domain.Invalidf("body", "could not be read: %v", err)
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		if required {
			return domain.Invalidf("body", "required: a JSON object")
		}
		return nil
	}
	if b[0] != '{' {
		return domain.Invalidf("body", "must be a JSON object")
	}
	// The JSON decoder would quietly turn bad bytes into U+FFFD;
	// docs/design/model.md#identifiers-and-limits wants invalid UTF-8 refused.
	if !utf8.Valid(b) {
		return domain.Invalidf("body", "must be valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil {
		return apijson.DecodeError("", err)
	}
	// dec.More is false before a stray '}' or ']': look at the bytes.
	if len(bytes.TrimSpace(b[dec.InputOffset():])) > 0 {
		return domain.Invalidf("body", "holds more than one JSON value, or text after its object")
	}
	return nil
}

// scopeOf is the graph a request names in its query: session_id,
// project_path, project_key and level.
func scopeOf(r *http.Request, level string) app.Scope {
	q := r.URL.Query()
	if level == "" {
		level = q.Get("level")
	}
	return app.Scope{SessionID: q.Get("session_id"), ProjectPath: q.Get("project_path"), ProjectKey: q.Get("project_key"),
		Level: domain.Level(level)}
}

// param returns a path parameter, decoded. chi matches the escaped path
// when a request has one (a %2F in an edge end), and then hands parameters
// over still escaped.
func param(r *http.Request, name string) (string, error) {
	v := chi.URLParam(r, name)
	if r.URL.RawPath == "" {
		return v, nil
	}
	u, err := url.PathUnescape(v)
	if err != nil {
		return "", domain.Invalidf(name, "%q is not a valid escaped path segment", v)
	}
	return u, nil
}
