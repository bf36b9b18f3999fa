package filehash

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/kg-memory/kg/domain/stale"
	"github.com/kg-memory/kg/ports"
)

// answersWithin runs fn and fails the test when it has not returned
// within d: a read that blocks must fail the test, not hang it.
func answersWithin[T any](t *testing.T, d time.Duration, fn func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- fn() }()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		t.Fatalf("no answer within %s: the read blocked", d)
		panic("unreachable")
	}
}

// A touched path that is a named pipe is not a file: it is never opened
// for read (an open would wait for a writer for ever) and is missing, as a
// folder or a device is; the files beside it are hashed as usual.
func TestNamedPipeIsNeverOpened(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "a.txt"), "a")
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	qs := []ports.FileQuery{{Path: "pipe"}, {Path: filepath.Join(root, "pipe")}, {Path: "a.txt"}}
	type result struct {
		hs  []stale.FileHash
		err error
	}
	got := answersWithin(t, 5*time.Second, func() result {
		hs, err := OS{}.HashFiles(context.Background(), root, qs)
		return result{hs, err}
	})
	if got.err != nil {
		t.Fatal(got.err)
	}
	for i, want := range []stale.FileState{stale.FileMissing, stale.FileMissing, stale.FileFound} {
		if got.hs[i].State != want {
			t.Errorf("%s: %v, want %v", qs[i].Path, got.hs[i].State, want)
		}
	}
}
