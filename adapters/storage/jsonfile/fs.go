package jsonfile

import (
	"io/fs"
	"os"
)

// FS is the file-system layer every file operation of the store goes
// through. The default is the real OS; tests wrap it to inject faults (a
// full disk, a read-only file system) and to record the order of writes,
// renames and syncs.
type FS interface {
	// ReadFile returns the whole content of the named file.
	ReadFile(name string) ([]byte, error)
	// Create creates or truncates the named file for writing.
	Create(name string) (File, error)
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
	// Sync makes the content durable (fsync).
	Sync() error
	Close() error
}

// OS is the real file system.
type OS struct{}

var _ FS = OS{}

// ReadFile implements FS.
func (OS) ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }

// Create implements FS. Files are private to the user: they hold what the
// agents learned.
func (OS) Create(name string) (File, error) {
	return os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
}

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
func (OS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

// SyncDir implements FS.
func (OS) SyncDir(name string) error {
	d, err := os.Open(name)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
