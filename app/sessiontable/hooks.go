package sessiontable

import (
	"github.com/kg-memory/kg/app/hookstate"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// The session table's part for the hook routes
// (docs/design/hooks.md#sessions-and-the-seen-set): the binding to a Claude
// session, the seen set and the nudge state. A change is saved with the
// next save of the sessions, like an activity count.

// hooksLocked returns the hook state of session id, creating it; t.mu held.
func (t *Table) hooksLocked(id string) *hookstate.State {
	h := t.hooks[id]
	if h == nil {
		h = hookstate.New(ports.HookState{})
		t.hooks[id] = h
	}
	return h
}

// bindLocked binds session id to the Claude session claude, taking the
// binding from any session that held it: one conversation, one session.
// t.mu held.
func (t *Table) bindLocked(id, claude string) {
	if prev, ok := t.byClaude[claude]; ok && prev != id {
		if h := t.hooks[prev]; h != nil {
			h.Claude = ""
			t.markChanged(prev)
		}
	}
	h := t.hooksLocked(id)
	if h.Claude != "" && h.Claude != claude && t.byClaude[h.Claude] == id {
		delete(t.byClaude, h.Claude)
	}
	h.Claude = claude
	t.byClaude[claude] = id
	t.markChanged(id)
}

// Bound returns the session of principal bound to the Claude session
// claude, live or dormant, if any; an expired one past its keeping is
// dropped. A session of another principal (team mode) is none.
func (t *Table) Bound(claude, principal string, now domain.Micros) (ports.Session, bool) {
	if claude == "" {
		return ports.Session{}, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	id, ok := t.byClaude[claude]
	if !ok {
		return ports.Session{}, false
	}
	s := t.live[id]
	if s == nil {
		delete(t.byClaude, claude)
		return ports.Session{}, false
	}
	if s.Principal != principal {
		return ports.Session{}, false
	}
	if t.expired(s, now) && !t.dormant(s, now) {
		t.markGone(id)
		return ports.Session{}, false
	}
	return copySession(*s), true
}

// Revive makes session id active at now, whether live or dormant, binding
// it to claude when claude is not empty, and returns it. Its watermarks
// and seen set are kept: that is what reviving is for.
func (t *Table) Revive(id, claude string, now domain.Micros) (ports.Session, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.live[id]
	if !ok || t.expired(s, now) && !t.dormant(s, now) {
		if ok {
			t.markGone(id)
		}
		return ports.Session{}, Unknown(id)
	}
	s.LastActivity = max(s.LastActivity, now)
	t.markChanged(id)
	if claude != "" {
		t.bindLocked(id, claude)
	}
	return copySession(*s), nil
}

// MostRecent returns the most recently active live session of project
// started by principal (ties: the smallest id): in team mode a person's
// hooks never name another's session. It looks at every live session: a
// hook asks it once per call, and 10,000 sessions are read in well under a
// millisecond.
func (t *Table) MostRecent(project, principal string, now domain.Micros) (ports.Session, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var best *ports.Session
	for _, s := range t.live {
		if s.ProjectPath != project || s.Principal != principal || t.expired(s, now) {
			continue
		}
		if best == nil || s.LastActivity > best.LastActivity || s.LastActivity == best.LastActivity && s.ID < best.ID {
			best = s
		}
	}
	if best == nil {
		return ports.Session{}, false
	}
	return copySession(*best), true
}

// WithHooks runs fn on the hook state of live session id under the table's
// lock and saves what it changed with the next save: fn reports whether it
// changed anything. A session that went meanwhile is left alone (false).
func (t *Table) WithHooks(id string, fn func(h *hookstate.State) bool) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.live[id]; !ok {
		return false
	}
	if fn(t.hooksLocked(id)) {
		t.markChanged(id)
	}
	return true
}

// HookView returns a copy of the stored form of session id's hook state,
// for reading it outside the lock; ok is false for a session not live.
func (t *Table) HookView(id string) (ports.HookState, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.live[id]; !ok {
		return ports.HookState{}, false
	}
	h := t.hooks[id]
	if h == nil {
		return ports.HookState{}, true
	}
	out := h.Export()
	out.Seen = nil // the caller asks has() for the few it needs
	return out, true
}

// See adds the nodes keys (SeenKey) to session id's seen set: what was just
// shown to it. An empty id (a call without a session) is no session.
func (t *Table) See(id string, keys ...string) {
	if id == "" || len(keys) == 0 {
		return
	}
	t.WithHooks(id, func(h *hookstate.State) bool {
		for _, k := range keys {
			h.See(k)
		}
		return true
	})
}

// SawFullRead records a full read of session id: the nodes it showed join
// the seen set and the session counts as having read its memory.
func (t *Table) SawFullRead(id string, keys []string) {
	t.WithHooks(id, func(h *hookstate.State) bool {
		for _, k := range keys {
			h.See(k)
		}
		h.FullRead = true
		return true
	})
}

// Unseen returns those of keys that session id has not been shown, in
// order, under one lock.
func (t *Table) Unseen(id string, keys []string) []string {
	var out []string
	t.WithHooks(id, func(h *hookstate.State) bool {
		for _, k := range keys {
			if !h.Has(k) {
				out = append(out, k)
			}
		}
		return false
	})
	return out
}
