package ports

import (
	"context"

	"github.com/kg-memory/kg/domain"
)

// Session is the stored record of one agent session
// (docs/design/sync.md#sessions).
type Session struct {
	ID          string
	ProjectPath string // canonical project path; empty for none
	// Principal is who started the session, in team mode: only they can
	// use it. "" otherwise.
	Principal string
	// Root is the folder the session's project was named by, on the
	// client's machine (team mode: absolute file paths under it are stored
	// relative to it, docs/design/team.md#repository-relative-paths). ""
	// otherwise.
	Root         string
	Start        domain.Micros
	LastActivity domain.Micros
	OpCount      int64
	// LastSyncedTS is the replaced server's sync watermark (a time); kept
	// for sessions it wrote, which have no Synced entries.
	LastSyncedTS domain.Micros
	// Synced is the sync watermark per graph: the highest seq of that graph
	// the session has been told about.
	Synced map[domain.GraphKey]uint64
	// Hooks is what the hook routes keep of the session
	// (docs/design/hooks.md#sessions-and-the-seen-set): its Claude binding,
	// its seen set, and the state of its nudges.
	Hooks HookState
	// Extra holds unknown stored fields, kept untouched.
	Extra map[string]domain.RawJSON
}

// SessionRepository stores the live sessions as one set.
type SessionRepository interface {
	// LoadSessions returns every stored session by id; none stored returns
	// an empty map and nil. A damaged store falls back like a graph (its
	// previous good version); failing that, since sessions are disposable,
	// it may set the damaged data aside (kept, never deleted), log it and
	// return an empty map and nil, or return an unavailable error.
	LoadSessions(ctx context.Context) (map[string]Session, error)
	// SaveSessions durably replaces the stored set with sessions. It costs
	// O(sessions): it is for tools that rewrite the set (migrations, kg
	// project mv); the server saves with UpdateSessions.
	SaveSessions(ctx context.Context, sessions map[string]Session) error
	// UpdateSessions durably applies one save of the server's sessions: it
	// stores each session of ch.Put whole (created or replaced) and removes
	// each id of ch.Delete (an id not stored is no removal), in one durable
	// step, costing O(len(ch.Put) + len(ch.Delete)) whatever the number of
	// sessions stored, so that starting a session stays cheap at 10,000
	// (docs/design/storage.md#sessions-file). An id in both is put. On
	// error nothing is changed and the error's kind is
	// domain.KindUnavailable.
	UpdateSessions(ctx context.Context, ch SessionChanges) error
}

// SessionChanges is one incremental save of the sessions: those created or
// changed since the last save, whole, and the ids of those that went.
type SessionChanges struct {
	Put    []Session
	Delete []string
}

// Empty reports whether ch changes nothing.
func (ch SessionChanges) Empty() bool { return len(ch.Put) == 0 && len(ch.Delete) == 0 }
