package jsonfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var (
	_ ports.GraphRepository   = (*Store)(nil)
	_ ports.SessionRepository = (*Store)(nil)
)

// Options tune a Store. The zero value is the real file system, no logging
// and the system clock.
type Options struct {
	// FS is the file-system layer; nil means the real OS.
	FS FS
	// Logger receives damage reports and recoveries; nil discards them.
	Logger *slog.Logger
	// Now names the .corrupt-<unix time> copies of damaged files; nil
	// means time.Now.
	Now func() time.Time
}

// Store keeps graphs and sessions as JSON files under one root folder, in the
// layout of the replaced server (docs/design/storage.md#root-and-layout).
type Store struct {
	root string
	fs   FS
	log  *slog.Logger
	now  func() time.Time

	// claimMu is the root-wide lock under which a project's folder is
	// looked up and, at its first save, claimed; aliases are applied
	// under it too.
	claimMu sync.Mutex
	mu      sync.Mutex        // guards folders
	folders map[string]string // project path → folder it owns

	gmu    sync.Mutex             // guards graphs
	graphs map[string]*graphState // by graph file path

	sess  sessionsState
	tools toolEventsState
}

// Open returns a store on root, an absolute folder, creating it if needed.
// It does not take the root's .lock; the caller (rootdir) does.
func Open(root string, opt Options) (*Store, error) {
	if !filepath.IsAbs(root) {
		return nil, domain.Invalidf("root", "%q must be an absolute path", root)
	}
	s := &Store{root: filepath.Clean(root), fs: opt.FS, log: opt.Logger, now: opt.Now, folders: map[string]string{},
		graphs: map[string]*graphState{}}
	if s.fs == nil {
		s.fs = OS{}
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if s.now == nil {
		s.now = time.Now
	}
	if _, err := s.fs.Stat(s.root); errors.Is(err, fs.ErrNotExist) {
		if err := s.mkdirs(s.root); err != nil {
			return nil, domain.Unavailable(err, "create storage root %s", s.root)
		}
	} else if err != nil {
		return nil, domain.Unavailable(err, "open storage root %s", s.root)
	}
	// The root may be a symbolic link (~/.knowledge-graph -> ~/Dropbox/kg):
	// the user chose it. It is resolved once, here, because every folder
	// operation below refuses to follow a link in its last element, the
	// root's fsync and listing included (docs/design/storage.md#root-and-layout).
	real, err := s.fs.Resolve(s.root)
	if err != nil {
		return nil, domain.Unavailable(err, "open storage root %s: %v", s.root, err)
	}
	if fi, err := s.fs.Stat(real); err != nil || !fi.IsDir() {
		return nil, domain.Unavailable(fs.ErrInvalid, "storage root %s is not a folder", s.root)
	}
	if real != s.root {
		s.log.Info("storage: the root is a symbolic link; using its target", "root", s.root, "target", real)
		s.root = real
	}
	return s, nil
}

// Root returns the root folder.
func (s *Store) Root() string { return s.root }

// file names one stored file by its folder and stem: <dir>/<stem>.json,
// with <stem>.prev, <stem>.tmp, <stem>.journal and <stem>.corrupt-<unix
// time> beside it.
type file struct {
	dir, stem string
}

func (f file) path() string    { return filepath.Join(f.dir, f.stem+".json") }
func (f file) prev() string    { return filepath.Join(f.dir, f.stem+".prev") }
func (f file) tmp() string     { return filepath.Join(f.dir, f.stem+".tmp") }
func (f file) journal() string { return filepath.Join(f.dir, f.stem+".journal") }

// under checks that p lies inside the root: no input names a file, but a
// folder name read from disk (aliases.json) could try to.
func (s *Store) under(p string) error {
	rel, err := filepath.Rel(s.root, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("path %q is outside the storage root %s", p, s.root)
	}
	return nil
}

// errLink is the cause of a refusal to go through a symbolic link.
var errLink = errors.New("symbolic link inside the storage root")

// safeDir refuses a folder under the root that is reached through a
// symbolic link, or that is not a folder: kg never follows a link out of
// its root. Folders that do not exist yet pass (a save creates them). The
// root itself may be a link: the user chose it.
func (s *Store) safeDir(dir string) error {
	if err := s.under(filepath.Join(dir, "x")); err != nil {
		return domain.Unavailable(err, "%v", err)
	}
	rel, _ := filepath.Rel(s.root, dir)
	if rel == "." {
		return nil
	}
	p := s.root
	for part := range strings.SplitSeq(rel, string(filepath.Separator)) {
		p = filepath.Join(p, part)
		fi, err := s.fs.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return domain.Unavailable(err, "check %s: %v", p, err)
		case fi.Mode()&fs.ModeSymlink != 0:
			return domain.Unavailable(errLink, "%s is a symbolic link; kg does not follow links inside its storage root %s", p, s.root)
		case !fi.IsDir():
			return domain.Unavailable(fs.ErrInvalid, "%s is not a folder", p)
		}
	}
	return nil
}

