package rootdir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/kg-memory/kg/domain"
)

// BackendName is the marker file's name under the root.
const BackendName = ".backend"

// Backend returns the backend recorded in root's marker, "" when the root
// has none. Which names exist, and what a root without a marker holds, is
// the caller's to say: rootdir knows no backend.
func Backend(root string) (string, error) {
	path := filepath.Join(root, BackendName)
	b, err := readNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if errors.Is(err, syscall.ELOOP) {
		return "", notALink(path)
	}
	if err != nil {
		return "", domain.Unavailable(err, "read %s: %v", path, err)
	}
	name := strings.TrimSpace(string(b))
	if name == "" {
		return "", domain.Unavailable(nil, "%s is empty; write the backend the root holds into it (json or bolt)", path)
	}
	return name, nil
}

// WriteBackend records name as root's backend, atomically (tmp, fsync,
// rename, fsync the folder). The server calls it at the first start on a
// root; `kg migrate` after a conversion.
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
