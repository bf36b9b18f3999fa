package rootdir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kg-memory/kg/domain"
)

// BackendName is the marker file's name under the root.
const BackendName = ".backend"

// The backends a root can hold.
const (
	JSON = "json"
	Bolt = "bolt"
)

// Backend returns the backend recorded for root: the content of .backend,
// else "json" when the root holds a user.json (a root of the replaced
// server), else "" for a root that holds nothing yet.
func Backend(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, BackendName))
	if err == nil {
		name := strings.TrimSpace(string(b))
		if name != JSON && name != Bolt {
			return "", domain.Unavailable(nil, "%s names an unknown backend %q (want json or bolt)", filepath.Join(root, BackendName), name)
		}
		return name, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", domain.Unavailable(err, "read %s: %v", filepath.Join(root, BackendName), err)
	}
	if _, err := os.Stat(filepath.Join(root, "user.json")); err == nil {
		return JSON, nil
	}
	return "", nil
}

// Check makes sure root holds the backend want: a root that records
// another one is refused with an error that says how to convert it; a root
// that records none gets want written, durably, as its marker.
func Check(root, want string) error {
	if want != JSON && want != Bolt {
		return domain.Invalidf("storage", "%q is not one of json, bolt", want)
	}
	have, err := Backend(root)
	if err != nil {
		return err
	}
	if have != "" && have != want {
		return &domain.Error{Kind: domain.KindConflict, Field: "storage",
			Msg: "storage root " + root + " holds the " + have + " backend, not " + want +
				": run `kg migrate --to " + want + "` to convert it, or start with --storage " + have}
	}
	if _, err := os.Stat(filepath.Join(root, BackendName)); err == nil {
		return nil
	}
	return WriteBackend(root, want)
}

// WriteBackend records name as root's backend, atomically (tmp, fsync,
// rename, fsync the folder). `kg migrate` calls it after a conversion.
func WriteBackend(root, name string) error {
	path := filepath.Join(root, BackendName)
	tmp := path + ".tmp"
	err := func() error {
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return err
		}
		_, err = f.WriteString(name + "\n")
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if err := os.Rename(tmp, path); err != nil {
			return err
		}
		d, err := os.Open(root)
		if err != nil {
			return err
		}
		defer d.Close()
		return d.Sync()
	}()
	if err != nil {
		_ = os.Remove(tmp)
		return domain.Unavailable(err, "write %s: %v", path, err)
	}
	return nil
}
