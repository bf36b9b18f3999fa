package ws

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/kg-memory/kg/adapters/events"
	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Defaults of Options (docs/design/http.md#websocket).
const (
	DefaultMaxClients   = 256
	DefaultPingInterval = 30 * time.Second
	DefaultPingTimeout  = 10 * time.Second
	DefaultWriteTimeout = 10 * time.Second
	// DefaultRecheckInterval is how often an open socket asks again whether
	// the credential it was opened with still holds. With the token cache's
	// 2 s a revoked token's sockets close within 3 s, well under the 5 s of
	// docs/design/team.md#people-and-tokens.
	DefaultRecheckInterval = time.Second
)

// maxClientMessage bounds what a client may send: it only ever sends
// "ping".
const maxClientMessage = 1 << 10

// Options tune the WebSocket; zero values take the defaults.
type Options struct {
	MaxClients   int           // sockets open at once
	PingInterval time.Duration // how often the server pings
	PingTimeout  time.Duration // how long a pong may take before the socket is dropped
	WriteTimeout time.Duration // how long one frame may take to write
	// RecheckInterval is how often a socket opened with a credential that
	// can be revoked checks it again (WithRecheck).
	RecheckInterval time.Duration
	// AllowedOrigins are the origins allowed beyond the server's own
	// (KG_ALLOWED_ORIGINS). The router's Origin check has already run; the
	// WebSocket library checks again with the same list, so the two agree.
	AllowedOrigins []string
}

func (o Options) withDefaults() Options {
	if o.MaxClients <= 0 {
		o.MaxClients = DefaultMaxClients
	}
	if o.PingInterval <= 0 {
		o.PingInterval = DefaultPingInterval
	}
	if o.PingTimeout <= 0 {
		o.PingTimeout = DefaultPingTimeout
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.RecheckInterval <= 0 {
		o.RecheckInterval = DefaultRecheckInterval
	}
	return o
}

// Service is the part of *app.Service the WebSocket uses.
type Service interface {
	Watch(ctx context.Context, sessionID, projectPath, projectKey string) (app.Watch, error)
}

// Recheck says again whether the credential a socket was opened with still
// holds: nil while it does, an error of kind invalid once it is revoked,
// any other error when it cannot tell (the socket then stays open: a
// database away is no revocation).
type Recheck func(ctx context.Context) error

type recheckKey struct{}

// WithRecheck returns ctx carrying the recheck of the credential its
// request was authenticated with: the router's authentication puts it there
// in team mode, where a token can be revoked while its sockets are open.
func WithRecheck(ctx context.Context, r Recheck) context.Context {
	return context.WithValue(ctx, recheckKey{}, r)
}

// recheckOf returns the recheck ctx carries, nil for none.
func recheckOf(ctx context.Context) Recheck {
	r, _ := ctx.Value(recheckKey{}).(Recheck)
	return r
}

// Server serves /ws.
type Server struct {
	svc     Service
	hub     *events.Hub
	log     *slog.Logger
	opts    Options
	origins []string // AllowedOrigins as the library's patterns

	mu   sync.Mutex
	open int
}

// New returns the WebSocket server: sockets fed by hub, checked by svc.
func New(svc Service, hub *events.Hub, opts Options, log *slog.Logger) *Server {
	opts = opts.withDefaults()
	return &Server{svc: svc, hub: hub, log: log, opts: opts, origins: originPatterns(opts.AllowedOrigins)}
}

// originPatterns turns allowed origins ("http://localhost:5173") into the
// library's patterns: with "://" the library matches scheme and host, as the
// router's check does, and path.Match's special characters (the brackets of
// an IPv6 origin) are escaped so they match themselves.
func originPatterns(origins []string) []string {
	esc := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`)
	out := make([]string, 0, len(origins))
	for _, o := range origins {
		if o = strings.TrimRight(strings.ToLower(strings.TrimSpace(o)), "/"); o != "" {
			out = append(out, esc.Replace(o))
		}
	}
	return out
}

// Open returns the number of open sockets.
func (s *Server) Open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open
}

// acquire takes a socket slot, or reports that all are taken.
func (s *Server) acquire() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open >= s.opts.MaxClients {
		return false
	}
	s.open++
	return true
}

func (s *Server) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open--
}

// ServeHTTP serves GET /ws?session_id&project_path&project_key&scope (and ?token, checked by
// the router): it checks the query, takes a slot, upgrades, and streams the
// socket's events until it closes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	// A team server takes project_key before project_path, as everywhere.
	aw, err := s.svc.Watch(r.Context(), q.Get("session_id"), q.Get("project_path"), q.Get("project_key"))
	watch := watch{Watch: aw}
	if err == nil {
		err = scopeOf(q.Get("scope"), q.Get("project_path")+q.Get("project_key"), &watch)
	}
	if err != nil {
		apijson.WriteError(w, r, s.log, err)
		return
	}
	if !s.acquire() {
		w.Header().Set("Retry-After", "5")
		apijson.Reject(w, http.StatusServiceUnavailable, domain.KindUnavailable, "",
			"too many WebSocket clients ("+strconv.Itoa(s.opts.MaxClients)+" open); close one and retry")
		return
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: s.origins})
	if err != nil {
		// Accept has answered the request (400 for a request that is no
		// WebSocket handshake, 403 for a refused origin).
		s.release()
		s.log.Debug("websocket upgrade refused", "err", err)
		return
	}
	c.SetReadLimit(maxClientMessage)
	// Subscribed before the connected frame: an event committed after the
	// client sees "connected" is never missed.
	sub := s.hub.Subscribe(filter(watch))
	defer sub.Close()
	// The slot is free before the subscription ends, so whoever sees the
	// subscriber count drop can open a socket.
	defer s.release()
	s.stream(r.Context(), c, sub, watch.Watch)
}

// watch is what a socket listens to: the app's Watch, or every graph.
type watch struct {
	app.Watch
	all bool // ?scope=all: the events of every graph
}

// scopeOf reads ?scope: empty (the user graph and the project named), or
// "all" (every graph, for a page that lists what changed anywhere), which
// names no project of its own.
func scopeOf(scope, projectPath string, w *watch) error {
	switch scope {
	case "":
		return nil
	case "all":
		if projectPath != "" {
			return domain.Invalidf("scope", "all watches every graph; drop project_path, or drop scope to watch one project")
		}
		w.all = true
		return nil
	}
	return domain.Invalidf("scope", "%q is not a scope; the one scope is all (every graph)", scope)
}

// filter chooses the events of a watch: every user-level event (in team
// mode, of its principal's user graph only), the events of its project (of
// every project with scope=all), none caused by its own session.
func filter(w watch) func(ports.Event) bool {
	return func(ev ports.Event) bool {
		if w.SessionID != "" && ev.SourceSession == w.SessionID {
			return false
		}
		switch ev.Level {
		case domain.LevelUser:
			return ev.Owner == w.Owner
		case domain.LevelProject:
			if w.all {
				return domain.ProjectGraph(ev.Project).NamableBy(w.Owner)
			}
			return w.Project != "" && ev.Project == w.Project
		}
		return w.all
	}
}

// stream writes the socket's frames until the socket or the subscription
// ends. Three goroutines share the connection, whose writes are safe for
// concurrent use: this one writes events, a reader answers "ping" (and
// reads the control frames, which pongs need), and a pinger checks the
// client is alive.
func (s *Server) stream(ctx context.Context, c *websocket.Conn, sub *events.Subscription, w app.Watch) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer c.CloseNow()

	if err := s.write(ctx, c, connectedFrame{Type: "connected", SessionID: optional(w.SessionID)}); err != nil {
		return
	}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		s.read(ctx, c)
	}()
	pingDone := make(chan struct{})
	go func() {
		defer close(pingDone)
		s.ping(ctx, c)
	}()
	revoked := make(chan struct{})
	recheckDone := make(chan struct{})
	if check := recheckOf(ctx); check != nil {
		go func() {
			defer close(recheckDone)
			s.recheck(ctx, check, revoked)
		}()
	} else { // nothing that can be revoked: a server of one person
		close(recheckDone)
	}
	defer func() {
		cancel()
		<-readDone
		<-pingDone
		<-recheckDone
	}()

	for {
		select {
		case ev, ok := <-sub.Events():
			if isClosed(revoked) { // an event that came with the revocation is not sent either
				closeRevoked(c)
				return
			}
			if !ok || sub.Err() != nil {
				s.closeFor(c, sub.Err())
				return
			}
			f := frameOf(ev)
			if f == nil {
				s.log.Warn("event not sent: unknown type or no payload", "type", ev.Type)
				continue
			}
			if err := s.write(ctx, c, f); err != nil {
				return
			}
		case <-readDone:
			return
		case <-pingDone:
			return
		case <-revoked:
			closeRevoked(c)
			return
		}
	}
}

// recheck asks check every RecheckInterval whether the socket's credential
// still holds, and closes revoked when it is revoked; it returns then, or
// when ctx ends.
func (s *Server) recheck(ctx context.Context, check Recheck, revoked chan<- struct{}) {
	t := time.NewTicker(s.opts.RecheckInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			err := check(ctx)
			switch {
			case err == nil:
			case domain.KindOf(err) == domain.KindInvalid:
				s.log.Info("websocket closed: its token was revoked")
				close(revoked)
				return
			case ctx.Err() == nil:
				s.log.Debug("websocket token could not be checked again; kept open", "err", err)
			}
		}
	}
}

// closeRevoked closes a socket whose token was revoked, with 1008 as
// docs/design/team.md#people-and-tokens says.
func closeRevoked(c *websocket.Conn) {
	_ = c.Close(websocket.StatusPolicyViolation, "the token this socket was opened with was revoked; reconnect with a valid token")
}

// isClosed reports whether ch is closed, without waiting.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// closeFor closes the socket for the reason its subscription ended: too
// slow (1008: reconnect and re-read), or the server stopping (1001).
func (s *Server) closeFor(c *websocket.Conn, err error) {
	switch {
	case errors.Is(err, events.ErrSlow):
		_ = c.Close(websocket.StatusPolicyViolation,
			"too slow: more than "+strconv.Itoa(events.Backlog)+" events behind; reconnect and re-read the graph")
	case errors.Is(err, events.ErrClosed):
		_ = c.Close(websocket.StatusGoingAway, "the server is stopping")
	default:
		_ = c.Close(websocket.StatusNormalClosure, "")
	}
}

// write sends one JSON frame, giving up after the write timeout (the
// library then closes the connection).
func (s *Server) write(ctx context.Context, c *websocket.Conn, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		s.log.Error("websocket frame could not be encoded", "err", err)
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.WriteTimeout)
	defer cancel()
	return c.Write(ctx, websocket.MessageText, b)
}

// read answers the client's "ping" messages and returns when the socket
// closes. Anything else a client sends is ignored.
func (s *Server) read(ctx context.Context, c *websocket.Conn) {
	for {
		typ, b, err := c.Read(ctx)
		if err != nil {
			return
		}
		if typ == websocket.MessageText && strings.TrimSpace(string(b)) == "ping" {
			if err := s.write(ctx, c, struct {
				Type string `json:"type"`
			}{"pong"}); err != nil {
				return
			}
		}
	}
}

// ping pings the client every PingInterval and returns when a pong does not
// come within PingTimeout, or when ctx ends.
func (s *Server) ping(ctx context.Context, c *websocket.Conn) {
	t := time.NewTicker(s.opts.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			pctx, cancel := context.WithTimeout(ctx, s.opts.PingTimeout)
			err := c.Ping(pctx)
			cancel()
			if err != nil {
				if ctx.Err() == nil {
					s.log.Info("websocket dropped: no answer to ping", "timeout", s.opts.PingTimeout)
				}
				return
			}
		}
	}
}
