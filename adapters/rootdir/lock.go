package rootdir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kg-memory/kg/domain"
)

// LockName is the lock file's name under the root.
const LockName = ".lock"

// Lock is the held exclusive lock on a root.
type Lock struct {
	f *os.File
}

// Holder describes the process that holds a root's lock, as it wrote
// itself into the lock file.
type Holder struct {
	PID  int
	Addr string
}

// Acquire takes the exclusive lock on <root>/.lock without waiting and
// writes this process's pid and listen address into it; a command that
// serves nothing gives an empty address. If another process
// holds it, Acquire fails at once with an error of kind unavailable naming
// the holder's pid and address; a held lock whose file names no holder is
// one being let go, and Acquire waits up to releasedLockWait for it.
func Acquire(root, addr string) (*Lock, error) {
	path := filepath.Join(root, LockName)
	// No O_TRUNC: until the lock is ours the content is the holder's. No
	// link followed: this process's pid and address are written into it,
	// which a link planted in the root would carry outside (docs/security.md).
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		return nil, notALink(path)
	}
	if err != nil {
		return nil, domain.Unavailable(err, "cannot open %s, the storage root's lock: %v; the root must be a folder kg can write to",
			path, cause(err))
	}
	if err := flockReleased(f, path); err != nil {
		h := readHolder(path)
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, domain.Unavailable(err, "%s", held(path, h))
		}
		return nil, domain.Unavailable(err, "lock %s: %v", path, err)
	}
	content := strconv.Itoa(os.Getpid()) + " " + addr + "\n"
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(content), 0)
		if err != nil {
			_ = f.Close()
			return nil, domain.Unavailable(err, "cannot write %s, the storage root's lock: %v", path, cause(err))
		}
	}
	return &Lock{f: f}, nil
}

// releasedLockWait bounds how long Acquire waits for a lock whose file names
// no holder. Release empties the file before it lets the lock go, so a held
// lock with an empty file is one being let go: most often by a process
// that released it a moment ago while a child it was starting still had a
// copy of the descriptor (between fork and exec, before close-on-exec
// closes it), which keeps the flock until the child execs. A lock whose
// file names a holder is refused at once.
const releasedLockWait = time.Second

// flockReleased takes the exclusive flock on f without blocking, retrying
// for up to releasedLockWait while the lock file at path names no holder.
func flockReleased(f *os.File, path string) error {
	deadline := time.Now().Add(releasedLockWait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EWOULDBLOCK) || readHolder(path).PID != 0 || time.Now().After(deadline) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Share takes a shared lock on <root>/.lock for a command that only reads
// the root, without creating or writing anything: while it holds it, no
// server can take the root (Acquire fails at once), and it is refused
// while a server or a command that writes holds the root. A root without a
// lock file has had no server yet: Share returns nil, nil, and the reader
// goes on without a lock. Release gives a shared lock up too.
func Share(root string) (*Lock, error) {
	path := filepath.Join(root, LockName)
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, syscall.ELOOP):
		return nil, notALink(path)
	case err != nil:
		return nil, domain.Unavailable(err, "cannot open %s, the storage root's lock: %v", path, cause(err))
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		h := readHolder(path)
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, domain.Unavailable(err, "%s", held(path, h))
		}
		return nil, domain.Unavailable(err, "lock %s: %v", path, err)
	}
	return &Lock{f: f}, nil
}

// cause is what went wrong with a file, without the operation and path a
// *fs.PathError repeats: the messages above name the file themselves.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// held says who holds the lock at path, as its holder wrote itself: a
// server with its address, or a command that serves nothing (empty
// address). A holder that has not written itself yet is unknown.
func held(path string, h Holder) string {
	switch {
	case h.PID > 0 && !h.Running():
		// The file still names its last holder, who is gone: the lock is
		// shared by commands that only read (Share), which write nothing.
		return fmt.Sprintf("a kg command that reads the root holds %s; wait for it to finish, or use another storage root", path)
	case h.PID > 0 && h.Addr != "":
		return fmt.Sprintf("another kg server holds %s (pid %d, listening on %s); stop it or use another storage root", path, h.PID, h.Addr)
	case h.PID > 0:
		return fmt.Sprintf("a kg command holds %s (pid %d) while it works on the root; wait for it to finish, or use another storage root", path, h.PID)
	}
	return fmt.Sprintf("another kg process holds %s; stop it or use another storage root", path)
}

// Running reports whether the process the holder names is alive. The lock
// file outlives its holder (Release empties it, a kill leaves it), so its
// content alone says nothing: a dead pid means the lock is free; a live one
// means it is held, unless the pid was reused, which taking the lock
// settles. A killed process that its parent has not reaped yet (a zombie)
// holds no lock and answers nothing, so it is not running either.
func (h Holder) Running() bool {
	if h.PID <= 0 {
		return false
	}
	if err := syscall.Kill(h.PID, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	return !exited(h.PID)
}

// ReadHolder returns what the lock file of root says about its holder.
func ReadHolder(root string) Holder { return readHolder(filepath.Join(root, LockName)) }

func readHolder(path string) Holder {
	b, err := readNoFollow(path)
	if err != nil {
		return Holder{}
	}
	pid, addr, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
	n, _ := strconv.Atoi(pid)
	return Holder{PID: n, Addr: addr}
}

// Release gives the lock up. The file stays: removing it would race a
// process that has just opened it. Its content goes first, while the lock
// is still held: a process that outlives its lock (a command's parent, a
// test that ran a server in-process) must not be taken for a server that
// is still starting.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = l.f.Truncate(0) // a read-only root keeps the old content; Running and the lock still tell
	err := l.f.Close()  // closing the descriptor releases the flock
	l.f = nil
	if err != nil {
		return fmt.Errorf("release lock: %w", err)
	}
	return nil
}

// readNoFollow reads the named file, refusing a symbolic link (ELOOP):
// kg reads nothing outside its root through a link planted in it.
func readNoFollow(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// notALink is the error for a file of the root that is a symbolic link.
func notALink(path string) error {
	target, _ := os.Readlink(path)
	return domain.Unavailable(nil, "%s is a symbolic link (to %s); kg uses only regular files inside its storage root: "+
		"remove the link", path, target)
}
