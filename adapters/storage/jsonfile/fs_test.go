package jsonfile

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
)

// testFS wraps the real file system: it fails write operations chosen by
// fail, and records every write operation in order.
type testFS struct {
	OS
	root string

	mu   sync.Mutex
	fail func(op, name string) error
	ops  []string

	// steps counts the write operations; at step killAt (when > 0) the
	// layer dies: that operation tears or does not happen and every later
	// one fails with errKilled.
	steps, killAt int
	dead          bool
}

// errKilled is what every write operation returns once a testFS died.
var errKilled = errors.New("killed: the process died here")

// errTorn is what the write a testFS dies in returns, after writing part
// of its data.
var errTorn = fmt.Errorf("torn: %w", errKilled)

// killAt arms the layer to die at the n-th write operation from now.
func (f *testFS) killAfter(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n <= 0 {
		f.killAt, f.dead = 0, false
		return
	}
	f.killAt = f.steps + n
}

func (f *testFS) stepCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.steps
}

func (f *testFS) check(op, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	rel := f.rel(name)
	f.steps++
	switch {
	case f.dead:
		return errKilled
	case f.killAt > 0 && f.steps == f.killAt:
		f.dead = true
		f.ops = append(f.ops, op+" "+rel+" KILLED")
		if op == "write" {
			return errTorn
		}
		return errKilled
	}
	f.ops = append(f.ops, op+" "+rel)
	if f.fail != nil {
		if err := f.fail(op, rel); err != nil {
			f.ops[len(f.ops)-1] += " FAILED"
			return err
		}
	}
	return nil
}

// rel names a path (or "a -> b" pair) relative to the root.
func (f *testFS) rel(name string) string {
	if a, b, ok := strings.Cut(name, " -> "); ok {
		return f.rel(a) + " -> " + f.rel(b)
	}
	r, err := filepath.Rel(f.root, name)
	if err != nil {
		return name
	}
	return r
}

// setFault makes every write operation fail with err; nil clears it.
func (f *testFS) setFault(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil {
		f.fail = nil
		return
	}
	f.fail = func(string, string) error { return err }
}

func (f *testFS) takeOps() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	ops := f.ops
	f.ops = nil
	return ops
}

type testFile struct {
	File
	fs   *testFS
	name string
}

func (w testFile) Write(p []byte) (int, error) {
	if err := w.fs.check("write", w.name); err != nil {
		if errors.Is(err, errTorn) {
			n, _ := w.File.Write(p[:len(p)/2])
			return n, err
		}
		return 0, err
	}
	return w.File.Write(p)
}

func (w testFile) WriteAt(p []byte, off int64) (int, error) {
	if err := w.fs.check("write", w.name); err != nil {
		return 0, err
	}
	return w.File.WriteAt(p, off)
}

func (w testFile) Sync() error {
	if err := w.fs.check("fsync", w.name); err != nil {
		return err
	}
	return w.File.Sync()
}

func (f *testFS) Create(name string) (File, error) {
	if err := f.check("create", name); err != nil {
		return nil, err
	}
	w, err := f.OS.Create(name)
	if err != nil {
		return nil, err
	}
	return testFile{w, f, name}, nil
}

func (f *testFS) Append(name string) (File, error) {
	if err := f.check("append", name); err != nil {
		return nil, err
	}
	w, err := f.OS.Append(name)
	if err != nil {
		return nil, err
	}
	return testFile{w, f, name}, nil
}

func (f *testFS) Edit(name string) (File, error) {
	if err := f.check("edit", name); err != nil {
		return nil, err
	}
	w, err := f.OS.Edit(name)
	if err != nil {
		return nil, err
	}
	return testFile{w, f, name}, nil
}

func (w testFile) Truncate(size int64) error {
	if err := w.fs.check("truncate", w.name); err != nil {
		return err
	}
	return w.File.Truncate(size)
}

func (f *testFS) Rename(o, n string) error {
	if err := f.check("rename", o+" -> "+n); err != nil {
		return err
	}
	return f.OS.Rename(o, n)
}

func (f *testFS) Link(o, n string) error {
	if err := f.check("link", o+" -> "+n); err != nil {
		return err
	}
	return f.OS.Link(o, n)
}

func (f *testFS) Remove(name string) error {
	if err := f.check("remove", name); err != nil {
		return err
	}
	return f.OS.Remove(name)
}

func (f *testFS) Mkdir(name string, perm fs.FileMode) error {
	if err := f.check("mkdir", name); err != nil {
		return err
	}
	return f.OS.Mkdir(name, perm)
}

func (f *testFS) SyncDir(name string) error {
	if err := f.check("fsyncdir", name); err != nil {
		return err
	}
	return f.OS.SyncDir(name)
}
