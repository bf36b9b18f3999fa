package rootdir

import (
	"os"
	"path/filepath"
	"testing"
)

// A root that is a symbolic link (~/.knowledge-graph -> ~/Dropbox/kg) is the
// user's choice: its lock and backend marker work through it and land in the
// link's target (docs/design/storage.md#locking).
func TestSymlinkedRoot(t *testing.T) {
	real := filepath.Join(t.TempDir(), "kg")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), ".knowledge-graph")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	l, err := Acquire(link, "127.0.0.1:8765")
	if err != nil {
		t.Fatalf("Acquire through a root link: %v", err)
	}
	defer func() { _ = l.Release() }()
	if h := ReadHolder(link); h.PID != os.Getpid() || h.Addr != "127.0.0.1:8765" {
		t.Errorf("ReadHolder through the link = %+v", h)
	}
	if _, err := Acquire(real, ""); err == nil {
		t.Error("the lock taken through the link does not hold the target")
	}
	if err := WriteBackend(link, "json"); err != nil {
		t.Fatalf("WriteBackend through a root link: %v", err)
	}
	if got, err := Backend(link); err != nil || got != "json" {
		t.Errorf("Backend through the link = %q, %v", got, err)
	}
	for _, name := range []string{LockName, BackendName} {
		if fi, err := os.Lstat(filepath.Join(real, name)); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s is not a file in the link's target: %v, %v", name, fi, err)
		}
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the root link was replaced: %v, %v", fi, err)
	}
}
