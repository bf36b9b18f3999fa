package main

// Commands that work on the storage root's files, when no server holds it.

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/kg-memory/kg/adapters/rootdir"
	"github.com/kg-memory/kg/cmd/kg/internal/apiclient"
	"github.com/kg-memory/kg/cmd/kg/internal/config"
	"github.com/kg-memory/kg/cmd/kg/internal/store"
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
		if have, err := store.RootBackend(cfg.Root); err == nil && have != "" {
			cfg.Storage = have
		}
	}
	return cfg, nil
}

// openOffline opens the root's storage under its lock, as the server
// would, for a command that works on the files. The lock file names this
// process without an address: a command, not a server. The cleanup closes
// the storage and releases the lock.
func openOffline(ctx context.Context, cfg config.Config, log *slog.Logger) (store.Storage, func(), error) {
	b, ok := backendNamed(cfg.Storage)
	if !ok {
		return store.Storage{}, nil, fmt.Errorf("storage %q is not a backend", cfg.Storage)
	}
	return b.inject(ctx, cfg, "", log)
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
