package jsonfile

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kg-memory/kg/ports/porttest"
)

// backend opens a Store on dir through a testFS, whose faults are the
// suite's InjectFault.
var backend = porttest.Backend{Name: "json", Open: func(t testing.TB, dir string) porttest.Opened {
	tfs := &testFS{root: dir}
	s, err := Open(dir, Options{FS: tfs})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return porttest.Opened{Graphs: s, Sessions: s, Close: func() error { return nil }, InjectFault: tfs.setFault,
		KillAt: tfs.killAfter, Steps: tfs.stepCount}
}, SetAside: setAside}

// setAside lists the files under dir the store set aside as damaged: its
// .corrupt-<unix time> copies.
func setAside(t testing.TB, dir string) []string {
	var kept []string
	err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err == nil && strings.Contains(filepath.Base(p), ".corrupt-") {
			kept = append(kept, p)
		}
		return err
	})
	if err != nil {
		t.Fatalf("list %s: %v", dir, err)
	}
	return kept
}

func TestContract(t *testing.T) { porttest.Run(t, backend) }

// TestCrash runs beside the other tests: its rounds spend their time
// starting child processes, not on the CPU.
func TestCrash(t *testing.T) {
	t.Parallel()
	porttest.RunCrash(t, backend, 60)
}

func TestStepCrash(t *testing.T) { porttest.RunStepCrash(t, backend) }

// TestMoveProject runs the move suite of `kg project mv` (porttest).
func TestMoveProject(t *testing.T) { porttest.RunMoveProject(t, backend) }

// TestRemoveProject runs the suite of `kg project rm` (porttest).
func TestRemoveProject(t *testing.T) { porttest.RunRemoveProject(t, backend) }
