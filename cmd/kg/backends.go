package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/kg-memory/kg/adapters/rootdir"
	"github.com/kg-memory/kg/adapters/storage/bolt"
	"github.com/kg-memory/kg/cmd/kg/internal/config"
	"github.com/kg-memory/kg/domain"
)

// backend is one storage backend kg can run on. backends() is the one place
// a backend is named: the --storage setting, the check of the root's
// .backend marker, `kg migrate` and `kg doctor` all read it from there.
//
// Adding a backend means an adapter package under adapters/storage/, a
// provider set and its injector in wire.go (the set takes the root's lock
// when the backend lives in the root), and one line in backends().
type backend struct {
	// name is the value of --storage and KG_STORAGE, and what the root's
	// .backend marker records.
	name string
	// inRoot says the backend keeps its data in files under the storage
	// root: the root's lock guards them, .backend records the backend, and
	// `kg migrate` can copy between such backends. Its provider set takes
	// the lock (lockRoot); a backend that lives elsewhere takes none.
	inRoot bool
	// holds reports whether a root without a .backend marker holds this
	// backend's data; nil for never. A root of the replaced server has a
	// user.json (or sessions.json, or projects/) and no marker: it holds
	// json.
	holds func(root string) bool
	// open opens the backend on a root this process holds the lock of,
	// without checking the marker: `kg migrate` opens two backends under
	// one lock. The cleanup closes it.
	open func(ctx context.Context, root lockedRoot, log *slog.Logger) (storage, func(), error)
	// openSource opens the backend as the source of `kg migrate --to`
	// another backend: bolt read-only (its free list is not needed, so a
	// file whose free list is damaged can be salvaged), json as a start
	// would (a damaged file with a good .prev is set aside and the .prev read).
	openSource func(ctx context.Context, root lockedRoot, log *slog.Logger) (storage, func(), error)
	// openReadOnly opens the backend of a root for a command that only
	// reads: it writes nothing to the root, and takes no lock (the caller
	// holds a shared one).
	openReadOnly func(ctx context.Context, root string, log *slog.Logger) (storage, func(), error)
	// inject opens the backend as `kg serve` does: for an inRoot backend it
	// takes the root's lock and checks the marker first (wire_gen.go).
	inject func(ctx context.Context, cfg config.Config, addr lockAddr, log *slog.Logger) (storage, func(), error)
}

// backends lists the storage backends; the first is the default.
func backends() []backend {
	return []backend{
		{name: "json", inRoot: true, holds: hasFile("user.json", "user.prev", "user.journal", "sessions.json", "projects"), open: openJSON, openSource: openJSON, openReadOnly: openJSONReadOnly, inject: injectJSON},
		{name: "bolt", inRoot: true, holds: hasFile(bolt.FileName), open: openBolt, openSource: func(ctx context.Context, root lockedRoot, log *slog.Logger) (storage, func(), error) {
			return openBoltReadOnly(ctx, string(root), log)
		}, openReadOnly: openBoltReadOnly, inject: injectBolt},
		// Team mode: a database several servers share, outside any root
		// (docs/design/team.md); KG_DATABASE_URL names it.
		{name: "postgres", open: notInRoot("postgres"), inject: injectPostgres},
	}
}

// backendNamed returns the backend called name.
func backendNamed(name string) (backend, bool) {
	for _, b := range backends() {
		if b.name == name {
			return b, true
		}
	}
	return backend{}, false
}

// backendNames is the list of names for messages: "json or bolt".
func backendNames() string {
	var ns []string
	for _, b := range backends() {
		ns = append(ns, b.name)
	}
	return config.OrList(ns)
}

// notInRoot is the open of a backend that keeps nothing in the root: the
// commands that copy or change a root's files never reach it.
func notInRoot(name string) func(context.Context, lockedRoot, *slog.Logger) (storage, func(), error) {
	return func(context.Context, lockedRoot, *slog.Logger) (storage, func(), error) {
		return storage{}, nil, fmt.Errorf("the %s backend keeps nothing in a storage root", name)
	}
}

// rootBackendNames names the backends a root's marker may name: "json or
// bolt".
func rootBackendNames() string {
	var ns []string
	for _, b := range backends() {
		if b.inRoot {
			ns = append(ns, b.name)
		}
	}
	return config.OrList(ns)
}

// hasFile reports whether a root holds any of the files (or folders)
// named.
func hasFile(names ...string) func(root string) bool {
	return func(root string) bool {
		for _, name := range names {
			if _, err := os.Stat(filepath.Join(root, name)); !errors.Is(err, fs.ErrNotExist) {
				return true
			}
		}
		return false
	}
}

// rootBackend is the backend a root holds: the one its marker names, else
// the first whose files it holds, else "" for a root that holds nothing
// yet.
func rootBackend(root string) (string, error) {
	name, err := rootdir.Backend(root)
	if err != nil {
		return "", err
	}
	if name != "" {
		if b, ok := backendNamed(name); !ok || !b.inRoot {
			return "", domain.Unavailable(nil, "%s names an unknown backend %q (want %s)",
				filepath.Join(root, rootdir.BackendName), name, rootBackendNames())
		}
		return name, nil
	}
	for _, b := range backends() {
		if b.inRoot && b.holds != nil && b.holds(root) {
			return b.name, nil
		}
	}
	return "", nil
}

// mismatch is the refusal of a root that holds the backend have when want
// was asked for.
func mismatch(root, have, want string) error {
	return &domain.Error{Kind: domain.KindConflict, Field: "storage",
		Msg: "storage root " + root + " holds the " + have + " backend, not " + want +
			": run `kg migrate --to " + want + "` to convert it, or start with --storage " + have}
}

// checkMarker makes sure root holds the backend want: a root that holds
// another one is refused with the way out; a root that records none gets
// want written, durably, as its marker.
func checkMarker(root, want string) error {
	have, err := rootBackend(root)
	if err != nil {
		return err
	}
	if have != "" && have != want {
		return mismatch(root, have, want)
	}
	if marked, err := rootdir.Backend(root); err != nil || marked != "" {
		return err
	}
	return rootdir.WriteBackend(root, want)
}
