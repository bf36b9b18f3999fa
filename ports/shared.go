package ports

import (
	"context"
	"errors"
	"time"

	"github.com/kg-memory/kg/domain"
)

// SharedGraphRepository is implemented by a GraphRepository that several kg
// servers share at once (PostgreSQL, team mode: docs/design/team.md). For
// such a repository GraphRepository.Commit's promise that the caller
// serialises the commits of a graph cannot hold — only the database sees
// every server — so the app writes through BeginWrite instead: the write
// takes the graph's lock in the database, catches the in-memory graph up
// with what other servers committed, applies the batch and commits it
// (docs/decisions/0042-shared-graph-repository.md).
//
// Positions: every committed batch of a graph takes the next position of the
// graph's change log (1, 2, …, with no gap, under the graph's lock). A
// server remembers the position its copy of a graph is at and catches up
// from there. Positions are not seqs: a batch that only stamps reads takes
// a position and no seq.
type SharedGraphRepository interface {
	GraphRepository

	// LoadAt is Load that also returns the position the data is at. For
	// a project graph removed (ProjectRemover) and not stored since, the
	// data holds no item and its Seq is the seq the removed graph had
	// reached: a graph stored later continues from it, so that no seq is
	// handed out twice and no session's watermark skips a new change.
	LoadAt(ctx context.Context, key domain.GraphKey) (domain.GraphData, uint64, error)

	// BeginWrite locks the graph for one batch against every other
	// server, waiting at most the repository's lock timeout (then an
	// unavailable error), and returns the batches committed after at, in
	// order, which the caller applies before its own. The lock is held
	// until the returned write is committed or aborted; exactly one of
	// them must be called.
	BeginWrite(ctx context.Context, key domain.GraphKey, at uint64) (GraphWrite, []CommittedBatch, error)

	// Since returns the batches committed after at, in order, without
	// taking the lock. When the change log no longer reaches back to at
	// (pruned), it returns an error wrapping ErrLogGap: the caller loads
	// the graph afresh.
	Since(ctx context.Context, key domain.GraphKey, at uint64) ([]CommittedBatch, error)

	// Heads returns the committed position of each graph in keys in one
	// round trip; a graph never stored is absent (position 0).
	Heads(ctx context.Context, keys []domain.GraphKey) (map[domain.GraphKey]uint64, error)

	// TakeLease takes the graph's maintenance lease for d when no other
	// server holds it (or this one does), without waiting for a lock
	// (docs/design/team.md#maintenance). It reports whether this server
	// holds the lease now; a graph never stored has none to take.
	TakeLease(ctx context.Context, key domain.GraphKey, d time.Duration) (bool, error)

	// Watch tells w of the batches other servers commit, as they commit:
	// Changed with the graph and its new position, in commit order per
	// graph. After its connection was lost and is back, it calls Resync:
	// the caller then checks every graph it holds, because what was
	// committed meanwhile was not told. Watch returns when ctx is done.
	Watch(ctx context.Context, w Watcher)
}

// Watcher receives what SharedGraphRepository.Watch learns. Its methods are
// called from one goroutine, one at a time; they may block (the caller
// catches up), which delays the later notifications but loses none.
type Watcher interface {
	Changed(key domain.GraphKey, at uint64)
	// Removed tells of a project graph another server removed (`kg
	// project rm`), whose position is now at, and how many nodes and
	// edges it held.
	Removed(key domain.GraphKey, at uint64, nodes, edges int)
	Resync()
}

// GraphWrite is one batch's write of a shared graph, holding the graph's
// lock in the database.
type GraphWrite interface {
	// Commit durably stores the changes named by cs, reading their
	// current values from g, with the batch's record, and releases the
	// lock; it returns the position the batch took. On error the lock is
	// released too, and nothing is stored unless the error came at the
	// very end (the connection lost while committing): such a batch may
	// have been committed, and the next BeginWrite or Since returns it.
	Commit(ctx context.Context, g *domain.Graph, cs domain.ChangeSet, rec BatchRecord) (uint64, error)
	// Abort releases the lock without storing anything.
	Abort(ctx context.Context)
}

// BatchRecord is what the change log keeps of a batch besides its items:
// who wrote what, and the events its writes publish, so that every other
// server publishes them to its own subscribers.
type BatchRecord struct {
	Writes []WriteRecord
	Events []Event
}

// WriteRecord is one write of a batch: the session and principal that made
// it, and the seqs it took (FirstSeq > LastSeq when it took none).
type WriteRecord struct {
	Session   string
	Principal string
	FirstSeq  uint64
	LastSeq   uint64
	// Op is what the change log records the write as when it is not each
	// item's put or delete (an undo, an import with replace); "" otherwise.
	Op domain.HistoryOp
}

// CommittedBatch is one batch of a shared graph's change log.
type CommittedBatch struct {
	At     uint64       // its position
	Delta  domain.Delta // the items it changed, as committed
	Events []Event
}

// ErrLogGap is wrapped by SharedGraphRepository.Since when the change log
// no longer holds every batch after the position asked for.
var ErrLogGap = errors.New("the change log does not reach back to that position")

// SharedSessionRepository is implemented by a SessionRepository that
// several servers share: any of them may serve any session, so a server
// looks up a session it does not hold, and a sync's watermark is stored as
// soon as it moves (docs/design/team.md#sessions-across-servers).
// UpdateSessions of such a repository stores each session by itself,
// counters and watermarks forward only, and removes only the sessions it is
// told of that nobody has used since.
type SharedSessionRepository interface {
	SessionRepository
	// LoadSession returns the stored session id; found is false when
	// there is none.
	LoadSession(ctx context.Context, id string) (s Session, found bool, err error)
	// SaveSession durably stores one session now, every counter and
	// watermark moving forward only.
	SaveSession(ctx context.Context, s Session) error
	// FindSession returns the stored session of principal bound to the
	// Claude session claude (HookState.ClaudeSessionID), or, when none is
	// (or claude is ""), the most recently active one of project (none
	// when project is ""): what a hook route looks for when this server
	// holds no such session (docs/design/team.md#hooks-across-servers).
	// found is false when there is none.
	FindSession(ctx context.Context, principal, claude, project string) (s Session, found bool, err error)
}

// Principal is a person (or a robot) of a team, as a token names them
// (docs/design/team.md#people-and-tokens).
type Principal struct {
	Name  string
	Scope string // ScopeRead, ScopeWrite or ScopeAdmin
}

// The scopes of a token.
const (
	ScopeRead  = "read"  // reads only: no tool or route that changes memory
	ScopeWrite = "write" // reads and writes
	ScopeAdmin = "admin" // everything
)

// CanWrite reports whether the principal's scope allows changing memory.
func (p Principal) CanWrite() bool { return p.Scope == ScopeWrite || p.Scope == ScopeAdmin }

// Authenticator checks a bearer token and names its principal (team mode).
type Authenticator interface {
	// Authenticate returns the principal of token; an unknown or revoked
	// token is an error of kind invalid, a store that cannot tell one of
	// kind unavailable.
	Authenticate(ctx context.Context, token string) (Principal, error)
}
