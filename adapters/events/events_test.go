package events_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/kg-memory/kg/adapters/events"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

func ev(seq uint64) ports.Event {
	return ports.Event{Type: ports.EventNodeUpdated, Level: domain.LevelUser, Seq: seq}
}

// drain reads every event left on a closed or closing subscription.
func drain(t *testing.T, s *events.Subscription) []uint64 {
	t.Helper()
	var got []uint64
	for e := range s.Events() {
		got = append(got, e.Seq)
	}
	return got
}

func TestFanOutInOrder(t *testing.T) {
	h := events.New()
	a, b := h.Subscribe(nil), h.Subscribe(nil)
	for i := uint64(1); i <= 3; i++ {
		h.Publish(ev(i))
	}
	a.Close()
	b.Close()
	for name, s := range map[string]*events.Subscription{"a": a, "b": b} {
		got := drain(t, s)
		if len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 3 {
			t.Errorf("%s got %v, want [1 2 3]", name, got)
		}
		if err := s.Err(); err != nil {
			t.Errorf("%s Err after own Close = %v, want nil", name, err)
		}
	}
	if n := h.Len(); n != 0 {
		t.Errorf("Len after both closed = %d, want 0", n)
	}
}

func TestFilter(t *testing.T) {
	h := events.New()
	odd := h.Subscribe(func(e ports.Event) bool { return e.Seq%2 == 1 })
	for i := uint64(1); i <= 5; i++ {
		h.Publish(ev(i))
	}
	odd.Close()
	got := drain(t, odd)
	if len(got) != 3 || got[0] != 1 || got[1] != 3 || got[2] != 5 {
		t.Errorf("got %v, want [1 3 5]", got)
	}
}

func TestSlowSubscriberDropped(t *testing.T) {
	h := events.New()
	slow := h.Subscribe(nil)
	fast := h.Subscribe(nil)
	var fastGot []uint64
	// Exactly Backlog undelivered events are allowed.
	for i := uint64(1); i <= events.Backlog; i++ {
		h.Publish(ev(i))
		e := <-fast.Events()
		fastGot = append(fastGot, e.Seq)
	}
	if err := slow.Err(); err != nil {
		t.Fatalf("slow dropped at %d behind: %v", events.Backlog, err)
	}
	if n := h.Len(); n != 2 {
		t.Fatalf("Len = %d, want 2", n)
	}
	// One more and it is more than Backlog behind: dropped, without
	// blocking the publisher or disturbing the other subscriber.
	h.Publish(ev(events.Backlog + 1))
	fastGot = append(fastGot, (<-fast.Events()).Seq)
	if err := slow.Err(); !errors.Is(err, events.ErrSlow) {
		t.Fatalf("slow Err = %v, want ErrSlow", err)
	}
	if n := h.Len(); n != 1 {
		t.Fatalf("Len after drop = %d, want 1", n)
	}
	// What was buffered is still readable, then the channel is closed.
	if got := drain(t, slow); len(got) != events.Backlog {
		t.Errorf("slow drained %d events, want %d", len(got), events.Backlog)
	}
	h.Publish(ev(events.Backlog + 2))
	fastGot = append(fastGot, (<-fast.Events()).Seq)
	for i, seq := range fastGot {
		if seq != uint64(i+1) {
			t.Fatalf("fast got seq %d at %d, want %d", seq, i, i+1)
		}
	}
	slow.Close() // closing a dropped subscription is harmless
	if err := slow.Err(); !errors.Is(err, events.ErrSlow) {
		t.Errorf("Err after Close of a dropped subscription = %v, want ErrSlow", err)
	}
}

// A publisher never waits, even with a subscriber that never reads.
func TestPublishNeverBlocks(t *testing.T) {
	h := events.New()
	stuck := h.Subscribe(nil)
	for i := uint64(1); i <= 10*events.Backlog; i++ {
		h.Publish(ev(i))
	}
	if !errors.Is(stuck.Err(), events.ErrSlow) {
		t.Errorf("stuck subscriber not dropped: %v", stuck.Err())
	}
}

func TestHubClose(t *testing.T) {
	h := events.New()
	s := h.Subscribe(nil)
	h.Publish(ev(1))
	h.Close()
	if got := drain(t, s); len(got) != 1 {
		t.Errorf("buffered before Close: got %v, want [1]", got)
	}
	if !errors.Is(s.Err(), events.ErrClosed) {
		t.Errorf("Err = %v, want ErrClosed", s.Err())
	}
	h.Publish(ev(2)) // no-op, no panic
	late := h.Subscribe(nil)
	if _, ok := <-late.Events(); ok || !errors.Is(late.Err(), events.ErrClosed) {
		t.Errorf("Subscribe after Close: open=%v err=%v, want closed with ErrClosed", ok, late.Err())
	}
	s.Close()
}

// Concurrent publishers, subscribers that come and go, and readers: run
// with -race, it checks that no send reaches a closed channel.
func TestConcurrent(t *testing.T) {
	h := events.New()
	var wg sync.WaitGroup
	for p := range 4 {
		wg.Go(func() {
			for i := range 500 {
				h.Publish(ev(uint64(p*1000 + i)))
			}
		})
	}
	for range 8 {
		wg.Go(func() {
			for range 20 {
				s := h.Subscribe(nil)
				// Read only what is there: the publishers may be done.
			read:
				for range 10 {
					select {
					case _, ok := <-s.Events():
						if !ok {
							break read
						}
					default:
					}
				}
				s.Close()
			}
		})
	}
	wg.Wait()
	h.Close()
}
