package main

// Providers of the object graph that wire.go assembles. They are plain
// functions, so that replacing wire is a one-file change: each
// returns (T, cleanup, error) when it holds something that must be let go.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/cmd/kg/internal/config"

	"github.com/kg-memory/kg/adapters/events"
	"github.com/kg-memory/kg/adapters/filehash"
	khttp "github.com/kg-memory/kg/adapters/http"
	"github.com/kg-memory/kg/adapters/metrics"
	"github.com/kg-memory/kg/adapters/namedfile"
	"github.com/kg-memory/kg/adapters/paths"
	"github.com/kg-memory/kg/adapters/rootdir"
	"github.com/kg-memory/kg/adapters/storage/bolt"
	"github.com/kg-memory/kg/adapters/storage/jsonfile"
	"github.com/kg-memory/kg/adapters/storage/postgres"
	"github.com/kg-memory/kg/adapters/transcript"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/ports"
)

// lockAddr is the address written into the root's lock file, so that a
// second server on the same root can name where the holder listens.
type lockAddr string

// lockedRoot is a storage root whose lock this process holds. Storage
// providers of backends that live in the root take it, which is what makes
// wire take the lock before opening anything.
type lockedRoot string

// storage is an opened backend: the repositories the app is built on, and
// the backend's own metrics (its fsync or write time), which the server
// registers with the rest.
type storage struct {
	Graphs     ports.GraphRepository
	Sessions   ports.SessionRepository
	Collectors []prometheus.Collector
	// Team is the PostgreSQL store of team mode; nil for the root backends.
	Team *postgres.Store
}

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

// lockRoot creates the root if needed, takes its lock and checks (or
// records) its backend marker. The cleanup releases the lock. It belongs
// to the provider sets of the backends that live in the root.
func lockRoot(cfg config.Config, addr lockAddr, log *slog.Logger) (lockedRoot, func(), error) {
	if err := makeRoot(cfg.Root); err != nil {
		return "", nil, err
	}
	l, err := rootdir.Acquire(cfg.Root, string(addr))
	if err != nil {
		return "", nil, err
	}
	release := func() {
		if err := l.Release(); err != nil {
			log.Error("releasing the storage root lock failed", "root", cfg.Root, "err", err)
		}
	}
	if err := checkMarker(cfg.Root, cfg.Storage); err != nil {
		release()
		return "", nil, err
	}
	return lockedRoot(cfg.Root), release, nil
}

// makeRoot creates the root folder (mode 0700: memory is private) and
// fsyncs its parent, so the folder of acknowledged writes survives a power
// cut.
func makeRoot(root string) error {
	if _, err := os.Stat(root); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("storage root %s: %w", root, err)
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return fmt.Errorf("create storage root %s: %w", root, err)
	}
	d, err := os.Open(filepath.Dir(root))
	if err != nil {
		return fmt.Errorf("create storage root %s: %w", root, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("create storage root %s: %w", root, err)
	}
	return nil
}

// openJSON opens the JSON-file store on a locked root. It holds no
// resource beyond the lock, so its cleanup does nothing.
// Every fsync it makes is timed for the metrics.
func openJSON(_ context.Context, root lockedRoot, log *slog.Logger) (storage, func(), error) {
	fsync := metrics.NewFsync()
	s, err := jsonfile.Open(string(root), jsonfile.Options{Logger: log, FS: jsonfile.TimeSyncs(jsonfile.OS{}, fsync)})
	if err != nil {
		return storage{}, nil, err
	}
	return storage{Graphs: s, Sessions: s, Collectors: []prometheus.Collector{fsync}}, func() {}, nil
}

// openBolt opens <root>/kg.db. The cleanup closes it, which releases its
// file lock.
func openBolt(ctx context.Context, root lockedRoot, log *slog.Logger) (storage, func(), error) {
	s, err := bolt.Open(ctx, string(root), bolt.Options{Logger: log})
	if err != nil {
		return storage{}, nil, err
	}
	return storage{Graphs: s, Sessions: s, Collectors: []prometheus.Collector{metrics.NewBoltWrites(s.WriteTime)}}, func() {
		if err := s.Close(); err != nil {
			log.Error("closing the bolt store failed", "err", err)
		}
	}, nil
}

// openPostgres opens the team-mode store on the database KG_DATABASE_URL
// names, migrating its schema; there is no root to lock, any number of
// servers share the database. The cleanup closes its pool.
func openPostgres(ctx context.Context, cfg config.Config, log *slog.Logger) (storage, func(), error) {
	// The changes table is the change log of team mode: it keeps what
	// KG_HISTORY_DAYS says (docs/design/trust.md#team-mode).
	opt := postgres.Options{Logger: log, TokenGrace: cfg.TokenGrace}
	if cfg.TokenGrace == 0 {
		opt.TokenGrace = -1 // none: the store's zero means its default
	}
	if cfg.App.HistoryDays > 0 {
		opt.ChangesRetention = time.Duration(cfg.App.HistoryDays) * 24 * time.Hour
	}
	s, err := postgres.Open(ctx, cfg.DatabaseURL, opt)
	if err != nil {
		return storage{}, nil, err
	}
	return storage{Graphs: s, Sessions: s, Collectors: s.Collectors(), Team: s}, s.Close, nil
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
func newMetrics(st storage) (*metrics.Metrics, error) {
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
func httpConfig(cfg config.Config, clk ports.Clock, m *metrics.Metrics, st storage) khttp.Config {
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
