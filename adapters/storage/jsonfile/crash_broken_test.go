package jsonfile

import (
	"bytes"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kg-memory/kg/ports/porttest"
)

// brokenMode is how a brokenFS breaks the store's atomic save.
type brokenMode int

const (
	// tornInPlace rewrites user.json in place (truncate, write, no tmp, no
	// rename, no .prev, no fsync) and stops halfway: the process's first
	// save of the user graph writes half its content and hangs until the
	// process is killed. Every other save (done right, by the store's own
	// tmp + rename) waits until that half file is on disk, so every
	// acknowledgement the parent sees, and therefore its kill, comes after
	// the tear.
	tornInPlace brokenMode = iota
	// tornTmp is the control: the same halfway stop and the same waits,
	// but in user.tmp, with the store's tmp + rename left intact. The
	// check must find nothing wrong.
	tornTmp
	// ackBeforeWrite acknowledges a save before it is on disk: the saves
	// of each stored file (its whole writes and its journal appends, in
	// order) reach the disk saveLag saves late, so that whenever the
	// process is killed, the last acknowledged save of every file is lost
	// with it.
	//
	// One save late is not enough: it leaves a window, between the save
	// that writes the previous one and its own acknowledgement, in which
	// all that was acknowledged is on disk, and a kill landing there (it
	// did, under load) finds nothing lost. Two late, what a reopen finds is
	// the state after the save before the last acknowledged one, or the
	// one before that: never the last one's put, and never without the
	// node the last one deleted. The journal is never emptied (its
	// truncate does nothing), so the records that reach the disk stay in
	// order with the whole writes, and replay skips those the file holds.
	//
	// The first save of a project's graph is written at once: held back,
	// its folder would have no owner on disk, the child's two projects
	// named app would share it, and the check would find their graphs
	// mixed rather than saves missing. It waits until the user graph's
	// second save begins, which its writer starts only after printing the
	// acknowledgement of its first: so an acknowledged user graph save is
	// missing from disk, for good, before any project save is
	// acknowledged. The user graph's and the sessions' saves are all held
	// back: one is missing from their first acknowledgement on.
	ackBeforeWrite
)

// saveLag is how many saves of a file ackBeforeWrite holds back.
const saveLag = 2

// brokenFS is a file-system layer that breaks the store's atomic save on
// purpose, to show that the kill -9 check catches it.
type brokenFS struct {
	OS
	root string
	mode brokenMode

	tornOnce sync.Once
	torn     chan struct{} // closed once the user graph's file is half written

	mu sync.Mutex
	// held is what ackBeforeWrite has not written yet, per stored file
	// (its path without .json or .journal): the late saves, oldest first.
	held map[string][]func() error
	// userSaves counts the user graph's saves begun; userAcked is closed
	// when the second begins.
	userSaves int
	userAcked chan struct{}
}

// stem names the stored file a path belongs to: its path without .json,
// .journal or .tmp.
func stem(path string) string {
	for _, ext := range []string{".json", ".journal", ".tmp"} {
		if s, ok := strings.CutSuffix(path, ext); ok {
			return s
		}
	}
	return path
}

// hold queues save as the next save of the file at stem and runs the
// oldest held one once more than saveLag are waiting. The first save of
// a project's graph runs at once, when the user graph's first save has
// been acknowledged.
func (f *brokenFS) hold(stem string, save func() error) error {
	if stem == filepath.Join(f.root, "user") {
		f.mu.Lock()
		if f.userSaves++; f.userSaves == 2 {
			close(f.userAcked)
		}
		f.mu.Unlock()
	}
	f.mu.Lock()
	q, seen := f.held[stem]
	if !seen && strings.HasPrefix(stem, filepath.Join(f.root, "projects")+string(filepath.Separator)) {
		f.held[stem] = []func() error{}
		f.mu.Unlock()
		<-f.userAcked
		return save()
	}
	q = append(q, save)
	var due func() error
	if len(q) > saveLag {
		due, q = q[0], q[1:]
	}
	f.held[stem] = q
	f.mu.Unlock()
	if due == nil {
		return nil
	}
	return due()
}

func (f *brokenFS) Create(name string) (File, error) {
	if !strings.HasSuffix(name, ".tmp") {
		return f.OS.Create(name)
	}
	path := strings.TrimSuffix(name, ".tmp") + ".json"
	if f.mode == ackBeforeWrite {
		return &brokenFile{fs: f, path: path}, nil
	}
	if name != filepath.Join(f.root, "user.tmp") {
		<-f.torn
		return f.OS.Create(name)
	}
	if f.mode == tornInPlace {
		name = path // truncates the live file
	}
	w, err := f.OS.Create(name)
	if err != nil {
		return nil, err
	}
	return &brokenFile{fs: f, w: w}, nil
}

// Append, under ackBeforeWrite, holds each record of a journal back with
// the other saves of its file.
func (f *brokenFS) Append(name string) (File, error) {
	w, err := f.OS.Append(name)
	if err != nil || f.mode != ackBeforeWrite {
		return w, err
	}
	return &lateAppend{File: w, fs: f, path: name}, nil
}

// lateAppend appends what it is given when its turn comes, and never
// empties the file.
type lateAppend struct {
	File
	fs   *brokenFS
	path string
}

