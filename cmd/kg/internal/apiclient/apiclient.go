// Package apiclient is the client side of the kg commands that go through
// a running server: how the server that holds a storage root is found, and
// how its HTTP API is called (docs/design/http.md).
package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	khttp "github.com/kg-memory/kg/adapters/http"
	"github.com/kg-memory/kg/adapters/rootdir"
)

const (
	// probeTimeout bounds one /health request: a server that answers at
	// all answers it at once.
	probeTimeout = 2 * time.Second
	// StartingWait is how long a command waits for a server whose lock
	// file names a live process but that does not answer yet: it may be
	// loading the user graph.
	StartingWait = 5 * time.Second
	// PollEvery is the pause between two /health probes while waiting.
	PollEvery = 100 * time.Millisecond
)

// Client calls the HTTP API of one running kg server.
type Client struct {
	base  string // http://host:port or https://host[:port]
	token string // sent as a bearer token when not empty
	http  *http.Client
}

// New returns a client of the server listening on addr (host:port, as a
// lock file or a listener names it).
func New(addr, token string) *Client {
	return &Client{base: "http://" + DialAddr(addr), token: token, http: &http.Client{}}
}

// NewURL returns a client of the server at base, scheme://host[:port] as
// --server-url gives it (config.ParseServerURL). An https server's
// certificate is verified against the system's roots, to which
// SSL_CERT_FILE or SSL_CERT_DIR add a private CA (docs/operations.md#team-server).
func NewURL(base, token string) *Client {
	return &Client{base: base, token: token, http: &http.Client{}}
}

// DialAddr turns a listen address into one to connect to: a server that
// listens on every interface is reached on loopback.
func DialAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		if ip.To4() != nil {
			host = "127.0.0.1"
		} else {
			host = "::1"
		}
	}
	return net.JoinHostPort(host, port)
}

// URL is the server's MCP endpoint.
func (c *Client) URL() string { return c.base + "/" }

// Base is the server's address as a URL without a path: http://host:port
// (or what NewURL was given).
func (c *Client) Base() string { return c.base }

// Health asks the server how it is, within probeTimeout.
func (c *Client) Health(ctx context.Context) (khttp.Health, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var h khttp.Health
	err := c.Call(ctx, http.MethodGet, "/health", nil, nil, &h)
	return h, err
}

// Error is an error the server answered with: its status and the
// {"detail","kind","field"} body of docs/design/http.md#errors.
type Error struct {
	Status int
	Detail string `json:"detail"`
	Kind   string `json:"kind"`
	Field  string `json:"field"`
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("the server answered %d %s", e.Status, http.StatusText(e.Status))
	}
	return e.Detail
}

// Call makes one request: body (when not nil) is sent as JSON, the answer
// decoded into out (when not nil; an io.Writer gets the body as it is). An
// answer other than 2xx is an *Error; a 401 says how to give the token.
func (c *Client) Call(ctx context.Context, method, path string, query url.Values, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	return c.Send(ctx, method, path, query, "application/json", rd, out)
}

// Send is Call with a body already encoded as contentType.
func (c *Client) Send(ctx context.Context, method, path string, query url.Values, contentType string, body io.Reader, out any) error {
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, c.base+path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		e := &Error{Status: resp.StatusCode}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if json.Unmarshal(b, e) != nil || e.Detail == "" {
			e.Detail = strings.TrimSpace(string(b))
		}
		if resp.StatusCode == http.StatusUnauthorized {
			e.Detail = "the server at " + c.base + " wants a token: set --auth-token or KG_AUTH_TOKEN to the server's"
		}
		return e
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if w, ok := out.(io.Writer); ok {
		_, err = io.Copy(w, resp.Body)
		return err
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: the answer is not the JSON expected: %w", method, c.base+path, err)
	}
	return nil
}

// RootServer finds the server that holds root, as the client of token:
// the one the root's lock file names, when that process still runs and answers /health. A server that
// is starting (its lock taken, the user graph loading) gets startingWait
// to answer; the lock file is read again before each probe, so a holder
// that dies (or is killed, and lingers unreaped) or lets go of the root
// during the wait ends it at once. It returns nil when no server holds the
// root.
func RootServer(ctx context.Context, root, token string) (*Client, khttp.Health, error) {
	deadline := time.Now().Add(StartingWait)
	for {
		h := rootdir.ReadHolder(root)
		if !h.Running() || h.Addr == "" {
			return nil, khttp.Health{}, nil
		}
		c := New(h.Addr, token)
		hl, err := c.Health(ctx)
		if err == nil {
			return c, hl, nil
		}
		var ae *Error
		if errors.As(err, &ae) {
			return nil, khttp.Health{}, err // it answers, but refuses: say why
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			// The pid may have been reused; taking the lock will tell.
			return nil, khttp.Health{}, nil
		}
		select {
		case <-time.After(PollEvery):
		case <-ctx.Done():
			return nil, khttp.Health{}, ctx.Err()
		}
	}
}
