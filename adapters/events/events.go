// Package events is the in-process sink of the events port: committed
// changes are fanned out to subscribers (the WebSocket, later) over one
// buffered channel each.
//
// Publish never blocks a write. A subscriber whose channel is full — it has
// fallen Backlog events behind — is dropped instead of waited for: its channel
// is closed and Err reports ErrSlow, so its owner can close the socket (code
// 1008) and let the client reconnect and re-read
// (docs/design/sync.md#live-events).
package events

import (
	"errors"
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
}

// New returns a hub with no subscribers.
func New() *Hub {
	return &Hub{subs: make(map[*Subscription]struct{})}
}

// Subscription is one subscriber's stream of events.
type Subscription struct {
	hub    *Hub
	filter func(ports.Event) bool
	c      chan ports.Event
	err    error // set under hub.mu when c is closed; nil while open
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
	return s
}

// Publish hands ev to every subscriber that wants it, without blocking: a
// subscriber with no room left is dropped. Events pass by value, but their
// pointer fields are shared by all subscribers, who must not modify them.
func (h *Hub) Publish(ev ports.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		if s.filter != nil && !s.filter(ev) {
			continue
		}
		select {
		case s.c <- ev:
		default:
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
// calls no-ops. It is called at shutdown, after the last write.
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
// the subscription was dropped.
func (s *Subscription) Close() {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	delete(s.hub.subs, s)
	s.end(errUnsubscribed)
}
