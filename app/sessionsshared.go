package app

import (
	"context"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Sessions across servers (docs/design/team.md#sessions-across-servers):
// a session another server started is looked up in the repository the
// first time it reaches this one, and a sync reads the stored watermarks
// first and stores the moved ones at once, so a session that hops between
// servers neither misses nor repeats a change.

// ensure makes the session id live here when another server stored it.
func (t *sessionTable) ensure(ctx context.Context, id string) error {
	if t.shared == nil || id == "" {
		return nil
	}
	t.mu.Lock()
	_, ok := t.live[id]
	t.mu.Unlock()
	if ok {
		return nil
	}
	stored, found, err := t.shared.LoadSession(ctx, id)
	if err != nil || !found {
		return err // not found: the lookup that follows says it is unknown
	}
	stored.ID = id
	t.adopt(stored) // its hook state and binding with it
	return nil
}

// pull merges the stored record of session id into the live one, every
// counter and watermark forward only.
func (t *sessionTable) pull(ctx context.Context, id string) error {
	if t.shared == nil {
		return nil
	}
	stored, found, err := t.shared.LoadSession(ctx, id)
	if err != nil || !found {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.live[id]
	if !ok {
		return nil
	}
	takeForward(s, stored)
	return nil
}

// takeForward moves the live session s's counters and watermarks to the
// stored record's where those are further on, never back: two servers may
// each have counted what the other has not seen yet
// (docs/design/team.md).
func takeForward(s *ports.Session, stored ports.Session) {
	s.LastActivity = max(s.LastActivity, stored.LastActivity)
	s.OpCount = max(s.OpCount, stored.OpCount)
	s.LastSyncedTS = max(s.LastSyncedTS, stored.LastSyncedTS)
	for k, w := range stored.Synced {
		if s.Synced == nil {
			s.Synced = map[domain.GraphKey]uint64{}
		}
		s.Synced[k] = max(s.Synced[k], w)
	}
}

// push stores the live record of session id now.
func (t *sessionTable) push(ctx context.Context, id string) error {
	if t.shared == nil {
		return nil
	}
	t.mu.Lock()
	s, ok := t.live[id]
	var c ports.Session
	if ok {
		c = copySession(*s)
		if h := t.hooks[id]; h != nil {
			c.Hooks = h.Export() // stored whole: without it the stored hook state would go
		}
	}
	t.mu.Unlock()
	if !ok {
		return nil
	}
	return t.shared.SaveSession(ctx, c)
}
