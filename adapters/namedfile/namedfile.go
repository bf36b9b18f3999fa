// Package namedfile opens and reads the files kg opens because a user or an
// agent named them — the files a node touches or an edge ends on, a hook's
// transcript, a document to import — so that no such file can block kg
// (docs/design/trust.md#files-named-by-a-request). A named pipe opened for
// reading waits for a writer, and a read of a device or a hung network
// mount may never return: each would hold a request, or the maintenance
// tick, and an OS thread, for ever. So:
//
//   - anything that is not a regular file is refused before it is opened
//     (a stat, which does not open it);
//   - the open does not block (O_NONBLOCK), so a pipe swapped in between
//     the stat and the open is opened at once, and the opened file is
//     checked again and refused;
//   - every read has a deadline: the read runs apart, and a caller whose
//     deadline passes goes on without it. A bounded number of such stuck
//     reads may be outstanding; past that, reads are refused at once, so
//     that stuck reads cannot use up the process's threads.
package namedfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"syscall"
	"time"
)

// ErrNotRegular is wrapped by the error of a named file that is not a
// regular file: a folder, a named pipe, a socket, a device.
var ErrNotRegular = errors.New("not a regular file")

// ErrTimeout is wrapped by the error of a read that did not end before its
// deadline.
var ErrTimeout = errors.New("the read did not end in time")

// ErrTooManyStuck is wrapped by the error of a read refused because too
// many earlier reads are still stuck past their deadline.
var ErrTooManyStuck = errors.New("too many reads of named files are stuck")

// Default limits of a Reader whose fields are zero.
const (
	DefaultTimeout  = 5 * time.Second
	DefaultMaxStuck = 16
)

// Reader opens and reads named files with a deadline on each read. The
// zero value uses the defaults; a nil *Reader too, without the bound on
// stuck reads. One Reader is shared by everything a server reads so that
// the bound holds for the process.
type Reader struct {
	// Timeout bounds each read; 0 is DefaultTimeout.
	Timeout time.Duration
	// MaxStuck bounds the reads still running past their deadline; 0 is
	// DefaultMaxStuck.
	MaxStuck int

	mu    sync.Mutex
	stuck int
}

// Open opens path for reading when it is a regular file, and returns it
// with its description. A path that names anything else is refused
// without being opened for read; follow says whether a symbolic link in
// its last element is followed (callers that resolved the path and checked
// where it lies pass false, so that a link swapped in since is refused).
func Open(path string, follow bool) (*os.File, fs.FileInfo, error) {
	stat, flags := os.Stat, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY
	if !follow {
		stat, flags = os.Lstat, flags|syscall.O_NOFOLLOW
	}
	fi, err := stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, notRegular(path, fi)
	}
	f, err := os.OpenFile(path, flags, 0)
	if err != nil {
		return nil, nil, err
	}
	if fi, err = f.Stat(); err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		_ = f.Close()
		return nil, nil, notRegular(path, fi)
	}
	return f, fi, nil
}

// notRegular is the error of path, found to be fi.
func notRegular(path string, fi fs.FileInfo) error {
	return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(fi.Mode()))}
}

// kind names a file's type in words.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	default:
		return m.Type().String()
	}
}

// Do runs read, which reads an opened named file, with the Reader's
// deadline (and ctx's, if sooner). When the deadline passes first, Do
// returns an error wrapping ErrTimeout (or ctx's error) and read goes on
// apart: it must own what it uses — close the file itself, write only to
// its own buffers. What it returns then is dropped.
func (r *Reader) Do(ctx context.Context, read func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !r.room() {
		return ErrTooManyStuck
	}
	done := make(chan error, 1)
	go func() {
		done <- read()
	}()
	timer := time.NewTimer(r.timeout())
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		go r.releaseWhen(done)
		return ctx.Err()
	case <-timer.C:
		go r.releaseWhen(done)
		return fmt.Errorf("%w (%s)", ErrTimeout, r.timeout())
	}
}

func (r *Reader) timeout() time.Duration {
	if r == nil || r.Timeout <= 0 {
		return DefaultTimeout
	}
	return r.Timeout
}

// room reports whether fewer than MaxStuck reads are stuck.
func (r *Reader) room() bool {
	if r == nil {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	limit := r.MaxStuck
	if limit <= 0 {
		limit = DefaultMaxStuck
	}
	return r.stuck < limit
}

// releaseWhen counts a read stuck past its deadline until it ends.
func (r *Reader) releaseWhen(done <-chan error) {
	if r == nil {
		<-done
		return
	}
	r.mu.Lock()
	r.stuck++
	r.mu.Unlock()
	<-done
	r.mu.Lock()
	r.stuck--
	r.mu.Unlock()
}
