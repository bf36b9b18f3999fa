package main

// Providers of the object graph that wire.go assembles. They are plain
// functions, so that replacing wire is a one-file change: each
// returns (T, cleanup, error) when it holds something that must be let go.

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/cmd/kg/internal/config"
	"github.com/kg-memory/kg/cmd/kg/internal/store"

	"github.com/kg-memory/kg/adapters/events"
	"github.com/kg-memory/kg/adapters/filehash"
	khttp "github.com/kg-memory/kg/adapters/http"
	"github.com/kg-memory/kg/adapters/metrics"
	"github.com/kg-memory/kg/adapters/namedfile"
	"github.com/kg-memory/kg/adapters/paths"
	"github.com/kg-memory/kg/adapters/transcript"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/ports"
)

// closeTimeout bounds the app's Close when it runs as a cleanup (start-up
// failed after the app was built); the normal shutdown path closes the app
// itself, with its own bound, before the cleanups run.
const closeTimeout = 30 * time.Second

// server is what an injector builds: the parts `kg serve` drives.
type server struct {
	Service *app.Service
	Handler http.Handler
	Events  *events.Hub
}

// newHub is the events sink. Its cleanup ends every subscription.
func newHub() (*events.Hub, func()) {
	h := events.New()
	return h, h.Close
}

func systemClock() ports.Clock         { return clock.System{} }
func osPaths() ports.PathResolver      { return paths.OS{} }
func osProjectKeys() ports.ProjectKeys { return paths.OS{} }

// osFiles reads project files for the staleness check
// (docs/design/trust.md#staleness), each read with a deadline and the
// reads stuck past it bounded (docs/design/trust.md#files-named-by-a-request).
func osFiles() ports.FileHasher { return filehash.OS{Files: &namedfile.Reader{}} }

// homeTranscripts reads Claude Code transcripts in the user's home folder
// only (docs/design/hooks.md#session-binding), with a deadline as osFiles.
func homeTranscripts() ports.Transcripts {
	return transcript.Home{Files: &namedfile.Reader{}}
}
func appConfig(cfg config.Config) app.Config { return cfg.App }

// openService builds the app: it loads the sessions and the user graph.
// The cleanup closes it as a safety net; a second Close is cheap.
func openService(ctx context.Context, cfg app.Config, deps app.Deps) (*app.Service, func(), error) {
	svc, err := app.Open(ctx, cfg, deps)
	if err != nil {
		return nil, nil, err
	}
	return svc, func() {
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		defer cancel()
		if err := svc.Close(ctx); err != nil {
			deps.Log.Error("closing the app failed", "err", err)
		}
	}, nil
}

// newMetrics is the server's metrics (docs/operations.md#metrics), on a
// registry of their own, with the storage backend's collectors.
func newMetrics(st store.Storage) (*metrics.Metrics, error) {
	m := metrics.New()
	if err := m.Register(st.Collectors...); err != nil {
		return nil, fmt.Errorf("register the storage metrics: %w", err)
	}
	return m, nil
}

// noMetrics is what the app records into when no server runs (kg import
// on the files): nothing.
func noMetrics() ports.Metrics { return ports.NoMetrics{} }

// httpConfig is the HTTP side's share of the settings. Started is read
// here, once the storage is open, so uptime counts from when the server
// could serve.
func httpConfig(cfg config.Config, clk ports.Clock, m *metrics.Metrics, st store.Storage) khttp.Config {
	var principals ports.Authenticator
	if st.Team != nil { // team mode: every request carries a person's token
		principals = st.Team
	}
	return khttp.Config{
		Principals:     principals,
		Metrics:        m,
		Version:        readBuildInfo().Version,
		Storage:        cfg.Storage,
		AllowedHosts:   cfg.AllowedHosts,
		AllowedOrigins: cfg.AllowedOrigins,
		AuthToken:      cfg.AuthToken,
		Settings:       serverSettings(cfg),
		Clock:          clk,
		Started:        clk.Now(),
	}
}
