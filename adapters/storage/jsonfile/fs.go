package jsonfile

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// FS is the file-system layer every file operation of the store goes
// through. The default is the real OS; tests wrap it to inject faults (a
// full disk, a read-only file system), to record the order of writes,
// renames and syncs, and to stop at any step as a kill -9 would.
//
// No operation follows a symbolic link in its last element: the store
// refuses links in its root (Store.safeDir checks the folders above). The
// root itself may be a link; Open resolves it once, with Resolve, so that
// every path the store names lies under a real folder.
type FS interface {
	// Resolve returns the path name refers to, every symbolic link on the
	// way resolved.
	Resolve(name string) (string, error)
	// ReadFile returns the whole content of the named file.
	ReadFile(name string) ([]byte, error)
	// Create creates or truncates the named file for writing.
	Create(name string) (File, error)
	// Append opens the named file for appending, creating it if needed.
	Append(name string) (File, error)
	// Edit opens the named file for writing in place (WriteAt), creating
	// it if needed: how a refused journal record is voided.
	Edit(name string) (File, error)
	// Rename atomically replaces newpath by oldpath.
	Rename(oldpath, newpath string) error
	// Link makes newpath a hard link to oldpath; newpath must not exist.
	Link(oldpath, newpath string) error
	// Remove removes the named file or empty folder.
	Remove(name string) error
	// Mkdir creates one folder.
	Mkdir(name string, perm fs.FileMode) error
	// Stat describes the named file without following a final symlink.
	Stat(name string) (fs.FileInfo, error)
	// ReadDir lists a folder, sorted by name.
	ReadDir(name string) ([]fs.DirEntry, error)
	// SyncDir makes the entries of a folder (creations, renames) durable.
	SyncDir(name string) error
}

// File is a file open for writing.
type File interface {
	Write(p []byte) (int, error)
	// WriteAt writes at an offset; only a file from Edit supports it.
	WriteAt(p []byte, off int64) (int, error)
	// Sync makes the content durable (fsync).
	Sync() error
	// Truncate cuts the file to size bytes.
	Truncate(size int64) error
	// Stat describes the open file, wherever its name now points.
	Stat() (fs.FileInfo, error)
	Close() error
}

// OS is the real file system.
type OS struct{}

var _ FS = OS{}

// ReadFile implements FS.
func (OS) ReadFile(name string) ([]byte, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Sized from the file, as os.ReadFile does: io.ReadAll would grow its
	// buffer by doubling, allocating about twice a large graph file.
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	_, err = buf.ReadFrom(f)
	return buf.Bytes(), err
}

// Create implements FS. Files are private to the user: they hold what the
// agents learned.
func (OS) Create(name string) (File, error) {
	return os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600)
}

// Append implements FS.
func (OS) Append(name string) (File, error) {
	return os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
}

// Edit implements FS.
func (OS) Edit(name string) (File, error) {
	return os.OpenFile(name, os.O_WRONLY|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
}

// Resolve implements FS.
func (OS) Resolve(name string) (string, error) { return filepath.EvalSymlinks(name) }

// Rename implements FS.
func (OS) Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// Link implements FS.
func (OS) Link(oldpath, newpath string) error { return os.Link(oldpath, newpath) }

// Remove implements FS.
func (OS) Remove(name string) error { return os.Remove(name) }

// Mkdir implements FS.
func (OS) Mkdir(name string, perm fs.FileMode) error { return os.Mkdir(name, perm) }

// Stat implements FS.
func (OS) Stat(name string) (fs.FileInfo, error) { return os.Lstat(name) }

// ReadDir implements FS.
func (OS) ReadDir(name string) ([]fs.DirEntry, error) {
	d, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	entries, err := d.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// SyncDir implements FS.
func (OS) SyncDir(name string) error {
	d, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
