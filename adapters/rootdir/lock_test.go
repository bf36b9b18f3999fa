package rootdir

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// holdCopy takes the flock of root's lock file through a descriptor of its
// own, as a child forked while the lock was held keeps it through its copy
// of the descriptor until it execs, and returns the function that lets it go.
func holdCopy(t *testing.T, root string) func() {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(root, LockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	return func() { _ = f.Close() }
}

func TestAcquireWaitsForALockBeingLetGo(t *testing.T) {
	root := t.TempDir()
	l, err := Acquire(root, "127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil { // the file is emptied: no holder
		t.Fatal(err)
	}
	letGo := holdCopy(t, root)
	go func() {
		time.Sleep(100 * time.Millisecond)
		letGo()
	}()
	l, err = Acquire(root, "127.0.0.1:2")
	if err != nil {
		t.Fatalf("Acquire of a lock let go a moment later: %v", err)
	}
	if h := ReadHolder(root); h.PID != os.Getpid() || h.Addr != "127.0.0.1:2" {
		t.Errorf("holder %+v, want this process on 127.0.0.1:2", h)
	}
	_ = l.Release()
}

func TestAcquireRefusesALockThatNamesItsHolder(t *testing.T) {
	root := t.TempDir()
	release := holdCopy(t, root)
	defer release()
	holder := strconv.Itoa(os.Getpid()) + " 127.0.0.1:8765\n"
	if err := os.WriteFile(filepath.Join(root, LockName), []byte(holder), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Acquire(root, "127.0.0.1:2")
	if err == nil {
		t.Fatal("Acquire took a lock another server holds")
	}
	if want := "listening on 127.0.0.1:8765"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name the holder (%q)", err, want)
	}
}
