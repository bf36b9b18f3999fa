// Package store opens the storage backends of kg's commands: the registry
// of backends (which --storage names and a root's .backend marker records),
// the root's lock a backend that lives in the root is opened under, and the
// opening of a root for a command that only reads it
// (docs/design/storage.md).
package store

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

// Backend is one storage backend kg can run on. Backends() is the one place
// a backend is named: the --storage setting, the check of the root's
// .backend marker, `kg migrate` and `kg doctor` all read it from there.
//
// Adding a backend means an adapter package under adapters/storage/, its
// Open function here, its injector in cmd/kg's wire.go (which takes the
// root's lock first when the backend lives in the root), one line in
// Backends() and its injector beside its name in cmd/kg's backends().
type Backend struct {
	// Name is the value of --storage and KG_STORAGE, and what the root's
	// .backend marker records.
	Name string
	// InRoot says the backend keeps its data in files under the storage
	// root: the root's lock guards them, .backend records the backend, and
	// `kg migrate` can copy between such backends. Its provider set takes
	// the lock (LockRoot); a backend that lives elsewhere takes none.
	InRoot bool
	// Holds reports whether a root without a .backend marker holds this
	// Backend's data; nil for never. A root of the replaced server has a
	// user.json (or sessions.json, or projects/) and no marker: it holds
	// json.
	Holds func(root string) bool
	// Open opens the backend on a root this process holds the lock of,
	// without checking the marker: `kg migrate` opens two backends under
	// one lock. The cleanup closes it.
	Open func(ctx context.Context, root LockedRoot, log *slog.Logger) (Storage, func(), error)
	// OpenSource opens the backend as the source of `kg migrate --to`
	// another backend: bolt read-only (its free list is not needed, so a
	// file whose free list is damaged can be salvaged), json as a start
	// would (a damaged file with a good .prev is set aside and the .prev read).
	OpenSource func(ctx context.Context, root LockedRoot, log *slog.Logger) (Storage, func(), error)
	// OpenReadOnly opens the backend of a root for a command that only
	// reads: it writes nothing to the root, and takes no lock (the caller
	// Holds a shared one).
	OpenReadOnly func(ctx context.Context, root string, log *slog.Logger) (Storage, func(), error)
}

// Backends lists the storage backends; the first is the default.
func Backends() []Backend {
	return []Backend{
		{Name: "json", InRoot: true, Holds: hasFile("user.json", "user.prev", "user.journal", "sessions.json", "projects"), Open: OpenJSON, OpenSource: OpenJSON, OpenReadOnly: openJSONReadOnly},
		{Name: "bolt", InRoot: true, Holds: hasFile(bolt.FileName), Open: OpenBolt, OpenSource: func(ctx context.Context, root LockedRoot, log *slog.Logger) (Storage, func(), error) {
			return openBoltReadOnly(ctx, string(root), log)
		}, OpenReadOnly: openBoltReadOnly},
		// Team mode: a database several servers share, outside any root
		// (docs/design/team.md); KG_DATABASE_URL names it.
		{Name: "postgres", Open: notInRoot("postgres")},
	}
}

// Named returns the backend called name.
func Named(name string) (Backend, bool) {
	for _, b := range Backends() {
		if b.Name == name {
			return b, true
		}
	}
	return Backend{}, false
}

// notInRoot is the open of a backend that keeps nothing in the root: the
// commands that copy or change a root's files never reach it.
func notInRoot(name string) func(context.Context, LockedRoot, *slog.Logger) (Storage, func(), error) {
	return func(context.Context, LockedRoot, *slog.Logger) (Storage, func(), error) {
		return Storage{}, nil, fmt.Errorf("the %s backend keeps nothing in a storage root", name)
	}
}

// RootNames names the backends a root's marker may name: "json or
// bolt".
func RootNames() string {
	var ns []string
	for _, b := range Backends() {
		if b.InRoot {
			ns = append(ns, b.Name)
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

// RootBackend is the backend a root holds: the one its marker names, else
// the first whose files it holds, else "" for a root that holds nothing
// yet.
func RootBackend(root string) (string, error) {
	name, err := rootdir.Backend(root)
	if err != nil {
		return "", err
	}
	if name != "" {
		if b, ok := Named(name); !ok || !b.InRoot {
			return "", domain.Unavailable(nil, "%s names an unknown backend %q (want %s)",
				filepath.Join(root, rootdir.BackendName), name, RootNames())
		}
		return name, nil
	}
	for _, b := range Backends() {
		if b.InRoot && b.Holds != nil && b.Holds(root) {
			return b.Name, nil
		}
	}
	return "", nil
}

// Mismatch is the refusal of a root that holds the backend have when want
// was asked for.
func Mismatch(root, have, want string) error {
	return &domain.Error{Kind: domain.KindConflict, Field: "storage",
		Msg: "storage root " + root + " holds the " + have + " backend, not " + want +
			": run `kg migrate --to " + want + "` to convert it, or start with --storage " + have}
}

// CheckMarker makes sure root holds the backend want: a root that holds
// another one is refused with the way out; a root that records none gets
// want written, durably, as its marker.
func CheckMarker(root, want string) error {
	have, err := RootBackend(root)
	if err != nil {
		return err
	}
	if have != "" && have != want {
		return Mismatch(root, have, want)
	}
	if marked, err := rootdir.Backend(root); err != nil || marked != "" {
		return err
	}
	return rootdir.WriteBackend(root, want)
}
