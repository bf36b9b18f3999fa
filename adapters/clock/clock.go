// Package clock provides the system clock and a settable clock for tests.
package clock

import (
	"sync"
	"time"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var (
	_ ports.Clock = System{}
	_ ports.Clock = (*Manual)(nil)
)

// System reads the wall clock.
type System struct{}

// Now returns the current time.
func (System) Now() domain.Micros { return domain.Micros(time.Now().UnixMicro()) }

// Manual is a clock that only moves when told to. It is safe for concurrent
// use.
type Manual struct {
	mu  sync.Mutex
	now domain.Micros
}

// NewManual returns a clock stopped at t.
func NewManual(t time.Time) *Manual { return &Manual{now: domain.Micros(t.UnixMicro())} }

// Now returns the clock's time.
func (c *Manual) Now() domain.Micros {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t.
func (c *Manual) Set(t domain.Micros) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Advance moves the clock forward by d.
func (c *Manual) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now += domain.Micros(d.Microseconds())
}
