package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kg-memory/kg/adapters/metrics"
	"github.com/kg-memory/kg/adapters/rootdir"
	"github.com/kg-memory/kg/adapters/storage/bolt"
	"github.com/kg-memory/kg/adapters/storage/jsonfile"
	"github.com/kg-memory/kg/adapters/storage/memory"
	"github.com/kg-memory/kg/adapters/storage/postgres"
	"github.com/kg-memory/kg/cmd/kg/internal/config"
	"github.com/kg-memory/kg/cmd/kg/internal/readonly"
	"github.com/kg-memory/kg/ports"
)

// LockAddr is the address written into the root's lock file, so that a
// second server on the same root can name where the holder listens.
type LockAddr string

// LockedRoot is a storage root whose lock this process holds. Storage
// providers of backends that live in the root take it, which is what makes
// wire take the lock before opening anything.
type LockedRoot string

// Storage is an opened backend: the repositories the app is built on, and
// the backend's own metrics (its fsync or write time), which the server
// registers with the rest.
type Storage struct {
	Graphs     ports.GraphRepository
	Sessions   ports.SessionRepository
	Collectors []prometheus.Collector
	// Team is the PostgreSQL store of team mode; nil for the root backends.
	Team *postgres.Store
}

// LockRoot creates the root if needed, takes its lock and checks (or
// records) its backend marker. The cleanup releases the lock. It belongs
// to the provider sets of the backends that live in the root.
func LockRoot(cfg config.Config, addr LockAddr, log *slog.Logger) (LockedRoot, func(), error) {
	if err := MakeRoot(cfg.Root); err != nil {
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
	if err := CheckMarker(cfg.Root, cfg.Storage); err != nil {
		release()
		return "", nil, err
	}
	return LockedRoot(cfg.Root), release, nil
}

// MakeRoot creates the root folder (mode 0700: memory is private) and
// fsyncs its parent, so the folder of acknowledged writes survives a power
// cut.
func MakeRoot(root string) error {
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

// OpenJSON opens the JSON-file store on a locked root. It holds no
// resource beyond the lock, so its cleanup does nothing.
// Every fsync it makes is timed for the metrics.
func OpenJSON(_ context.Context, root LockedRoot, log *slog.Logger) (Storage, func(), error) {
	fsync := metrics.NewFsync()
	s, err := jsonfile.Open(string(root), jsonfile.Options{Logger: log, FS: jsonfile.TimeSyncs(jsonfile.OS{}, fsync)})
	if err != nil {
		return Storage{}, nil, err
	}
	return Storage{Graphs: s, Sessions: s, Collectors: []prometheus.Collector{fsync}}, func() {}, nil
}

// OpenBolt opens <root>/kg.db. The cleanup closes it, which releases its
// file lock.
func OpenBolt(ctx context.Context, root LockedRoot, log *slog.Logger) (Storage, func(), error) {
	s, err := bolt.Open(ctx, string(root), bolt.Options{Logger: log})
	if err != nil {
		return Storage{}, nil, err
	}
	return Storage{Graphs: s, Sessions: s, Collectors: []prometheus.Collector{metrics.NewBoltWrites(s.WriteTime)}}, func() {
		if err := s.Close(); err != nil {
			log.Error("closing the bolt store failed", "err", err)
		}
	}, nil
}

// OpenPostgres opens the team-mode store on the database KG_DATABASE_URL
// names, migrating its schema; there is no root to lock, any number of
// servers share the database. The cleanup closes its pool.
func OpenPostgres(ctx context.Context, cfg config.Config, log *slog.Logger) (Storage, func(), error) {
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
		return Storage{}, nil, err
	}
	return Storage{Graphs: s, Sessions: s, Collectors: s.Collectors(), Team: s}, s.Close, nil
}

// RequireRoot refuses a command that reads the storage root when the root
// is not there: a mistyped --storage-root must not make an empty root
// appear.
func RequireRoot(root string) error {
	_, err := os.Stat(root)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("there is no storage root at %s: give the one the server uses with --storage-root or KG_STORAGE_ROOT", root)
	}
	return err
}

// OpenReadOnly opens the root's storage for a command that only reads it
// (kg export, kg compact --dry-run, kg project list): it creates nothing and
// writes nothing — no .lock, no .backend, no folder, no byte of a data file
// — so the root is left exactly as it was found. It holds a shared lock on
// the root meanwhile when the root has a lock file (rootdir.Share), so no
// server starts under it. A root that holds no memory yet reads as empty.
// The cleanup closes the storage and releases the lock.
func OpenReadOnly(ctx context.Context, cfg config.Config, log *slog.Logger) (Storage, func(), error) {
	if err := RequireRoot(cfg.Root); err != nil {
		return Storage{}, nil, err
	}
	b, ok := Named(cfg.Storage)
	if !ok || !b.InRoot {
		return Storage{}, nil, fmt.Errorf("storage %q is not a backend kept in the root", cfg.Storage)
	}
	have, err := RootBackend(cfg.Root)
	if err != nil {
		return Storage{}, nil, err
	}
	if have != "" && have != b.Name {
		return Storage{}, nil, Mismatch(cfg.Root, have, b.Name)
	}
	l, err := rootdir.Share(cfg.Root)
	if err != nil {
		return Storage{}, nil, err
	}
	release := func() { _ = l.Release() }
	if have == "" {
		m := memory.New()
		return Storage{Graphs: m, Sessions: m}, release, nil
	}
	st, closeStorage, err := b.OpenReadOnly(ctx, cfg.Root, log)
	if err != nil {
		release()
		return Storage{}, nil, err
	}
	return st, func() { closeStorage(); release() }, nil
}

// openJSONReadOnly opens the json store of root through readonly.FS.
func openJSONReadOnly(_ context.Context, root string, log *slog.Logger) (Storage, func(), error) {
	s, err := jsonfile.Open(root, jsonfile.Options{Logger: log, FS: readonly.FS{FS: jsonfile.OS{}}})
	if err != nil {
		return Storage{}, nil, err
	}
	return Storage{Graphs: s, Sessions: s}, func() {}, nil
}

// openBoltReadOnly opens <root>/kg.db read-only: nothing is written to
// it, not even the free list at close.
func openBoltReadOnly(ctx context.Context, root string, log *slog.Logger) (Storage, func(), error) {
	s, err := bolt.Open(ctx, root, bolt.Options{Logger: log, ReadOnly: true})
	if err != nil {
		return Storage{}, nil, err
	}
	return Storage{Graphs: s, Sessions: s}, func() {
		if err := s.Close(); err != nil {
			log.Error("closing the bolt store failed", "err", err)
		}
	}, nil
}
