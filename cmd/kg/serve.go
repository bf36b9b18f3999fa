package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/kg-memory/kg/cmd/kg/internal/config"
	"github.com/kg-memory/kg/cmd/kg/internal/store"
)

// Shutdown bounds (docs/design/operations.md#start-and-stop).
const (
	// drainTimeout is how long in-flight requests get to finish once the
	// server stops accepting.
	drainTimeout = 5 * time.Second
	// flushTimeout bounds making pending writes durable and saving the
	// sessions; past it the shutdown reports what was not saved.
	flushTimeout = 30 * time.Second
	// readHeaderTimeout bounds a client that opens a connection and never
	// finishes its headers (docs/design/http.md#bounds).
	readHeaderTimeout = 10 * time.Second
	// idleTimeout closes keep-alive connections a client forgot, so they
	// do not pile up over a long-running server's life.
	idleTimeout = 2 * time.Minute
	// socketsTimeout bounds the wait for the WebSockets to send their
	// close frame (1001) and hear the client's answer.
	socketsTimeout = 3 * time.Second
)

// newServeCommand is `kg serve`.
func newServeCommand(e env) *cobra.Command {
	c := &cobra.Command{
		Use:   "serve",
		Short: "run the server in the foreground (plain kg does the same)",
		Long: "Runs the server in the foreground until SIGINT or SIGTERM. It takes the storage root's lock,\n" +
			"so one server serves a root at a time.",
	}
	serveOn(c, e)
	return c
}

// serveOn makes c run the server: `kg serve`, and plain `kg`.
func serveOn(c *cobra.Command, e env) {
	settings := bindSettings(c.Flags(), e.home)
	if c.Args == nil {
		c.Args = noArgs
	}
	c.RunE = func(c *cobra.Command, _ []string) error {
		cfg, err := settings.Config(e.getenv)
		if err != nil {
			return err
		}
		// Without --storage or KG_STORAGE, the backend is the one the root
		// holds (its .backend marker, or its files), so that a service
		// unit needs no edit after kg migrate; a new root gets the
		// default. A backend named that the root does not hold is refused
		// under the lock (store.CheckMarker).
		if !settings.IsSet("storage", e.getenv) {
			if have, err := store.RootBackend(cfg.Root); err == nil && have != "" {
				cfg.Storage = have
			}
		}
		log := newLogger(e.stderr, cfg)
		setMemoryLimit(cfg, e.getenv, log)
		ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return runServer(ctx, stop, cfg, log) // one line a person can act on; the details were logged
	}
}

// autoTeamMemoryLimit is the soft memory limit of a team server by default:
// with the bound of loaded nodes it keeps a server under 300 MB resident
// whatever the size of the database (docs/performance.md#team-scale).
const autoTeamMemoryLimit = 256

// setMemoryLimit gives Go's collector the soft memory limit of cfg
// (docs/design/team.md#scale). The limit is soft: a server whose live heap
// needs more (a search of every graph) gets it, and the collector works
// harder meanwhile.
func setMemoryLimit(cfg config.Config, getenv func(string) string, log *slog.Logger) {
	mib := cfg.MemoryLimitMiB
	if mib < 0 {
		if cfg.Storage != "postgres" || getenv("GOMEMLIMIT") != "" {
			return
		}
		mib = autoTeamMemoryLimit
	}
	if mib > 0 {
		debug.SetMemoryLimit(int64(mib) << 20)
		log.Info("memory limit set", "mib", mib)
	}
}

// newLogger is the process's one logger: slog to stderr, in the configured
// level and format.
func newLogger(w io.Writer, cfg config.Config) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// runServer starts the server, serves until ctx is done, and shuts down in the
// order of docs/design/operations.md#start-and-stop: stop accepting, let
// in-flight requests finish, make pending writes durable and save the sessions,
// release the lock. stop ends the signal handling once shutdown starts, so that
// a second Ctrl-C kills the process at once.
func runServer(ctx context.Context, stop func(), cfg config.Config, log *slog.Logger) error {
	b, ok := backendNamed(cfg.Storage)
	if !ok {
		return fmt.Errorf("storage %q is not a backend", cfg.Storage) // parseServe let through an unknown backend
	}
	// The certificate is read before anything else, so that a wrong file
	// stops the server before it opens the storage.
	tlsConf, err := loadTLS(cfg)
	if err != nil {
		return err
	}

	// The lock is taken before listening, so that a second server on the
	// same root and port is told who holds the root rather than that the
	// port is taken. With port 0 there is nothing to collide with, and
	// listening first lets the lock file name the real address.
	var ln net.Listener
	addr := cfg.Addr()
	if cfg.Port == 0 {
		if ln, err = listen(cfg, tlsConf); err != nil {
			return err
		}
		defer ln.Close()
		addr = ln.Addr().String()
	}

	st, closeStorage, err := b.inject(ctx, cfg, store.LockAddr(addr), log)
	if err != nil {
		return err
	}
	defer func() {
		closeStorage() // the storage, then the lock
		log.Info("stopped")
	}()
	srv, cleanup, err := initServer(ctx, cfg, st, log)
	if err != nil {
		return err
	}
	defer cleanup() // app Close (again, cheap), events

	if ln == nil {
		if ln, err = listen(cfg, tlsConf); err != nil {
			return err
		}
	}
	log.Info("listening", "addr", ln.Addr().String(), "url", cfg.Scheme()+"://"+ln.Addr().String()+"/",
		"storage", cfg.Storage, "root", cfg.Root, "tls", cfg.TLS(), "version", readBuildInfo().Version)

	return serve(ctx, stop, srv, ln, log)
}

