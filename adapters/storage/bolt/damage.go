package bolt

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"syscall"
	"time"

	berrors "go.etcd.io/bbolt/errors"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// How kg.db is checked and what a damaged one does (docs/decisions/0007):
//
//   - A file kg cannot open at all — empty, shorter than its own meta page
//     says, both meta pages unreadable, a free list bbolt cannot read, pages
//     in use and free at once — stops the start with one line that says
//     what to do (Open returns the error).
//   - A damaged data page stops only what lies under it: the graph (or the
//     sessions) whose pages it holds. Open reads every page once to find
//     them (Damage lists them), every later read and write turns bbolt's
//     panic on such a page into an unavailable error, and the rest of the
//     file keeps being served.

// restoreHint ends the message about a file nothing can be read from
// (neither meta page, nor the root bucket): only a backup helps.
const restoreHint = "stop kg, keep a copy of kg.db, and restore it from a backup (docs/operations.md#damaged-kgdb)"

// repairHint ends every other message about a damaged file.
const repairHint = "stop kg and run `kg migrate --to json`, which copies every graph it can still read into json files, names what it cannot, " +
	"and keeps kg.db as it is; or restore it from a backup (docs/operations.md#damaged-kgdb)"

// pageError is a panic raised while bbolt read the file: its assertion on a
// page that is not what its parent says, or a fault reading the memory map.
// Both mean the file is damaged.
type pageError struct{ val any }

func (e *pageError) Error() string {
	return fmt.Sprintf("bbolt failed reading a damaged page: %v", e.val)
}

// Unwrap marks the error as damage for the app (ports.ErrDamaged).
func (e *pageError) Unwrap() error { return ports.ErrDamaged }

// recovered runs fn and returns any panic it raises as a *pageError, so no
// damaged page can take the process down. Faults on the memory map (a page
// the file no longer holds) become panics too, for this goroutine only.
func recovered(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = &pageError{val: r}
		}
	}()
	return fn()
}

// damagedf is the error of a record that does not decode: damage, not a
// failing disk.
func damagedf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ports.ErrDamaged, fmt.Sprintf(format, args...))
}

// hintIfDamaged is the repair hint, as a clause to put before the cause,
// when err is damage; else nothing.
func hintIfDamaged(err error) string {
	if errors.Is(err, ports.ErrDamaged) {
		return " (" + repairHint + ")"
	}
	return ""
}

// unavailable is domain.Unavailable with the cause's text at the end of the
// message, so that what a person reads says why ("no space left on
// device"), not only what failed.
func unavailable(err error, format string, args ...any) *domain.Error {
	e := domain.Unavailable(err, format, args...)
	e.Msg += ": " + err.Error()
	return e
}

// noFollow opens the file without following a symbolic link, so a link
// planted between the check in checkFile and the open still cannot lead
// out of the storage root.
func noFollow(name string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag|syscall.O_NOFOLLOW, perm)
}

// checkFile refuses a kg.db kg must not open: a symbolic link (it could
// lead out of the root), anything but a regular file, and an empty file.
// An empty kg.db is what a truncation leaves, not a new store; bbolt would
// silently start it afresh. A missing file is a new store.
func checkFile(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return unavailable(err, "inspect %s", path)
	case fi.Mode()&os.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		return domain.Unavailable(nil, "%s is a symbolic link (to %s); kg opens only a regular file inside its storage root: "+
			"move the file itself there, or point --storage-root at the folder that holds it", path, target)
	case !fi.Mode().IsRegular():
		return domain.Unavailable(nil, "%s is not a regular file (%s)", path, fi.Mode().Type())
	case fi.Size() == 0:
		return domain.Unavailable(ports.ErrDamaged, "%s is empty (0 bytes): a truncated file, not a new store, so kg does not start on it; "+
			"restore kg.db from a backup, or, if this root never held data (its first start was interrupted), delete kg.db and start again", path)
	}
	return nil
}

// openError turns what bbolt.Open returned into the one line kg serve
// prints.
func openError(path string, timeout time.Duration, err error) error {
	var pe *pageError
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return unavailable(err, "%s is locked by another process (waited %s): is another kg server running on this root?", path, timeout)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum), errors.Is(err, berrors.ErrVersionMismatch):
		return unavailable(fmt.Errorf("%w: %w", ports.ErrDamaged, err),
			"%s cannot be opened: both of its meta pages are damaged, or it is not a bbolt file; %s", path, restoreHint)
	case errors.As(err, &pe):
		return domain.Unavailable(err, "%s cannot be opened: %v; %s", path, err, repairHint)
	case errors.Is(err, syscall.ELOOP):
		return unavailable(err, "%s became a symbolic link while kg opened it; kg does not follow links out of its storage root", path)
	}
	return unavailable(err, "open %s", path)
}
