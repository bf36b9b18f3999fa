// Package events is the in-process sink of the events port: committed
// changes are fanned out to subscribers (the WebSocket, later) over one
// buffered channel each.
//
// Publish never blocks a write. When one write's events would fill a
// subscriber's channel — a large import its client cannot read as fast, or
// a write reaching it already behind — the rest of them are replaced by one
// graph_replaced event in its last place, which tells the client to re-read
// the graph. A subscriber whose channel is full when a write reaches it —
// it has fallen Backlog events behind — is dropped instead of waited for:
// its channel is closed and Err reports ErrSlow, so its owner can close the
// socket (code 1008) and let the client reconnect and re-read
// (docs/design/sync.md#live-events).
package events

import (
	"context"
	"errors"
	"iter"
	"sync"

	"github.com/kg-memory/kg/ports"
)

// Backlog is how many undelivered events a subscriber may hold before it is
// dropped (docs/design/sync.md#live-events).
const Backlog = 256

var _ ports.Events = (*Hub)(nil)

// Errors a subscription ends with.
var (
	// ErrSlow means the subscriber fell more than Backlog events behind.
	ErrSlow = errors.New("events: subscriber fell too far behind and was dropped")
	// ErrClosed means the hub was closed (server shutdown).
	ErrClosed = errors.New("events: hub closed")
)

// Hub fans events out to subscribers. The zero value is not usable; call
// New. It is safe for concurrent use.
type Hub struct {
	mu     sync.Mutex
	subs   map[*Subscription]struct{}
	closed bool
	// held counts the subscriptions their owners have not closed yet,
	// dropped or not; idle is closed whenever held is 0.
	held int
	idle chan struct{}
}

// New returns a hub with no subscribers.
func New() *Hub {
	idle := make(chan struct{})
	close(idle)
	return &Hub{subs: make(map[*Subscription]struct{}), idle: idle}
}

// Subscription is one subscriber's stream of events.
type Subscription struct {
	hub    *Hub
	filter func(ports.Event) bool
	c      chan ports.Event
	err    error // set under hub.mu when c is closed; nil while open
	held   bool  // counted in hub.held until its owner's Close
}

// Subscribe registers a subscriber. filter chooses the events it wants
// (routing by project, skipping its own session's changes); nil means
// every event. filter runs inside Publish, under the hub's lock, so it must
// be quick and must not call back into the hub. After the hub is closed,
// Subscribe returns a subscription that is already closed.
func (h *Hub) Subscribe(filter func(ports.Event) bool) *Subscription {
	s := &Subscription{hub: h, filter: filter, c: make(chan ports.Event, Backlog)}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		s.end(ErrClosed)
		return s
	}
	h.subs[s] = struct{}{}
	s.held = true
	if h.held == 0 {
		h.idle = make(chan struct{})
	}
	h.held++
	return s
}

// Publish hands the events of one write (in order, all of one graph) to
// every subscriber that wants them, without blocking, reading the sequence
// once, as it goes. A subscriber's last free place is kept for one
// graph_replaced event: when this write's events would take it, the rest of
// them are counted instead of sent, and the graph_replaced that stands for
// them goes in that place at the end, which tells the subscriber to re-read
// the graph (a large import does this). A subscriber with no free place when
// the write reaches it is dropped. Events pass by value, but their pointer
// fields are shared by all subscribers, who must not modify them.
func (h *Hub) Publish(evs iter.Seq[ports.Event]) {
	var over map[*Subscription]*ports.Event // the graph_replaced of each subscriber cut short
	for ev := range evs {
		h.mu.Lock()
		for s := range h.subs {
			if s.filter != nil && !s.filter(ev) {
				continue
			}
			if r := over[s]; r != nil {
				r.Replaced++
				r.Seq = max(r.Seq, ev.Seq)
				continue
			}
			switch room := cap(s.c) - len(s.c); { // only sends change len, and they hold h.mu
			case room > 1:
				s.c <- ev
			case room == 1:
				if over == nil {
					over = map[*Subscription]*ports.Event{}
				}
				over[s] = &ports.Event{Type: ports.EventGraphReplaced, Level: ev.Level, Project: ev.Project,
					Seq: ev.Seq, SourceSession: ev.SourceSession, Replaced: 1}
			default:
				delete(h.subs, s)
				s.end(ErrSlow)
			}
		}
		h.mu.Unlock()
	}
	if len(over) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for s, r := range over {
		if _, ok := h.subs[s]; !ok {
			continue // closed or dropped meanwhile
		}
		select {
		case s.c <- *r:
		default: // another graph's write took the place meanwhile
			delete(h.subs, s)
			s.end(ErrSlow)
		}
	}
}

// Len returns the number of live subscribers (for metrics and tests).
func (h *Hub) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// Close ends every subscription with ErrClosed and makes later Publish
// calls no-ops. It is called at shutdown, after the last write; Drain then
// waits for the owners to finish.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for s := range h.subs {
		delete(h.subs, s)
		s.end(ErrClosed)
	}
}

// end closes the channel once; the caller holds hub.mu, which is also held
// by every send, so no send can hit a closed channel.
func (s *Subscription) end(err error) {
	if s.err != nil {
		return
	}
	s.err = err
	close(s.c)
}

// Events returns the channel the subscriber reads. It is closed when the
// subscription ends (Close, dropped for being slow, hub closed); events
// already buffered are still delivered before it reads as closed.
func (s *Subscription) Events() <-chan ports.Event { return s.c }

// Err returns why the subscription ended: ErrSlow, ErrClosed, or nil while
// it is open or after the subscriber's own Close.
func (s *Subscription) Err() error {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	if errors.Is(s.err, errUnsubscribed) {
		return nil
	}
	return s.err
}

// errUnsubscribed marks a subscription its owner closed; Err hides it,
// since ending on purpose is not a failure.
var errUnsubscribed = errors.New("events: unsubscribed")

// Close ends the subscription. It is safe to call more than once and after
// the subscription was dropped. Its owner calls it once it is done with the
// subscription (a socket has sent its last frame), which is what Drain
// waits for.
func (s *Subscription) Close() {
	h := s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.subs, s)
	s.end(errUnsubscribed)
	if s.held {
		s.held = false
		if h.held--; h.held == 0 {
			close(h.idle)
		}
	}
}

// Drain waits until the owner of every subscription has closed it — at
// shutdown, after Close, until each socket has told its client that the
// server is stopping — or until ctx ends. It returns how many were still
// open then.
func (h *Hub) Drain(ctx context.Context) int {
	h.mu.Lock()
	idle := h.idle
	h.mu.Unlock()
	select {
	case <-idle:
		return 0
	case <-ctx.Done():
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.held
	}
}
