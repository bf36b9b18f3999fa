package memory_test

import (
	"sync"
	"testing"

	"github.com/kg-memory/kg/adapters/storage/memory"
	"github.com/kg-memory/kg/ports/porttest"
)

// backend opens the store of dir: a reopen of the same dir sees the same
// data.
func backend() porttest.Backend {
	var stores sync.Map // dir → *memory.Store
	return porttest.Backend{Name: "memory", Open: func(_ testing.TB, dir string) porttest.Opened {
		v, _ := stores.LoadOrStore(dir, memory.New())
		s := v.(*memory.Store)
		return porttest.Opened{Graphs: s, Sessions: s, Close: func() error { return nil }, InjectFault: func(err error) {
			if err == nil {
				s.InjectFault(nil)
				return
			}
			s.InjectFault(func(string) error { return err })
		}}
	}}
}

func TestContract(t *testing.T) { porttest.Run(t, backend()) }

// TestRemoveProject runs the suite of `kg project rm` (porttest).
func TestRemoveProject(t *testing.T) { porttest.RunRemoveProject(t, backend()) }
