package jsonfile

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kg-memory/kg/domain"
)

// syncCounts is a SyncTimer that counts what it is told.
type syncCounts struct {
	mu          sync.Mutex
	files, dirs int
}

func (c *syncCounts) FileSynced(time.Duration) { c.mu.Lock(); c.files++; c.mu.Unlock() }
func (c *syncCounts) DirSynced(time.Duration)  { c.mu.Lock(); c.dirs++; c.mu.Unlock() }

func (c *syncCounts) get() (files, dirs int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.files, c.dirs
}

// countOps counts the recorded operations named op ("fsync", "fsyncdir").
func countOps(ops []string, op string) int {
	n := 0
	for _, o := range ops {
		if strings.HasPrefix(o, op+" ") {
			n++
		}
	}
	return n
}

// TestTimeSyncsTimesEveryFsync commits through a timed file system, first
// on a healthy disk and then on a full one, and checks that the timer was
// told of exactly the file and folder fsyncs the store made, failed ones
// included, and that the errors still reach the store.
func TestTimeSyncsTimesEveryFsync(t *testing.T) {
	root := t.TempDir()
	tfs := &testFS{root: root}
	counts := &syncCounts{}
	s, err := Open(root, Options{FS: TimeSyncs(tfs, counts)})
	if err != nil {
		t.Fatal(err)
	}
	k := domain.ProjectGraph("/home/dev/app")
	g := oneNode(t, k, "a")
	tfs.takeOps()
	if err := s.Commit(t.Context(), k, g, g.Pending()); err != nil {
		t.Fatal(err)
	}
	ops := tfs.takeOps()
	files, dirs := counts.get()
	if want := countOps(ops, "fsync"); files != want || want == 0 {
		t.Errorf("timed %d file fsyncs, the store made %d: %q", files, want, ops)
	}
	if want := countOps(ops, "fsyncdir"); dirs != want || want == 0 {
		t.Errorf("timed %d folder fsyncs, the store made %d: %q", dirs, want, ops)
	}

	g.Checkpoint()
	tfs.takeOps()
	if _, err := g.PutNode(domain.NodeInput{ID: "b", Gist: "second"}, domain.Stamp{Now: 1716400001_000000}); err != nil {
		t.Fatal(err)
	}
	tfs.fail = func(op, _ string) error {
		if op == "fsync" {
			return syscall.ENOSPC
		}
		return nil
	}
	if err := s.Commit(t.Context(), k, g, g.Pending()); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("commit on a full disk: %v, want it to wrap ENOSPC", err)
	}
	// The record's fsync fails, and so does that of cutting it off.
	if files2, _ := counts.get(); files2-files != countOps(tfs.takeOps(), "fsync") {
		t.Errorf("the failed fsyncs were timed %d times, want each once", files2-files)
	}
}

// TestTimeSyncsWrapsEveryFileOpener calls each method of FS that returns a
// File through the timed file system and syncs the file: each must come
// back timed. A method the FS interface gains that opens files (the
// journal's Append) fails here until TimeSyncs wraps it, instead of
// leaving its fsyncs out of the metrics unnoticed.
func TestTimeSyncsWrapsEveryFileOpener(t *testing.T) {
	dir := t.TempDir()
	counts := &syncCounts{}
	timed := reflect.ValueOf(TimeSyncs(OS{}, counts))
	fileType := reflect.TypeFor[File]()
	fsType := reflect.TypeFor[FS]()
	openers := 0
	for i := range fsType.NumMethod() {
		m := fsType.Method(i)
		if m.Type.NumOut() != 2 || m.Type.Out(0) != fileType {
			continue
		}
		openers++
		t.Run(m.Name, func(t *testing.T) {
			args := make([]reflect.Value, m.Type.NumIn())
			for j := range args {
				if m.Type.In(j).Kind() != reflect.String {
					t.Fatalf("%s takes a %s; teach this test to call it", m.Name, m.Type.In(j))
				}
				args[j] = reflect.ValueOf(filepath.Join(dir, m.Name))
			}
			out := timed.MethodByName(m.Name).Call(args)
			if err, _ := out[1].Interface().(error); err != nil {
				t.Fatalf("%s: %v", m.Name, err)
			}
			f := out[0].Interface().(File)
			defer f.Close()
			before, _ := counts.get()
			if err := f.Sync(); err != nil {
				t.Fatal(err)
			}
			if after, _ := counts.get(); after != before+1 {
				t.Errorf("the Sync of a file from %s was not timed", m.Name)
			}
		})
	}
	if openers == 0 {
		t.Fatal("FS has no method that returns a File; the test proves nothing")
	}
}
