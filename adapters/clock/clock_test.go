package clock

import (
	"sync"
	"testing"
	"time"

	"github.com/kg-memory/kg/domain"
)

func TestManualMovesOnlyWhenTold(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	c := NewManual(start)
	if got, want := c.Now(), domain.Micros(start.UnixMicro()); got != want {
		t.Fatalf("Now() = %d, want %d", got, want)
	}
	c.Advance(90 * time.Second)
	if got, want := c.Now(), domain.Micros(start.Add(90*time.Second).UnixMicro()); got != want {
		t.Fatalf("after Advance: Now() = %d, want %d", got, want)
	}
	c.Set(42)
	if got := c.Now(); got != 42 {
		t.Fatalf("after Set: Now() = %d, want 42", got)
	}
}

func TestManualIsSafeForConcurrentUse(t *testing.T) {
	c := NewManual(time.Unix(0, 0))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				c.Advance(time.Microsecond)
				_ = c.Now()
			}
		})
	}
	wg.Wait()
	if got := c.Now(); got != 800 {
		t.Fatalf("Now() = %d after 800 advances of 1µs, want 800", got)
	}
}

func TestSystemReadsTheWallClock(t *testing.T) {
	before := time.Now().UnixMicro()
	got := int64(System{}.Now())
	after := time.Now().UnixMicro()
	if got < before || got > after {
		t.Fatalf("System.Now() = %d, not within [%d, %d]", got, before, after)
	}
}
