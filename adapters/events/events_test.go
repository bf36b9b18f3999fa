package events_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

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
		h.Publish(ports.One(ev(i)))
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
		h.Publish(ports.One(ev(i)))
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
	// Exactly Backlog undelivered events are allowed: the last of them is
	// the graph_replaced that stands for the write that would have taken the
	// last place.
	for i := uint64(1); i <= events.Backlog; i++ {
		h.Publish(ports.One(ev(i)))
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
	h.Publish(ports.One(ev(events.Backlog + 1)))
	fastGot = append(fastGot, (<-fast.Events()).Seq)
	if err := slow.Err(); !errors.Is(err, events.ErrSlow) {
		t.Fatalf("slow Err = %v, want ErrSlow", err)
	}
	if n := h.Len(); n != 1 {
		t.Fatalf("Len after drop = %d, want 1", n)
	}
	// What was buffered is still readable, then the channel is closed.
	if got := drain(t, slow); len(got) != events.Backlog || got[events.Backlog-2] != events.Backlog-1 || got[events.Backlog-1] != events.Backlog {
		t.Errorf("slow drained %v, want seqs 1…%d (the last the replacement of write %[2]d)", got, events.Backlog)
	}
	h.Publish(ports.One(ev(events.Backlog + 2)))
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
		h.Publish(ports.One(ev(i)))
	}
	if !errors.Is(stuck.Err(), events.ErrSlow) {
		t.Errorf("stuck subscriber not dropped: %v", stuck.Err())
	}
}

func TestHubClose(t *testing.T) {
	h := events.New()
	s := h.Subscribe(nil)
	h.Publish(ports.One(ev(1)))
	h.Close()
	if got := drain(t, s); len(got) != 1 {
		t.Errorf("buffered before Close: got %v, want [1]", got)
	}
	if !errors.Is(s.Err(), events.ErrClosed) {
		t.Errorf("Err = %v, want ErrClosed", s.Err())
	}
	h.Publish(ports.One(ev(2))) // no-op, no panic
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
				h.Publish(ports.One(ev(uint64(p*1000 + i))))
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

// batch returns the events of one write: n puts of one graph, from seq.
func batch(from uint64, n int) []ports.Event {
	evs := make([]ports.Event, n)
	for i := range evs {
		evs[i] = ports.Event{Type: ports.EventNodeUpdated, Level: domain.LevelProject, Project: "/p",
			Seq: from + uint64(i), SourceSession: "S"}
	}
	return evs
}

// A write whose events would fill a subscriber's queue sends it as many as
// fit but one, then one graph_replaced event (re-read) for the rest, in the
// place kept for it, instead of dropping it: an import larger than the
// backlog, or a write reaching a subscriber already behind. Only one whose
// queue is full when a write begins is dropped.
func TestWriteWithoutRoomIsOneGraphReplaced(t *testing.T) {
	h := events.New()
	big := h.Subscribe(nil)
	behind := h.Subscribe(nil)
	own := h.Subscribe(func(e ports.Event) bool { return e.SourceSession != "S" })
	h.Publish(slices.Values(batch(1, events.Backlog-1))) // fits everyone, leaves one place
	if got := len(drain1(big, events.Backlog-1)); got != events.Backlog-1 {
		t.Fatalf("big got %d events", got)
	}

	// An import larger than the backlog, read once as it is published.
	reads := 0
	h.Publish(func(yield func(ports.Event) bool) {
		for _, ev := range batch(events.Backlog, 2*events.Backlog) {
			reads++
			if !yield(ev) {
				return
			}
		}
	})
	if reads != 2*events.Backlog {
		t.Errorf("the sequence was read for %d events, want all %d", reads, 2*events.Backlog)
	}
	for name, s := range map[string]*events.Subscription{"big": big, "behind": behind} {
		if s.Err() != nil {
			t.Fatalf("%s dropped: %v", name, s.Err())
		}
	}
	// big had room for all but one: that many items, then the replacement
	// of the rest, of its graph, at the write's last seq, by its session.
	got := drain1(big, events.Backlog+1)
	if len(got) != events.Backlog || got[0].Seq != events.Backlog || got[events.Backlog-2].Type != ports.EventNodeUpdated {
		t.Fatalf("big got %d events, first %+v", len(got), got[0])
	}
	want := ports.Event{Type: ports.EventGraphReplaced, Level: domain.LevelProject, Project: "/p",
		Seq: 3*events.Backlog - 1, SourceSession: "S", Replaced: events.Backlog + 1}
	if last := got[events.Backlog-1]; !reflect.DeepEqual(last, want) {
		t.Errorf("big's last event = %+v, want %+v", last, want)
	}
	// A subscriber that wants none of them hears nothing.
	select {
	case e := <-own.Events():
		t.Errorf("own got %+v", e)
	default:
	}

	// behind had one place left, now taken by the replacement: the next
	// write finds it full, and drops it.
	h.Publish(slices.Values(batch(4*events.Backlog, 3)))
	if !errors.Is(behind.Err(), events.ErrSlow) {
		t.Errorf("behind, full, Err = %v, want ErrSlow", behind.Err())
	}
	got = drain1(behind, events.Backlog+1)
	if len(got) != events.Backlog || got[events.Backlog-1].Type != ports.EventGraphReplaced || got[events.Backlog-2].Seq != events.Backlog-1 ||
		got[events.Backlog-1].Replaced != 2*events.Backlog {
		t.Errorf("behind got %d events, last %+v", len(got), got[len(got)-1])
	}
	// Writes that fit come item by item.
	if got := drain1(big, 4); len(got) != 3 || got[0].Seq != 4*events.Backlog || got[2].Type != ports.EventNodeUpdated {
		t.Errorf("big after the replacement got %+v", got)
	}
	for _, s := range []*events.Subscription{big, behind, own} {
		s.Close()
	}
}

// drain1 reads n events that must already be there.
func drain1(s *events.Subscription, n int) []ports.Event {
	var got []ports.Event
	for range n {
		select {
		case e, ok := <-s.Events():
			if !ok {
				return got
			}
			got = append(got, e)
		default:
			return got
		}
	}
	return got
}

// Drain waits for every owner to let go of its subscription after Close:
// the sockets say goodbye before the server exits.
func TestDrainWaitsForOwners(t *testing.T) {
	h := events.New()
	if n := h.Drain(context.Background()); n != 0 {
		t.Fatalf("Drain with no subscriber = %d", n)
	}
	a, b := h.Subscribe(nil), h.Subscribe(nil)
	h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if n := h.Drain(ctx); n != 2 {
		t.Fatalf("Drain before the owners let go = %d, want 2", n)
	}
	a.Close()
	a.Close() // twice counts once
	done := make(chan int)
	go func() { done <- h.Drain(context.Background()) }()
	select {
	case n := <-done:
		t.Fatalf("Drain returned %d while b is held", n)
	case <-time.After(20 * time.Millisecond):
	}
	b.Close()
	if n := <-done; n != 0 {
		t.Errorf("Drain = %d, want 0", n)
	}
}
