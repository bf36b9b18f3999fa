package bolt_test

import (
	"errors"
	"testing"

	"github.com/kg-memory/kg/adapters/storage/bolt"
	"github.com/kg-memory/kg/ports/porttest"
)

// backend opens a Store on dir for the contract suites.
var backend = porttest.Backend{Name: "bolt", Open: func(t testing.TB, dir string) porttest.Opened {
	t.Helper()
	s, err := bolt.Open(t.Context(), dir, bolt.Options{})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return porttest.Opened{Graphs: s, Sessions: s, InjectFault: s.InjectFault, Close: func() error {
		// bbolt's own consistency check after every case, then close
		// whatever it found.
		return errors.Join(s.Check(), s.Close())
	}}
}}

func TestContract(t *testing.T) { porttest.Run(t, backend) }

// TestCrash kills a writing child process with SIGKILL and checks that every
// acknowledged write survived (porttest.RunCrash).
// It runs beside the other tests: its rounds spend their time starting
// child processes, not on the CPU.
func TestCrash(t *testing.T) {
	t.Parallel()
	porttest.RunCrash(t, backend, 15)
}

// TestMoveProject runs the move suite of `kg project mv` (porttest).
func TestMoveProject(t *testing.T) { porttest.RunMoveProject(t, backend) }

// TestRemoveProject runs the suite of `kg project rm` (porttest).
func TestRemoveProject(t *testing.T) { porttest.RunRemoveProject(t, backend) }
