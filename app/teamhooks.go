package app

import (
	"context"
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

// hookSync brings in the stored session the hook of conversation claude
// (or, without one bound, of project) belongs to. A database that cannot
// be reached leaves the server with what it holds, logged.
func (h *Hooks) hookSync(ctx context.Context, claude, project string) {
	t := h.svc.sessions
	if t.shared == nil || claude == "" && project == "" {
		return
	}
	stored, found, err := t.shared.FindSession(ctx, principalName(ctx), claude, project)
	if err != nil {
		h.svc.log.Warn("hook: could not look up the conversation's session in the database; serving what this server holds", "err", err)
		return
	}
	if found {
		t.adopt(stored)
	}
}
