package app

import (
	"context"

	"github.com/kg-memory/kg/app/hookstate"
	"github.com/kg-memory/kg/ports"
)

// Hooks across servers (docs/design/team.md#hooks-across-servers): the hook
// calls of one conversation may each land on a different server. Before a
// hook route looks for the conversation's session, the server asks the
// database for it (bound to the Claude session id, else the person's most
// recent session of the project) and merges what is stored into its own
// copy — the binding, the seen set, whether memory was read, the nudge
// counts — and a hook that changed the session stores it at once, so the
// next hook, wherever it runs, knows what this one showed. With the json
// and bolt backends none of this runs.

// hookPull merges into the table what the database holds of session id
// (team mode): the marks and the seen set other servers stored for it. A
// database that cannot be reached leaves the server with what it holds,
// logged.
func (t *sessionTable) hookPull(ctx context.Context, id string) {
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
		t.adopt(stored)
	}
}

// hookStore stores session id at once in team mode, hook state included,
// after a hook changed it. A failure is logged: the maintenance tick saves
// it again.
func (t *sessionTable) hookStore(ctx context.Context, id string) {
	if t.shared == nil || id == "" {
		return
	}
	if err := t.push(ctx, id); err != nil {
		t.log.Warn("hook: could not store the session in the database; the next save will", "session", id, "err", err)
	}
}

// adopt merges a session another server stored into the table: a session
// not live here becomes live, with its hook state and binding; one live
// here takes the stored record's counters and watermarks forward only and
// merges its hook state (hookstate.State.Merge).
func (t *sessionTable) adopt(stored ports.Session) {
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
