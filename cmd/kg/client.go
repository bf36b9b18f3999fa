package main

// The client side of the commands that go through a running server: how
// one is found, and how its HTTP API is called.

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
	"github.com/kg-memory/kg/domain"
)

const (
	// probeTimeout bounds one /health request: a server that answers at
	// all answers it at once.
	probeTimeout = 2 * time.Second
	// startingWait is how long a command waits for a server whose lock
	// file names a live process but that does not answer yet: it may be
	// loading the user graph.
	startingWait = 5 * time.Second
	// pollEvery is the pause between two /health probes while waiting.
	pollEvery = 100 * time.Millisecond
)

// apiClient calls the HTTP API of one running kg server.
type apiClient struct {
	base  string // http://host:port
	token string // sent as a bearer token when not empty
	http  *http.Client
}

// newAPIClient returns a client of the server listening on addr (host:port,
// as a lock file or a listener names it).
func newAPIClient(addr, token string) *apiClient {
	return &apiClient{base: "http://" + dialAddr(addr), token: token, http: &http.Client{}}
}

// dialAddr turns a listen address into one to connect to: a server that
// listens on every interface is reached on loopback.
func dialAddr(addr string) string {
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
func (c *apiClient) URL() string { return c.base + "/" }

// health asks the server how it is, within probeTimeout.
func (c *apiClient) health(ctx context.Context) (khttp.Health, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var h khttp.Health
	err := c.call(ctx, http.MethodGet, "/health", nil, nil, &h)
	return h, err
}

// apiError is an error the server answered with: its status and the
// {"detail","kind","field"} body of docs/design/http.md#errors.
type apiError struct {
	Status int
	Detail string `json:"detail"`
	Kind   string `json:"kind"`
	Field  string `json:"field"`
}

func (e *apiError) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("the server answered %d %s", e.Status, http.StatusText(e.Status))
	}
	return e.Detail
}

// call makes one request: body (when not nil) is sent as JSON, the answer
// decoded into out (when not nil). An answer other than 2xx is an
// *apiError; a 401 says how to give the token.
func (c *apiClient) call(ctx context.Context, method, path string, query url.Values, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	return c.send(ctx, method, path, query, "application/json", rd, out)
}

// send is call with a body already encoded as contentType.
func (c *apiClient) send(ctx context.Context, method, path string, query url.Values, contentType string, body io.Reader, out any) error {
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
		e := &apiError{Status: resp.StatusCode}
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

// rootServer finds the server that holds cfg.Root: the one its lock file
// names, when that process still runs and answers /health. A server that
// is starting (its lock taken, the user graph loading) gets startingWait
// to answer; the lock file is read again before each probe, so a holder
// that dies (or is killed, and lingers unreaped) or lets go of the root
// during the wait ends it at once. It returns nil when no server holds the
// root.
func rootServer(ctx context.Context, cfg Config) (*apiClient, khttp.Health, error) {
	deadline := time.Now().Add(startingWait)
	for {
		h := rootdir.ReadHolder(cfg.Root)
		if !h.Running() || h.Addr == "" {
			return nil, khttp.Health{}, nil
		}
		c := newAPIClient(h.Addr, cfg.AuthToken)
		hl, err := c.health(ctx)
		if err == nil {
			return c, hl, nil
		}
		var ae *apiError
		if errors.As(err, &ae) {
			return nil, khttp.Health{}, err // it answers, but refuses: say why
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			// The pid may have been reused; taking the lock will tell.
			return nil, khttp.Health{}, nil
		}
		select {
		case <-time.After(pollEvery):
		case <-ctx.Done():
			return nil, khttp.Health{}, ctx.Err()
		}
	}
}

// errServerRuns is the refusal of a command that must not run beside a
// server (`kg migrate`, `kg project mv`).
func errServerRuns(c *apiClient, root, what string) error {
	return &domain.Error{Kind: domain.KindConflict,
		Msg: fmt.Sprintf("a kg server serves %s at %s: stop it first, %s needs the root to itself", root, c.base, what)}
}