func (w *lateAppend) Write(p []byte) (int, error) {
	rec := bytes.Clone(p)
	err := w.fs.hold(stem(w.path), func() error {
		out, err := w.fs.OS.Append(w.path)
		if err != nil {
			return err
		}
		_, err = out.Write(rec)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		return err
	})
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

func (w *lateAppend) Sync() error { return nil }

// Truncate does nothing: the records written late must stay in order with
// the whole writes of their file.
func (w *lateAppend) Truncate(int64) error { return nil }

// Rename of a tmp over its file does nothing under ackBeforeWrite: the
// content is not written yet. (The torn modes never get this far.)
func (f *brokenFS) Rename(o, n string) error {
	if f.mode == ackBeforeWrite && strings.HasSuffix(o, ".tmp") {
		return nil
	}
	return f.OS.Rename(o, n)
}

// Link keeps no .prev under ackBeforeWrite.
func (f *brokenFS) Link(o, n string) error {
	if f.mode == ackBeforeWrite && strings.HasSuffix(n, ".prev") {
		return nil
	}
	return f.OS.Link(o, n)
}

// brokenFile buffers what the store writes; at Close it writes half of it
// to w and hangs (the torn modes) or holds it back with the other saves of
// its file (ackBeforeWrite). Sync does nothing.
type brokenFile struct {
	fs   *brokenFS
	w    File   // the torn modes: the file on disk
	path string // ackBeforeWrite: the file the content is for
	buf  bytes.Buffer
}

func (w *brokenFile) Write(p []byte) (int, error) { return w.buf.Write(p) }

func (w *brokenFile) Sync() error { return nil }

// WriteAt is never called: a brokenFile is a tmp, written in order.
func (w *brokenFile) WriteAt([]byte, int64) (int, error) { return 0, fs.ErrInvalid }

func (w *brokenFile) Truncate(int64) error { return nil }

func (w *brokenFile) Stat() (fs.FileInfo, error) { return nil, fs.ErrInvalid }

func (w *brokenFile) Close() error {
	f := w.fs
	if w.w != nil {
		b := w.buf.Bytes()
		if _, err := w.w.Write(b[:len(b)/2]); err != nil {
			return err
		}
		f.tornOnce.Do(func() { close(f.torn) })
		select {} // the process is killed here, the file half written
	}
	content := bytes.Clone(w.buf.Bytes())
	return f.hold(stem(w.path), func() error {
		// Written whole by a rename, so that what the check finds is the
		// missing acknowledged save, never a torn file.
		late := w.path + ".late"
		out, err := f.OS.Create(late)
		if err != nil {
			return err
		}
		if _, err := out.Write(content); err != nil {
			_ = out.Close()
			return err
		}
		if err := out.Close(); err != nil {
			return err
		}
		return f.OS.Rename(late, w.path)
	})
}

// brokenBackend opens a Store on dir through a brokenFS of mode.
func brokenBackend(mode brokenMode) porttest.Backend {
	return porttest.Backend{Name: "json-broken", Open: func(t testing.TB, dir string) porttest.Opened {
		bfs := &brokenFS{root: dir, mode: mode, torn: make(chan struct{}), held: map[string][]func() error{},
			userAcked: make(chan struct{})}
		s, err := Open(dir, Options{FS: bfs})
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		return porttest.Opened{Graphs: s, Sessions: s, Close: func() error { return nil }}
	}}
}

// TestCrashCheckCatchesBrokenSaves shows that the kill -9 check of
// porttest.RunCrash can fail: run against a store whose atomic save is
// broken on purpose, it reports the damage, every time; run against the
// same halfway stop inside the store's real tmp + rename, it reports
// nothing.
func TestCrashCheckCatchesBrokenSaves(t *testing.T) {
	const stopped = "acknowledged writes lost after kill -9"
	cases := []struct {
		name string
		mode brokenMode
		// must: each names a problem that must be reported; nil means no
		// problem may be reported.
		must []string
		// allowed: every problem reported must contain one of these;
		// nil allows any.
		allowed []string
		// minimum: how many problems at least (the stop included).
		minimum int
	}{
		{"TornInPlace", tornInPlace, []string{"load user after kill", stopped},
			[]string{"load user after kill", stopped}, 2},
		// Every file the child saved lacks its last acknowledged save,
		// whenever the kill comes; which graphs had one depends on when
		// it came, but the parent kills after at least one
		// acknowledgement, so there is always a loss to find.
		{"AckBeforeWrite", ackBeforeWrite, []string{stopped},
			// A save that is not written breaks its change log too.
			[]string{"acknowledged node", "acknowledged deletion", "op count", "the log holds no entry", "the log's last entry", stopped}, 2},
		{"TornTmpControl", tornTmp, nil, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			problems := porttest.CrashProblems(t, brokenBackend(c.mode), 1)
			for _, p := range problems {
				t.Logf("reported: %s", p)
			}
			if c.must == nil {
				if len(problems) > 0 {
					t.Fatalf("the check reported %d problems on a store whose save is atomic", len(problems))
				}
				return
			}
			if len(problems) == 0 {
				t.Fatal("the crash check reported nothing on a store whose save is broken")
			}
			for _, m := range c.must {
				if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, m) }) {
					t.Errorf("no problem reported names %q", m)
				}
			}
			if len(problems) < c.minimum {
				t.Errorf("%d problems reported, want at least %d", len(problems), c.minimum)
			}
			for _, p := range problems {
				if c.allowed != nil && !slices.ContainsFunc(c.allowed, func(a string) bool { return strings.Contains(p, a) }) {
					t.Errorf("unexpected problem %q; want one naming %q", p, c.allowed)
				}
			}
		})
	}
}
