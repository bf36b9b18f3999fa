package ports

import (
	"context"
	"maps"
	"slices"

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
	// Counted holds, per graph, the ids of the nodes the session has
	// counted for the use count, oldest first, so that it counts each node
	// once in its life, restarts included
	// (docs/design/compaction.md#the-use-count). A stored session is
	// replaced whole: a slice is never changed in place once handed out.
	Counted map[domain.GraphKey][]string
	// Extra holds unknown stored fields, kept untouched.
	Extra map[string]domain.RawJSON
}

// SessionRepository stores the live sessions.
//
// There is no save that replaces the stored set: a repository may be shared
// by other servers, and a tool that moves sessions in (kg migrate) holds only
// its own, so every save names what it puts and what it removes, and touches
// nothing else (docs/decisions/0062-sessions-saved-by-name.md).
type SessionRepository interface {
	// LoadSessions returns every stored session by id; none stored returns
	// an empty map and nil. A damaged store falls back like a graph (its
	// previous good version); failing that, since sessions are disposable,
	// it may set the damaged data aside (kept, never deleted), log it and
	// return an empty map and nil, or return an unavailable error.
	LoadSessions(ctx context.Context) (map[string]Session, error)
	// UpdateSessions durably applies one save of sessions: it stores each
	// session of ch.Put whole (created or replaced) and removes each id of
	// ch.Delete (an id not stored is no removal), in one durable step, and
	// leaves every other stored session as it is. It costs
	// O(len(ch.Put) + len(ch.Delete)) whatever the number of sessions
	// stored, so that starting a session stays cheap at 10,000
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

// PutSessions is the save that stores every session of sessions (each with
// its map key as its id, in id order) and removes none.
func PutSessions(sessions map[string]Session) SessionChanges {
	ch := SessionChanges{Put: make([]Session, 0, len(sessions))}
	for _, id := range slices.Sorted(maps.Keys(sessions)) {
		s := sessions[id]
		s.ID = id
		ch.Put = append(ch.Put, s)
	}
	return ch
}
