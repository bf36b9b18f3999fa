package http

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
)

// limitBody refuses (413) a request whose body is over max bytes, and hands
// the next handler the body read into memory. Reading it here, rather than
// wrapping it in http.MaxBytesReader, is what makes the status a 413: mcp-go
// reads the body itself and would turn a read error into a JSON-RPC parse
// error. A body of at most max bytes is read whole by every handler behind
// this anyway.
func limitBody(max int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength > max {
				tooLarge(w, r.ContentLength, max)
				return
			}
			if r.Body == nil || r.Body == http.NoBody {
				next.ServeHTTP(w, r)
				return
			}
			body, err := io.ReadAll(io.LimitReader(r.Body, max+1))
			if timedOut(err) {
				// The connection cannot be reused: the rest of the body
				// never came.
				w.Header().Set("Connection", "close")
				reject(w, http.StatusRequestTimeout, "invalid", "body", "the request body did not arrive in time")
				return
			}
			if err != nil {
				reject(w, http.StatusBadRequest, "invalid", "body", "could not read the request body")
				return
			}
			if int64(len(body)) > max {
				tooLarge(w, -1, max)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
			next.ServeHTTP(w, r)
		})
	}
}

func tooLarge(w http.ResponseWriter, size, max int64) {
	msg := "request body over the limit of " + strconv.FormatInt(max, 10) + " bytes"
	if size >= 0 {
		msg = "request body of " + strconv.FormatInt(size, 10) + " bytes is over the limit of " +
			strconv.FormatInt(max, 10) + " bytes"
	}
	// The rest of an over-long body is not read: close the connection
	// rather than let the server drain it.
	w.Header().Set("Connection", "close")
	reject(w, http.StatusRequestEntityTooLarge, "invalid", "body", msg)
}
