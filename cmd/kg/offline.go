package main

// Commands that work on the storage root's files, when no server holds it.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/kg-memory/kg/adapters/rootdir"
	"github.com/kg-memory/kg/adapters/storage/bolt"
	"github.com/kg-memory/kg/adapters/storage/jsonfile"
	"github.com/kg-memory/kg/adapters/storage/memory"
	"github.com/kg-memory/kg/cmd/kg/internal/apiclient"
	"github.com/kg-memory/kg/cmd/kg/internal/config"
	"github.com/kg-memory/kg/cmd/kg/internal/readonly"
	"github.com/kg-memory/kg/domain"
)

// commandConfig reads the settings of a command other than `kg serve`. It
// uses the backend the root holds unless --storage or KG_STORAGE names one,
// so that `kg export` needs no --storage bolt on a bolt root (a root that
// holds another backend than the one named is refused when it is opened,
// as the server refuses it); and it logs warnings and errors only, unless
// --log-level or KG_LOG_LEVEL says otherwise, so that what the command
// prints is not lost among what the storage did.
func commandConfig(e env, settings *config.Flags) (config.Config, error) {
	cfg, err := settings.Config(e.getenv)
	if err != nil {
		return config.Config{}, err
	}
	if !settings.IsSet("log-level", e.getenv) {
		cfg.LogLevel = slog.LevelWarn
	}
	if !settings.IsSet("storage", e.getenv) {
		if have, err := rootBackend(cfg.Root); err == nil && have != "" {
			cfg.Storage = have
		}
	}
	return cfg, nil
}

// requireRoot refuses a command that reads the storage root when the root
// is not there: a mistyped --storage-root must not make an empty root
// appear.
func requireRoot(root string) error {
	_, err := os.Stat(root)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("there is no storage root at %s: give the one the server uses with --storage-root or KG_STORAGE_ROOT", root)
	}
	return err
}

// openOffline opens the root's storage under its lock, as the server
// would, for a command that works on the files. The lock file names this
// process without an address: a command, not a server. The cleanup closes
// the storage and releases the lock.
func openOffline(ctx context.Context, cfg config.Config, log *slog.Logger) (storage, func(), error) {
	b, ok := backendNamed(cfg.Storage)
	if !ok {
		return storage{}, nil, fmt.Errorf("storage %q is not a backend", cfg.Storage)
	}
	return b.inject(ctx, cfg, "", log)
}

// openReadOnly opens the root's storage for a command that only reads it
// (kg export, kg compact --dry-run, kg project list): it creates nothing and
// writes nothing — no .lock, no .backend, no folder, no byte of a data file
// — so the root is left exactly as it was found. It holds a shared lock on
// the root meanwhile when the root has a lock file (rootdir.Share), so no
// server starts under it. A root that holds no memory yet reads as empty.
// The cleanup closes the storage and releases the lock.
func openReadOnly(ctx context.Context, cfg config.Config, log *slog.Logger) (storage, func(), error) {
	if err := requireRoot(cfg.Root); err != nil {
		return storage{}, nil, err
	}
	b, ok := backendNamed(cfg.Storage)
	if !ok || !b.inRoot {
		return storage{}, nil, fmt.Errorf("storage %q is not a backend kept in the root", cfg.Storage)
	}
	have, err := rootBackend(cfg.Root)
	if err != nil {
		return storage{}, nil, err
	}
	if have != "" && have != b.name {
		return storage{}, nil, mismatch(cfg.Root, have, b.name)
	}
	l, err := rootdir.Share(cfg.Root)
	if err != nil {
		return storage{}, nil, err
	}
	release := func() { _ = l.Release() }
	if have == "" {
		m := memory.New()
		return storage{Graphs: m, Sessions: m}, release, nil
	}
	st, closeStorage, err := b.openReadOnly(ctx, cfg.Root, log)
	if err != nil {
		release()
		return storage{}, nil, err
	}
	return st, func() { closeStorage(); release() }, nil
}

// openJSONReadOnly opens the json store of root through readonly.FS.
func openJSONReadOnly(_ context.Context, root string, log *slog.Logger) (storage, func(), error) {
	s, err := jsonfile.Open(root, jsonfile.Options{Logger: log, FS: readonly.FS{FS: jsonfile.OS{}}})
	if err != nil {
		return storage{}, nil, err
	}
	return storage{Graphs: s, Sessions: s}, func() {}, nil
}

// openBoltReadOnly opens <root>/kg.db read-only: nothing is written to
// it, not even the free list at close.
func openBoltReadOnly(ctx context.Context, root string, log *slog.Logger) (storage, func(), error) {
	s, err := bolt.Open(ctx, root, bolt.Options{Logger: log, ReadOnly: true})
	if err != nil {
		return storage{}, nil, err
	}
	return storage{Graphs: s, Sessions: s}, func() {
		if err := s.Close(); err != nil {
			log.Error("closing the bolt store failed", "err", err)
		}
	}, nil
}

// lockOffline takes the root's lock for a command that must have the root
// to itself (`kg migrate`, `kg project mv`): it refuses while a server
// holds the root. The cleanup releases the lock.
func lockOffline(ctx context.Context, cfg config.Config, what string) (func(), error) {
	if c, _, err := apiclient.RootServer(ctx, cfg.Root, cfg.AuthToken); err != nil {
		return nil, err
	} else if c != nil {
		return nil, errServerRuns(c, cfg.Root, what)
	}
	l, err := rootdir.Acquire(cfg.Root, "")
	if err != nil {
		return nil, err
	}
	return func() { _ = l.Release() }, nil
}

// commandLogger is the logger of a command that works on the files: what
// the storage notices (a damaged file, a recovery) goes to stderr, at the
// configured level.
func commandLogger(e env, cfg config.Config) *slog.Logger { return newLogger(e.stderr, cfg) }

// printf writes to the command's stdout.
func printf(c *cobra.Command, format string, args ...any) {
	fmt.Fprintf(c.OutOrStdout(), format, args...)
}

// errServerRuns is the refusal of a command that must not run beside a
// server (`kg migrate`, `kg project mv`).
func errServerRuns(c *apiclient.Client, root, what string) error {
	return &domain.Error{Kind: domain.KindConflict,
		Msg: fmt.Sprintf("a kg server serves %s at %s: stop it first, %s needs the root to itself", root, c.Base(), what)}
}
