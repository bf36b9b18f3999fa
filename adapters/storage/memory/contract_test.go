package memory_test

import (
	"sync"
	"testing"

	"github.com/kg-memory/kg/adapters/storage/memory"
	"github.com/kg-memory/kg/ports/porttest"
)

func TestContract(t *testing.T) {
	var stores sync.Map // dir → *memory.Store: a reopen of the same dir sees the same data
	porttest.Run(t, porttest.Backend{Name: "memory", Open: func(_ testing.TB, dir string) porttest.Opened {
		v, _ := stores.LoadOrStore(dir, memory.New())
		s := v.(*memory.Store)
		return porttest.Opened{Graphs: s, Sessions: s, Close: func() error { return nil }, InjectFault: func(err error) {
			if err == nil {
				s.InjectFault(nil)
				return
			}
			s.InjectFault(func(string) error { return err })
		}}
	}})
}
