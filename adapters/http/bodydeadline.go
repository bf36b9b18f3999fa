package http

import (
	"errors"
	"io"
	"net/http"
	"os"
	"time"
)

// Body read bounds (docs/design/http.md#bounds). http.Server bounds the
// headers (ReadHeaderTimeout) and idle connections, but nothing bounds a
// body: a client that sends its headers and then trickles or withholds the
// body would hold its connection, and a goroutine, for ever.
const (
	// DefaultBodyReadTimeout is the time a request body has to start
	// arriving in, and its grace beyond minBodyRate.
	DefaultBodyReadTimeout = 10 * time.Second
	// minBodyRate is the slowest a legitimate body is expected to arrive:
	// each MiB read moves the deadline one second further, so a 64 MiB
	// import at this rate is in after 74 s, and over loopback in well
	// under one.
	minBodyRate = 1 << 20 // bytes per second
)

// boundBody sets a read deadline on the connection of every request that
// carries a body: the body must have arrived by base plus one second per
// MiB read so far, from the moment the headers were in. When it has not,
// the body read fails, limitBody answers 408 (a handler that does not read
// the body leaves it to net/http, which gives up) and the connection is
// closed. The rule is the same for a body of declared and of unknown
// length, and a body over its limit is cut by limitBody anyway.
//
// Once the body has been read whole, net/http lifts the deadline itself
// (it then watches the connection for a client that goes away), and the
// deadline is no longer moved: a slow save after the body is not cut. A
// request without a body — a WebSocket upgrade included, whose connection
// is hijacked and lives on — gets no deadline.
func boundBody(base time.Duration) func(http.Handler) http.Handler {
	if base <= 0 {
		base = DefaultBodyReadTimeout
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Body == nil || r.Body == http.NoBody {
				next.ServeHTTP(w, r)
				return
			}
			b := &deadlineBody{ReadCloser: r.Body, rc: http.NewResponseController(w), end: time.Now().Add(base)}
			// A writer that cannot take deadlines (a test recorder) goes
			// without.
			if b.rc.SetReadDeadline(b.end) == nil {
				r.Body = b
			}
			next.ServeHTTP(w, r)
		})
	}
}

// deadlineBody moves the connection's read deadline as the body arrives,
// until the body ends.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	end  time.Time // the current deadline
	read int64     // bytes read since the deadline last moved
	done bool      // the body ended, or failed
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.done || err != nil {
		b.done = true
		return n, err
	}
	if b.read += int64(n); b.read >= minBodyRate/16 {
		b.end = b.end.Add(time.Duration(b.read) * time.Second / minBodyRate)
		b.read = 0
		_ = b.rc.SetReadDeadline(b.end)
	}
	return n, err
}

// timedOut reports whether err is a body read that hit its deadline.
func timedOut(err error) bool {
	return errors.Is(err, os.ErrDeadlineExceeded)
}