// serve serves srv on ln, with the maintenance loop beside it, until ctx
// ends or the HTTP server stops; then it calls stop, drains the requests
// and sockets, and saves what is pending.
func serve(ctx context.Context, stop func(), srv *server, ln net.Listener, log *slog.Logger) error {
	hs := &http.Server{
		Handler:           srv.Handler,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	// Shutdown neither closes nor waits for WebSockets: closing the hub
	// tells each socket the server is stopping (1001) while it drains.
	hs.RegisterOnShutdown(srv.Events.Close)
	maintCtx, stopMaint := context.WithCancel(context.Background())
	maintDone := make(chan struct{})
	go func() {
		defer close(maintDone)
		srv.Service.Run(maintCtx)
	}()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	var serveErr error
	select {
	case <-ctx.Done():
		log.Info("shutting down", "reason", context.Cause(ctx))
	case serveErr = <-served:
		log.Error("the HTTP server stopped", "err", serveErr)
	}
	stop()

	drainCtx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	if err := hs.Shutdown(drainCtx); err != nil {
		log.Warn("in-flight requests did not finish in time; closing their connections", "timeout", drainTimeout, "err", err)
		_ = hs.Close()
	}
	cancel()
	closeSockets(srv, log)
	stopMaint()
	<-maintDone

	flushCtx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	if err := srv.Service.Close(flushCtx); err != nil {
		log.Error("pending writes or sessions could not be saved", "err", err)
		return fmt.Errorf("shutdown: %w", err)
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return serveErr
	}
	return nil
}

// closeSockets tells every WebSocket client that the server is stopping
// (close code 1001) and waits, for at most socketsTimeout, until each socket
// has sent its close frame: Shutdown neither closes nor waits for hijacked
// connections, and a process that exits first leaves its clients with 1006
// (docs/design/http.md#websocket).
func closeSockets(srv *server, log *slog.Logger) {
	srv.Events.Close() // also run by Shutdown, in a goroutine of its own
	ctx, cancel := context.WithTimeout(context.Background(), socketsTimeout)
	defer cancel()
	if left := srv.Events.Drain(ctx); left > 0 {
		log.Warn("WebSockets still open at exit; their clients see the connection drop", "sockets", left, "timeout", socketsTimeout)
		return
	}
	log.Info("WebSockets closed")
}

// loadTLS reads the certificate and key of --tls-cert and --tls-key; nil
// when the server serves plain HTTP. The server speaks HTTP/1.1 only over
// TLS, as over TCP: the WebSocket upgrade needs it, and kg's requests gain
// nothing from HTTP/2.
func loadTLS(cfg config.Config) (*tls.Config, error) {
	if !cfg.TLS() {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
	if err != nil {
		return nil, fmt.Errorf("load the TLS certificate %s and its key %s (--tls-cert, --tls-key): %w", cfg.TLSCert, cfg.TLSKey, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}}, nil
}

// listen binds the configured address, serving TLS on it when tlsConf is
// not nil. A port in use is one line that names it and the settings that
// change it.
func listen(cfg config.Config, tlsConf *tls.Config) (net.Listener, error) {
	ln, err := listenTCP(cfg)
	if err != nil || tlsConf == nil {
		return ln, err
	}
	return tls.NewListener(ln, tlsConf), nil
}

func listenTCP(cfg config.Config) (net.Listener, error) {
	ln, err := net.Listen("tcp", cfg.Addr())
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("port %d on %s is already in use: stop what holds it or pick another with --port or KG_HTTP_PORT",
			cfg.Port, cfg.Host)
	}
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", cfg.Addr(), err)
	}
	return ln, nil
}
