package sessiontable

import (
	"context"

	"github.com/kg-memory/kg/app/hookstate"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Sessions across servers (docs/design/team.md#sessions-across-servers):
// a session another server started is looked up in the repository the
// first time it reaches this one, and a sync reads the stored watermarks
// first and stores the moved ones at once, so a session that hops between
// servers neither misses nor repeats a change.

// Ensure makes the session id live here when another server stored it.
func (t *Table) Ensure(ctx context.Context, id string) error {
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
	t.Adopt(stored) // its hook state and binding with it
	return nil
}

// Pull merges the stored record of session id into the live one, every
// counter and watermark forward only.
func (t *Table) Pull(ctx context.Context, id string) error {
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

// Push stores the live record of session id now.
func (t *Table) Push(ctx context.Context, id string) error {
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

// HookPull merges into the table what the database holds of session id
// (team mode): the marks and the seen set other servers stored for it. A
// database that cannot be reached leaves the server with what it holds,
// logged.
func (t *Table) HookPull(ctx context.Context, id string) {
	if t.shared == nil {
		return
	}
	stored, found, err := t.shared.LoadSession(ctx, id)
	if err != nil {
		t.log.Warn("could not read the session from the database; serving what this server holds", "session", id, "err", err)
		return
	}
	if found {
		stored.ID = id
		t.Adopt(stored)
	}
}

// HookStore stores session id at once in team mode, hook state included,
// after a hook changed it. A failure is logged: the maintenance tick saves
// it again.
func (t *Table) HookStore(ctx context.Context, id string) {
	if t.shared == nil || id == "" {
		return
	}
	if err := t.Push(ctx, id); err != nil {
		t.log.Warn("hook: could not store the session in the database; the next save will", "session", id, "err", err)
	}
}

// Adopt merges a session another server stored into the table: a session
// not live here becomes live, with its hook state and binding; one live
// here takes the stored record's counters and watermarks forward only and
// merges its hook state (hookstate.State.Merge).
func (t *Table) Adopt(stored ports.Session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	id := stored.ID
	hooks := stored.Hooks
	stored.Hooks = ports.HookState{}
	if s, ok := t.live[id]; ok {
		takeForward(s, stored)
	} else {
		c := copySession(stored)
		t.live[id] = &c
		t.order.add(id, c.LastActivity)
	}
	if hooks.Empty() {
		return
	}
	h := t.hooks[id]
	if h == nil {
		h = hookstate.New(hooks)
		t.hooks[id] = h
	} else {
		h.Merge(hooks)
	}
	if h.Claude != "" {
		if prev, ok := t.byClaude[h.Claude]; !ok || prev == id || t.live[prev] == nil || t.live[prev].LastActivity <= t.live[id].LastActivity {
			t.byClaude[h.Claude] = id
		}
	}
}
