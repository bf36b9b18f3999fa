package bolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	bbolt "go.etcd.io/bbolt"
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

// repairHint ends every message about a damaged file.
const repairHint = "stop kg, keep a copy of kg.db, and restore it from a backup (docs/operations.md#damaged-kgdb)"

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

// checkLength opens the file read-only, which reads only its meta pages,
// and refuses it when it is shorter than the pages its meta page counts:
// a truncated file, whose missing pages bbolt would read as garbage, or
// fault on, at the first transaction that reaches them.
//
// A file whose newest meta page names no free list (the last process to
// write it did not close it: kill -9, a power cut; ADR 0040) is walked here
// too, read-only, area by area as inspect does: bbolt is about to rebuild
// the free list by walking every page in a goroutine of its own, where a
// damaged page would crash the process, and would count the pages under a
// damaged one as free, to be overwritten. Such a file with a damaged page is
// refused.
func checkLength(path string, timeout time.Duration, log *slog.Logger) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return unavailable(err, "inspect %s", path)
	}
	var db *bbolt.DB
	err = recovered(func() error {
		var err error
		db, err = bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: timeout, OpenFile: noFollow})
		return err
	})
	if err != nil {
		return openError(path, timeout, err)
	}
	defer db.Close()
	var want int64
	err = recovered(func() error {
		return db.View(func(tx *bbolt.Tx) error {
			want = tx.Size()
			return nil
		})
	})
	if err != nil {
		return openError(path, timeout, err)
	}
	if fi.Size() < want {
		return domain.Unavailable(ports.ErrDamaged, "%s is truncated: it holds %d bytes but its pages reach %d bytes; kg does not start on it; %s",
			path, fi.Size(), want, repairHint)
	}
	synced, err := freelistSynced(path, db.Info().PageSize)
	if err != nil || synced {
		return err
	}
	ro := &Store{db: db, path: path, log: log}
	if found, unchecked := ro.walkAll(); len(found) > 0 || unchecked {
		return domain.Unavailable(ports.ErrDamaged, "%s cannot be opened: it was not closed cleanly, so bbolt must rebuild its free list from its pages, and some of them are damaged; %s",
			path, repairHint)
	}
	return nil
}

// freelistSynced reports whether the newest valid meta page of the file at
// path names a free-list page, as every close by kg leaves it.
func freelistSynced(path string, pageSize int) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, unavailable(err, "inspect %s", path)
	}
	defer f.Close()
	buf := make([]byte, 2*pageSize)
	if _, err := f.ReadAt(buf, 0); err != nil {
		return false, unavailable(err, "inspect %s", path)
	}
	// A meta page: the 16-byte page header, then magic, version, page size
	// and flags (4 bytes each), the root bucket (16), the free list, the
	// high-water mark and the txid (8 each), and an FNV-64a checksum of all
	// that. bbolt reads the valid one with the higher txid.
	const noFreelist = ^uint64(0)
	var txid uint64
	synced, valid := false, false
	for _, off := range []int{0, pageSize} {
		m := buf[off+16 : off+16+64]
		h := fnv.New64a()
		h.Write(m[:56])
		if binary.LittleEndian.Uint32(m) != 0xED0CDAED || h.Sum64() != binary.LittleEndian.Uint64(m[56:]) {
			continue
		}
		if tx := binary.LittleEndian.Uint64(m[48:]); !valid || tx > txid {
			txid, valid = tx, true
			synced = binary.LittleEndian.Uint64(m[32:]) != noFreelist
		}
	}
	return synced, nil
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
			"%s cannot be opened: both of its meta pages are damaged, or it is not a bbolt file; %s", path, repairHint)
	case errors.As(err, &pe):
		return domain.Unavailable(err, "%s cannot be opened: %v; %s", path, err, repairHint)
	case errors.Is(err, syscall.ELOOP):
		return unavailable(err, "%s became a symbolic link while kg opened it; kg does not follow links out of its storage root", path)
	}
	return unavailable(err, "open %s", path)
}

