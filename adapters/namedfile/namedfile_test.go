package namedfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Open refuses, without blocking, what is not a regular file, and opens a
// regular one; a link in the last element is refused unless followed.
func TestOpenRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path   string
		follow bool
		want   error
	}{
		{pipe, true, ErrNotRegular},
		{dir, true, ErrNotRegular},
		{"/dev/zero", true, ErrNotRegular},
		{link, false, ErrNotRegular},
		{link, true, nil},
		{file, false, nil},
	} {
		f, fi, err := Open(tc.path, tc.follow)
		if !errors.Is(err, tc.want) || (tc.want == nil && (err != nil || fi.Size() != 1)) {
			t.Errorf("Open(%s, %v) = %v, want %v", tc.path, tc.follow, err, tc.want)
		}
		if f != nil {
			_ = f.Close()
		}
	}
}

// A read that outlives its deadline is left behind: Do returns
// ErrTimeout, and once MaxStuck such reads are under way, further reads are
// refused at once until one ends.
func TestDoHasADeadlineAndBoundsStuckReads(t *testing.T) {
	r := &Reader{Timeout: 20 * time.Millisecond, MaxStuck: 1}
	release := make(chan struct{})
	stuck := func() error { <-release; return nil }
	if err := r.Do(context.Background(), stuck); !errors.Is(err, ErrTimeout) {
		t.Fatalf("a stuck read: %v, want ErrTimeout", err)
	}
	// The stuck read is counted once its waiter has noticed.
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := r.Do(context.Background(), func() error { return nil })
		if errors.Is(err, ErrTooManyStuck) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("with one read stuck and MaxStuck 1: %v, want ErrTooManyStuck", err)
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	for {
		if err := r.Do(context.Background(), func() error { return nil }); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("reads are still refused after the stuck one ended")
		}
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.Do(ctx, func() error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("with ctx done: %v, want context.Canceled", err)
	}
}