// noLinks refuses any of paths that is a symbolic link: kg writes only
// files it can replace without following a link out of its root.
func (s *Store) noLinks(paths ...string) error {
	for _, p := range paths {
		if fi, err := s.fs.Stat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return domain.Unavailable(errLink, "%s is a symbolic link; kg does not follow links inside its storage root %s", p, s.root)
		}
	}
	return nil
}

// linkErr explains the error of opening a file that is a symbolic link
// (every open refuses to follow one, FS).
func linkErr(path string, err error) error {
	if errors.Is(err, syscall.ELOOP) {
		return fmt.Errorf("%s is a symbolic link; kg does not follow links inside its storage root: %w", path, errors.Join(errLink, err))
	}
	return err
}

// mkdirs creates dir and any missing parents, then fsyncs each created
// folder and its parents up to the root, so that a file acknowledged in it
// cannot vanish with its folder in a power cut.
func (s *Store) mkdirs(dir string) error {
	var created []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := s.fs.Stat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		created = append(created, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if len(created) == 0 {
		return nil
	}
	for i := len(created) - 1; i >= 0; i-- {
		if err := s.fs.Mkdir(created[i], 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	// Sync from the deepest created folder up to the root (or, when the
	// root itself was created, its parent).
	stop := s.root
	if created[len(created)-1] == s.root || strings.HasPrefix(s.root, created[len(created)-1]) {
		stop = filepath.Dir(created[len(created)-1])
	}
	for d := dir; ; d = filepath.Dir(d) {
		if err := s.fs.SyncDir(d); err != nil {
			return err
		}
		if d == stop || filepath.Dir(d) == d {
			return nil
		}
	}
}

// writeAtomic durably replaces f with what write writes: write
// <stem>.tmp, fsync it, keep the current file as <stem>.prev by a hard
// link, rename the tmp over the file, fsync the folder. A crash at any step
// leaves the old or the new file whole. write streams the content, so that
// a large graph is never held in memory as a whole file.
func (s *Store) writeAtomic(ctx context.Context, f file, write func(io.Writer) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.under(f.path()); err != nil {
		return err
	}
	tmp := f.tmp()
	w, err := s.fs.Create(tmp)
	if err != nil {
		return err
	}
	err = write(w)
	if err == nil {
		err = w.Sync()
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = s.fs.Remove(tmp) // best effort: a stale tmp is overwritten next time
		return err
	}
	// The previous version is kept by a hard link, never a copy: a crash
	// cannot leave a half-written .prev.
	_, err = s.fs.Stat(f.path())
	hadOld := err == nil
	if hadOld {
		if err := s.fs.Remove(f.prev()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			_ = s.fs.Remove(tmp)
			return err
		}
		if err := s.fs.Link(f.path(), f.prev()); err != nil {
			_ = s.fs.Remove(tmp)
			return err
		}
	}
	if err := s.fs.Rename(tmp, f.path()); err != nil {
		_ = s.fs.Remove(tmp)
		return err
	}
	if err := s.fs.SyncDir(f.dir); err != nil {
		// The new file is in place but its name is not durable, so the
		// save is refused, and what it wrote must not stay visible: a
		// refused write found after a restart is a ghost
		// (docs/design/storage.md#failed-saves).
		s.undoRename(f, hadOld)
		return err
	}
	return nil
}

// undoRename puts back what writeAtomic replaced when the folder's fsync
// after its rename failed: the old file from its .prev link (kept again as
// the .prev), or no file when there was none. If that fails, the refused
// content stays visible until the next save replaces it, and an error says
// so. (A power cut before the folder is next synced may still bring either
// name back: nothing was acknowledged, so both are allowed.)
func (s *Store) undoRename(f file, hadOld bool) {
	var err error
	if hadOld {
		err = s.fs.Rename(f.prev(), f.path())
	} else {
		err = s.fs.Remove(f.path())
	}
	if err != nil {
		s.log.Error("storage: a refused save could not be undone; its content stays in the file until the next save",
			"file", f.path(), "err", err)
		return
	}
	if hadOld {
		if err := s.fs.Link(f.path(), f.prev()); err != nil {
			s.log.Warn("storage: the previous version could not be linked again", "file", f.prev(), "err", err)
		}
	}
	_ = s.fs.SyncDir(f.dir) // best effort: it has just failed once
}

// errMissing reports that neither a file nor its .prev exists.
var errMissing = errors.New("missing")

// errDamaged marks the error of a file that neither it nor its .prev loads
// because of what they hold (not because they could not be read).
var errDamaged = errors.New("damaged")

// load reads f and decodes it with decode, recovering from damage: a
// missing file falls back to its .prev; a file that does not decode falls
// back to its .prev, and is kept as <stem>.corrupt-<unix time>. It returns
// the size of the file it decoded, or -1 when that was the .prev;
// errMissing when neither exists, and an unavailable error naming the file
// when nothing loads.
func (s *Store) load(ctx context.Context, f file, decode func([]byte) error) (int64, error) {
	if err := ctx.Err(); err != nil {
		return -1, domain.Unavailable(err, "read %s", f.path())
	}
	if err := s.safeDir(f.dir); err != nil {
		return -1, err
	}
	b, err := s.fs.ReadFile(f.path())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		pb, perr := s.fs.ReadFile(f.prev())
		switch {
		case errors.Is(perr, fs.ErrNotExist):
			return -1, errMissing
		case perr != nil:
			perr = linkErr(f.prev(), perr)
			return -1, domain.Unavailable(perr, "%s is missing and %s cannot be read: %v", f.path(), f.prev(), perr)
		}
		if perr := decode(pb); perr != nil {
			s.log.Error("storage: file is missing and its previous version does not load", "file", f.path(), "prev_err", perr)
			return -1, domain.Unavailable(errors.Join(errDamaged, perr), "%s is missing and %s does not load: %v", f.path(), f.prev(), perr)
		}
		s.log.Warn("storage: file missing, loaded its previous version", "file", f.path(), "prev", f.prev())
		return -1, nil
	case err != nil:
		err = linkErr(f.path(), err)
		return -1, domain.Unavailable(err, "read %s: %v", f.path(), err)
	}
	derr := decode(b)
	if derr == nil {
		return int64(len(b)), nil
	}
	pb, perr := s.fs.ReadFile(f.prev())
	if perr == nil {
		perr = decode(pb)
	}
	if perr != nil {
		s.log.Error("storage: file is damaged and has no loadable previous version", "file", f.path(), "err", derr, "prev_err", perr)
		return -1, domain.Unavailable(errors.Join(errDamaged, derr), "%s is damaged (%v) and %s does not load", f.path(), derr, f.prev())
	}
	kept, kerr := s.keepAside(f.path(), true)
	s.log.Error("storage: file is damaged; loaded its previous version", "file", f.path(), "err", derr, "kept_as", kept, "keep_err", kerr)
	if kerr != nil {
		// The damaged file still sits where the next save would make it
		// the .prev, replacing the good one: refuse rather than risk that.
		return -1, domain.Unavailable(kerr, "%s is damaged (%v) and could not be set aside", f.path(), derr)
	}
	return -1, nil
}

// keepAside keeps a damaged file as <name>.corrupt-<unix time> (for
// <stem>.json: <stem>.corrupt-<unix time>), never overwriting an earlier
// one, by a hard link; with remove, the damaged name goes. It returns the
// name it kept the file under.
func (s *Store) keepAside(path string, remove bool) (string, error) {
	stem := strings.TrimSuffix(path, ".json")
	base := stem + ".corrupt-" + strconv.FormatInt(s.now().Unix(), 10)
	name := base
	for i := 2; ; i++ {
		err := s.fs.Link(path, name)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || i > 100 {
			return "", err
		}
		name = base + "-" + strconv.Itoa(i)
	}
	if remove {
		if err := s.fs.Remove(path); err != nil {
			return name, err
		}
	}
	return name, s.fs.SyncDir(filepath.Dir(path))
}

// writeBytes is a writeAtomic content of bytes already encoded.
func writeBytes(data []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}