// inspect reads every page of the file once, area by area (the user
// graph, each project graph, the sessions), so that damage is found at
// start and named, and one damaged page does not hide the others. Only
// when every page reads does it run bbolt's consistency check: the check
// walks the pages in a goroutine of its own, where a fault on a damaged
// page could not be recovered. It returns an error when the file must not
// be written (pages in use and free at once) and records the rest for
// Damage.
func (s *Store) inspect() error {
	found, unchecked := s.walkAll()
	s.damage = found
	if len(found) > 0 || unchecked {
		return nil
	}

	var problems []string
	err := s.db.View(func(tx *bbolt.Tx) error {
		for err := range tx.Check() {
			problems = append(problems, err.Error())
		}
		return nil
	})
	if err != nil {
		return unavailable(err, "check %s", s.path)
	}
	var leaks, unsafe, other []string
	for _, p := range problems {
		switch {
		case strings.Contains(p, "unreachable unfreed"):
			leaks = append(leaks, p)
		case strings.Contains(p, "already freed"), strings.Contains(p, "reachable freed"), strings.Contains(p, "multiple references"):
			unsafe = append(unsafe, p)
		default:
			other = append(other, p)
		}
	}
	if len(leaks) > 0 {
		// Pages neither used nor free only waste space.
		s.log.Warn("bolt: pages neither in use nor free (space lost, no data)", "file", s.path, "pages", len(leaks), "first", leaks[0])
	}
	if len(unsafe) > 0 {
		return domain.Unavailable(ports.ErrDamaged, "%s is inconsistent: bbolt's check found pages both in use and free (%d problems, first: %s); "+
			"a write could overwrite live data, so kg does not start on it; %s", s.path, len(unsafe), unsafe[0], repairHint)
	}
	if len(other) > 0 {
		s.damage = []string{fmt.Sprintf("%s failed bbolt's consistency check (%d problems, first: %s); %s", s.path, len(other), other[0], repairHint)}
		s.log.Error("bolt: consistency check failed", "file", s.path, "problems", len(other), "first", other[0])
	}
	return nil
}

// walk reads every key of b and of the buckets inside it, which makes
// bbolt read, and check, every page of b's tree.
func walk(b *bbolt.Bucket) error {
	if b == nil {
		return nil
	}
	return b.ForEach(func(k, v []byte) error {
		if v == nil {
			return walk(b.Bucket(k))
		}
		return nil
	})
}

// Damage returns the damage Open found, one line each, naming the file,
// what is damaged and what to do (ports.DamageReporter).
func (s *Store) Damage() []string {
	return append([]string{}, s.damage...)
}

// walkAll reads every page of the file once, area by area, and returns a
// line for each area holding a damaged page, and whether a page outside the
// graphs (the sessions, what was set aside) failed to read, which keeps
// bbolt's consistency check from running.
func (s *Store) walkAll() (found []string, unchecked bool) {
	add := func(what string, err error) {
		found = append(found, fmt.Sprintf("%s in %s is damaged (%v): it is unavailable until kg.db is repaired; %s", what, s.path, err, repairHint))
		s.log.Error("bolt: damaged pages found at start", "file", s.path, "what", what, "err", err)
	}
	err := recovered(func() error {
		return s.db.View(func(tx *bbolt.Tx) error {
			if err := recovered(func() error { return walk(tx.Bucket(bucketUser)) }); err != nil {
				add("the user graph", err)
			}
			projects := tx.Bucket(bucketProjects)
			err := recovered(func() error {
				if projects == nil { // a new file
					return nil
				}
				return projects.ForEachBucket(func(k []byte) error {
					if err := recovered(func() error { return walk(projects.Bucket(k)) }); err != nil {
						add(fmt.Sprintf("the project graph %s", k), err)
					}
					return nil
				})
			})
			if err != nil {
				add("the list of project graphs", err)
			}
			// Damaged sessions are set aside by LoadSessions, and what
			// was set aside stays as it was: neither is reported, but
			// either keeps the check below from running.
			if err := recovered(func() error { return walk(tx.Bucket(bucketSessions)) }); err != nil {
				unchecked = true
				s.log.Error("bolt: the sessions' pages are damaged; they will be set aside", "file", s.path, "err", err)
			}
			if err := recovered(func() error { return walk(tx.Bucket(bucketQuarantine)) }); err != nil {
				unchecked = true
				s.log.Info("bolt: data set aside earlier is damaged; bbolt's consistency check is skipped", "file", s.path, "err", err)
			}
			return nil
		})
	})
	if err != nil {
		add("the file", err)
	}
	return found, unchecked
}
