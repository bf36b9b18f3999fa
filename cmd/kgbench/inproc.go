package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/adapters/events"
	khttp "github.com/kg-memory/kg/adapters/http"
	"github.com/kg-memory/kg/adapters/paths"
	"github.com/kg-memory/kg/adapters/storage/bolt"
	"github.com/kg-memory/kg/adapters/storage/jsonfile"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/app/hooks"
	"github.com/kg-memory/kg/ports"
)

// benchConfig is the app setting of docs/design/benchmarks.md#workload:
// KG_GRACE_PERIOD_DAYS=0 and the default budget, so compaction is active (a
// mature memory).
func benchConfig() app.Config {
	cfg := app.DefaultConfig()
	cfg.Policy.Grace = 0
	return cfg
}

// service is an app.Service on a real backend in root, with what it takes
// to shut it down.
type service struct {
	*app.Service
	cancel context.CancelFunc // stops the maintenance loop
	done   chan struct{}      // closed when the maintenance loop has returned
	closes []func() error     // backend and hub, in order
	hub    *events.Hub        // the events sink, which /ws subscribes to
}

// openService opens the json or bolt backend in root and an app.Service
// on it with the benchmark setting and the system clock, and starts its
// maintenance loop. wrap, when not nil, wraps the graph repository (the
// benchmarks count commits with it).
func openService(ctx context.Context, backend, root string, wrap func(ports.GraphRepository) ports.GraphRepository, log *slog.Logger) (*service, error) {
	var (
		graphs   ports.GraphRepository
		sessions ports.SessionRepository
		s        = &service{done: make(chan struct{})}
	)
	switch backend {
	case "json":
		st, err := jsonfile.Open(root, jsonfile.Options{Logger: log})
		if err != nil {
			return nil, err
		}
		graphs, sessions = st, st
	case "bolt":
		st, err := bolt.Open(ctx, root, bolt.Options{Logger: log})
		if err != nil {
			return nil, err
		}
		graphs, sessions = st, st
		s.closes = append(s.closes, st.Close)
	default:
		return nil, fmt.Errorf("backend %q: want json or bolt", backend)
	}
	if wrap != nil {
		graphs = wrap(graphs)
	}
	hub := events.New()
	s.hub = hub
	s.closes = append(s.closes, func() error { hub.Close(); return nil })
	svc, err := app.Open(ctx, benchConfig(), app.Deps{
		Graphs: graphs, Sessions: sessions, Clock: clock.System{}, Events: hub, Paths: paths.OS{}, Log: log,
	})
	if err != nil {
		for _, c := range s.closes {
			_ = c()
		}
		return nil, err
	}
	s.Service = svc
	var runCtx context.Context
	runCtx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	go func() {
		defer close(s.done)
		svc.Run(runCtx)
	}()
	return s, nil
}

// Close stops the maintenance loop, makes pending writes durable and
// closes the backend.
func (s *service) Close() error {
	s.cancel()
	<-s.done
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	errs := []error{s.Service.Close(ctx)}
	for _, c := range s.closes {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

// server is an in-process kg server: the service behind the real chi
// router and MCP endpoint, on a loopback port.
type server struct {
	*service
	URL  string // the MCP endpoint, with its trailing slash
	http *http.Server
	ln   net.Listener
}

// startServer opens a service (openService) and serves it on
// 127.0.0.1 at a free port.
func startServer(ctx context.Context, backend, root string, wrap func(ports.GraphRepository) ports.GraphRepository) (*server, error) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc, err := openService(ctx, backend, root, wrap, log)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = svc.Close()
		return nil, err
	}
	h := khttp.NewServer(khttp.Config{Version: "kgbench", Storage: backend, Clock: clock.System{}, Started: clock.System{}.Now()}, svc, hooks.New(svc.Service), svc.hub, log)
	s := &server{service: svc, URL: "http://" + ln.Addr().String() + "/", http: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}, ln: ln}
	go func() { _ = s.http.Serve(ln) }()
	return s, nil
}

// Close stops serving, then closes the service.
func (s *server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := s.http.Shutdown(ctx)
	return errors.Join(err, s.service.Close())
}
