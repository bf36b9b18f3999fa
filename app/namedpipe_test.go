package app

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// within runs fn and fails the test when it has not returned within d: a
// call that blocks on a named pipe must fail the test, not hang it.
func within(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not answer within %s", what, d)
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// Issue 28 item 6, through the real file hasher: a kg_put_node whose
// touches name a named pipe answers, recording the regular files only
// (docs/design/trust.md#files-named-by-a-request).
func TestPutNodeTouchingANamedPipeAnswers(t *testing.T) {
	e := newEnv(t).withFiles()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a.txt"), "a\n")
	mkfifo(t, filepath.Join(root, "pipe"))
	sid := e.session(root)
	within(t, 10*time.Second, "kg_put_node touching a named pipe", func() {
		e.putTouches(sid, "n", "touches a pipe", "pipe", "a.txt")
	})
	if n := e.projectNode(root, "n"); len(n.Files) != 1 || n.Files[0].Path != "a.txt" {
		t.Errorf("recorded %+v; want a.txt only", n.Files)
	}
}

// A touched file later replaced by a named pipe does not stop the
// maintenance tick: the tick ends, and the node is marked as if the file
// vanished (a pipe is not a file).
func TestTickGoesOnWhenATouchedFileBecomesANamedPipe(t *testing.T) {
	e := newEnv(t).withFiles()
	root := t.TempDir()
	file := filepath.Join(root, "a.txt")
	writeFile(t, file, "a\n")
	sid := e.session(root)
	e.putTouches(sid, "n", "touches a file", "a.txt")
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, file)
	within(t, 10*time.Second, "the maintenance tick", func() { e.svc.maint.Tick(e.ctx) })
	if got := staleOf(e.projectNode(root, "n")); got != "[stale: a.txt vanished]" {
		t.Errorf("mark %q, want [stale: a.txt vanished]", got)
	}
}
