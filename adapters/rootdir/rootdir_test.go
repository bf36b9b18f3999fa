package rootdir

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/kg-memory/kg/domain"
)

const childEnv = "KG_ROOTDIR_LOCK_CHILD"

// TestMain lets the lock test re-execute this binary as a second process
// that holds the lock until its stdin closes.
func TestMain(m *testing.M) {
	if root := os.Getenv(childEnv); root != "" {
		l, err := Acquire(root, "127.0.0.1:8765")
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("locked")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until the parent closes stdin or dies
		_ = l.Release()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// lockingChild starts this test binary as a second process that holds the
// lock of root (TestMain) until its stdin closes, and returns once it does.
func lockingChild(t *testing.T, root string) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+root)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "locked" {
		t.Fatalf("child: %q, %v", line, err)
	}
	return cmd, stdin
}

func TestSecondProcessFailsAtOnce(t *testing.T) {
	root := t.TempDir()
	cmd, stdin := lockingChild(t, root)

	_, err := Acquire(root, "127.0.0.1:9999")
	if err == nil {
		t.Fatal("second Acquire succeeded while the child holds the lock")
	}
	if domain.KindOf(err) != domain.KindUnavailable {
		t.Errorf("kind = %v", domain.KindOf(err))
	}
	for _, want := range []string{"pid " + strconv.Itoa(cmd.Process.Pid), "127.0.0.1:8765"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if h := ReadHolder(root); h.PID != cmd.Process.Pid || h.Addr != "127.0.0.1:8765" {
		t.Errorf("holder = %+v", h)
	}

	if h := ReadHolder(root); !h.Running() {
		t.Errorf("holder %+v: Running = false while the child runs", h)
	}

	// Once the holder is gone (even killed), the lock is free.
	_ = stdin.Close()
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if h := ReadHolder(root); h.Running() {
		t.Errorf("holder %+v: Running = true after the child died", h)
	}
	l, err := Acquire(root, "127.0.0.1:9999")
	if err != nil {
		t.Fatalf("Acquire after the holder died: %v", err)
	}
	if h := ReadHolder(root); h.PID != os.Getpid() || h.Addr != "127.0.0.1:9999" {
		t.Errorf("holder = %+v, want this process", h)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
}

// A holder that serves nothing (a kg command) is named as such.
func TestHeldByACommand(t *testing.T) {
	root := t.TempDir()
	l, err := Acquire(root, "")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	h := ReadHolder(root)
	if h.PID != os.Getpid() || h.Addr != "" || !h.Running() {
		t.Errorf("holder = %+v", h)
	}
	want := "a kg command holds " + filepath.Join(root, LockName) + " (pid " + strconv.Itoa(os.Getpid()) + ") while it works on the root"
	if got := held(filepath.Join(root, LockName), h); !strings.HasPrefix(got, want) {
		t.Errorf("held = %q, want it to start with %q", got, want)
	}
	if got := held("x", Holder{}); got != "another kg process holds x; stop it or use another storage root" {
		t.Errorf("held by nobody known = %q", got)
	}
}

// A lock that cannot be opened (here a folder where the file should be;
// on a read-only root, the same message ends "read-only file system") is
// one sentence naming the file once, why, and what the root must be.
func TestLockThatCannotBeOpened(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, LockName)
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := Acquire(root, "")
	want := "cannot open " + path + ", the storage root's lock: is a directory; the root must be a folder kg can write to"
	if domain.KindOf(err) != domain.KindUnavailable || err.Error() != want {
		t.Errorf("Acquire = %v\nwant unavailable: %s", err, want)
	}
}

func TestBackendMarker(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		want    string
		wantErr string // substring; "" = success
	}{
		{"no marker", nil, "", ""},
		{"a replaced server's root has no marker", map[string]string{"user.json": "{}"}, "", ""},
		{"json", map[string]string{".backend": "json\n"}, "json", ""},
		{"white space trimmed", map[string]string{".backend": "  bolt \n"}, "bolt", ""},
		{"any name: the caller checks it", map[string]string{".backend": "sqlite"}, "sqlite", ""},
		{"empty marker", map[string]string{".backend": "\n"}, "", "is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for name, content := range tc.files {
				if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			got, err := Backend(root)
			if tc.wantErr == "" && err != nil {
				t.Fatalf("Backend = %v", err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("Backend = %v, want an error containing %q", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("Backend = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWriteBackend(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"json", "bolt"} {
		if err := WriteBackend(root, name); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(root, BackendName))
		if err != nil || string(b) != name+"\n" {
			t.Errorf(".backend = %q, %v; want %q", b, err, name+"\n")
		}
		if _, err := os.Stat(filepath.Join(root, BackendName+".tmp")); !os.IsNotExist(err) {
			t.Errorf("temporary file left behind: %v", err)
		}
	}
}

// A .lock or .backend planted in the root as a symbolic link is refused,
// not followed: the lock would write this process's pid and address into
// the link's target, and the marker would be read from outside the root.
func TestLinksInTheRootAreRefused(t *testing.T) {
	for _, name := range []string{LockName, BackendName} {
		t.Run(name, func(t *testing.T) {
			base := t.TempDir()
			root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
			if err := os.Mkdir(root, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(outside, []byte("json\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(root, name)); err != nil {
				t.Fatal(err)
			}
			var err error
			if name == LockName {
				var l *Lock
				l, err = Acquire(root, "127.0.0.1:8765")
				_ = l.Release()
			} else {
				_, err = Backend(root)
			}
			if domain.KindOf(err) != domain.KindUnavailable || !strings.Contains(err.Error(), "is a symbolic link (to "+outside+")") {
				t.Errorf("error %v, want unavailable: a symbolic link", err)
			}
			if b, _ := os.ReadFile(outside); string(b) != "json\n" {
				t.Errorf("the file outside the root now holds %q", b)
			}
			if h := ReadHolder(root); h != (Holder{}) {
				t.Errorf("ReadHolder read %+v through the link", h)
			}
		})
	}
}

// A released lock names no holder: the process that held it may live on
// (a command's parent, a test that ran a server in-process), and a reader
// must not wait for it to answer as a server that is still starting.
func TestReleaseForgetsTheHolder(t *testing.T) {
	root := t.TempDir()
	l, err := Acquire(root, "127.0.0.1:9999")
	if err != nil {
		t.Fatal(err)
	}
	if h := ReadHolder(root); h.PID != os.Getpid() || !h.Running() {
		t.Fatalf("holder while held = %+v", h)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if h := ReadHolder(root); h != (Holder{}) || h.Running() {
		t.Errorf("holder after Release = %+v (running %v), want none", h, h.Running())
	}
}

// A holder killed and not yet reaped by its parent (a zombie: the server
// kg mcp started, killed with -9, whose parent has gone, under an init that
// does not reap) holds no lock and answers nothing: it is not running.
func TestUnreapedHolderIsNotRunning(t *testing.T) {
	root := t.TempDir()
	cmd, _ := lockingChild(t, root)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Wait for the exit without reaping: the child stays a zombie.
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	h := ReadHolder(root)
	if h.PID != cmd.Process.Pid {
		t.Fatalf("holder = %+v, want the killed child %d", h, cmd.Process.Pid)
	}
	if h.Running() {
		t.Errorf("holder %+v: Running = true for a killed, unreaped process", h)
	}
}

// A shared lock creates and writes nothing: without a lock file there is
// none to take; with one, its bytes stay, a server cannot take the root
// meanwhile (and is told a reader holds it), and a reader is refused while
// a server holds it.
func TestShare(t *testing.T) {
	root := t.TempDir()
	l, err := Share(root)
	if err != nil || l != nil {
		t.Fatalf("Share without a lock file = %v, %v; want nil, nil", l, err)
	}
	if _, err := os.Stat(filepath.Join(root, LockName)); !os.IsNotExist(err) {
		t.Fatalf("Share made the lock file: %v", err)
	}
	held, err := Acquire(root, "127.0.0.1:8765")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Share(root); err == nil || !strings.Contains(err.Error(), "127.0.0.1:8765") {
		t.Errorf("Share while a server holds the root = %v, want the holder named", err)
	}
	if err := held.Release(); err != nil {
		t.Fatal(err)
	}
	// The file still names the server, which is gone: write a dead pid.
	if err := os.WriteFile(filepath.Join(root, LockName), []byte("999999999 127.0.0.1:8765\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(root, LockName))
	r1, err := Share(root)
	if err != nil || r1 == nil {
		t.Fatalf("Share = %v, %v", r1, err)
	}
	r2, err := Share(root) // readers share
	if err != nil || r2 == nil {
		t.Fatalf("a second Share = %v, %v", r2, err)
	}
	_, err = Acquire(root, "127.0.0.1:9999")
	if err == nil || !strings.Contains(err.Error(), "a kg command that reads the root holds") {
		t.Errorf("Acquire while readers hold the root = %v, want it refused naming a reader", err)
	}
	if after, _ := os.ReadFile(filepath.Join(root, LockName)); string(after) != string(before) {
		t.Errorf("the lock file changed: %q → %q", before, after)
	}
	_ = r1.Release()
	_ = r2.Release()
	l, err = Acquire(root, "127.0.0.1:9999")
	if err != nil {
		t.Fatalf("Acquire after the readers left: %v", err)
	}
	_ = l.Release()
}
