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
	Principal    string
	Start        domain.Micros
	LastActivity domain.Micros
	OpCount      int64
	// LastSyncedTS is the replaced server's sync watermark (a time); kept
	// for sessions it wrote, which have no Synced entries.
	LastSyncedTS domain.Micros
	// Synced is the sync watermark per graph: the highest seq of that graph
	// the session has been told about.
	Synced map[domain.GraphKey]uint64
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
	// SaveSessions durably replaces the stored set with sessions.
	SaveSessions(ctx context.Context, sessions map[string]Session) error
}
