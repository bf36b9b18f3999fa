package sessiontable

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"maps"
	"slices"
	"sync"

	"github.com/kg-memory/kg/app/hookstate"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Table holds the live sessions (docs/design/sync.md#sessions). Changes
// to activity counters and watermarks are saved at most once per maintenance
// tick and at Close, so they never cost an fsync per request; a new session is
// saved at once, so it survives a crash right after it starts. A save hands
// the repository only the sessions that changed and the ids that went since
// the last one, so its cost follows the change, not the number of sessions
// (docs/design/storage.md#sessions-file).
type Table struct {
	repo ports.SessionRepository
	// shared is repo when several servers share it (team mode, shared.go).
	shared ports.SharedSessionRepository
	ttl    domain.Micros
	max    int
	// boundTTL is how long a session bound to a Claude session is kept
	// after its last activity: past the TTL it is dormant (unknown to the
	// tools) until a session start of its conversation revives it
	// (docs/design/hooks.md#session-binding).
	boundTTL domain.Micros

	mu   sync.Mutex
	live map[string]*ports.Session
	// hooks holds the hook state of the sessions that have one
	// (hookstate.State); a record in live keeps its Hooks empty, so that the
	// copies requests take of it never copy the seen set. byClaude finds
	// the session bound to a Claude session id.
	hooks    map[string]*hookstate.State
	byClaude map[string]string
	// changed and gone are the ids of the sessions changed (or created)
	// and removed since the last successful save.
	changed map[string]struct{}
	gone    map[string]struct{}
	// order finds the least recently active session for the cap.
	order byActivity

	// saveMu serialises saves, so an older snapshot never overwrites a newer
	// one.
	saveMu sync.Mutex
	// log tells of the database reads and writes of a team server that
	// fail soft (shared.go).
	log *slog.Logger
	// failing is told whether the last save failed, for Health; nil: not told.
	failing FailureRecord
}

// Limits bound the live sessions (Config.SessionTTL, MaxSessions,
// BoundSessionTTL).
type Limits struct {
	// TTL is how long a session stays live after its last activity.
	TTL domain.Micros
	// Max is how many sessions are live at most: past it the least
	// recently active one goes.
	Max int
	// BoundTTL is how long a session bound to a Claude session is kept,
	// dormant past TTL.
	BoundTTL domain.Micros
}

// FailureRecord is told whether the last save failed, for the health
// report (graphstore.Failing).
type FailureRecord interface {
	Set(what, why string)
	Clear(what ...string)
}

// New returns the table of the stored sessions, live from now on; failing
// may be nil.
func New(repo ports.SessionRepository, lim Limits, stored map[string]ports.Session, log *slog.Logger, failing FailureRecord) *Table {
	t := &Table{repo: repo, log: log, ttl: lim.TTL, max: lim.Max, boundTTL: lim.BoundTTL, failing: failing,
		live: make(map[string]*ports.Session, len(stored)), hooks: map[string]*hookstate.State{}, byClaude: map[string]string{},
		changed: map[string]struct{}{}, gone: map[string]struct{}{}}
	t.shared, _ = repo.(ports.SharedSessionRepository)
	for id, s := range stored {
		c := copySession(s)
		c.ID = id
		if !s.Hooks.Empty() {
			t.hooks[id] = hookstate.New(s.Hooks)
			c.Hooks = ports.HookState{}
		}
		t.live[id] = &c
		t.order.add(id, c.LastActivity)
	}
	for id, h := range t.hooks {
		if h.Claude == "" {
			continue
		}
		// Two records bound to one conversation (a file edited by hand):
		// the most recently active one holds the binding.
		if other, ok := t.byClaude[h.Claude]; !ok || t.live[other].LastActivity < t.live[id].LastActivity ||
			t.live[other].LastActivity == t.live[id].LastActivity && other < id {
			t.byClaude[h.Claude] = id
		}
	}
	return t
}

func copySession(s ports.Session) ports.Session {
	s.Synced = maps.Clone(s.Synced)
	s.Counted = maps.Clone(s.Counted) // its slices are never changed in place
	s.Extra = maps.Clone(s.Extra)
	return s
}

// Unknown is the error for an id that is not (or no longer) live.
func Unknown(id string) error {
	return domain.NotFoundf("session_id", "unknown session %q; call kg_read with cwd to start one", id)
}

// newID returns 16 lowercase hex characters from a cryptographic source.
func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// expired reports whether s has been idle longer than the TTL at now.
func (t *Table) expired(s *ports.Session, now domain.Micros) bool {
	return now-s.LastActivity > t.ttl
}

// markChanged and markGone record a change for the next save; t.mu held.
func (t *Table) markChanged(id string) { t.changed[id] = struct{}{} }

func (t *Table) markGone(id string) {
	if h := t.hooks[id]; h != nil && h.Claude != "" && t.byClaude[h.Claude] == id {
		delete(t.byClaude, h.Claude)
	}
	delete(t.hooks, id)
	delete(t.live, id)
	delete(t.changed, id)
	t.gone[id] = struct{}{}
}

// dormant reports whether s, expired, is kept because it is bound to a
// Claude session and was active within boundTTL; t.mu held.
func (t *Table) dormant(s *ports.Session, now domain.Micros) bool {
	h := t.hooks[s.ID]
	return h != nil && h.Claude != "" && now-s.LastActivity <= max(t.boundTTL, t.ttl)
}

// Create registers a session bound to project with the given first
// watermarks and saves it at once. At the cap, the least recently active
// session is expired to make room (an expired one, if any: the oldest is).
// Its cost does not grow with the number of sessions: the save names only
// the new session (and the one expired), and the least recently active is
// found without looking at every session (byActivity). Expired sessions
// below the cap are left to the tick: they are unknown already.
func (t *Table) Create(ctx context.Context, project, principal, root string, now domain.Micros, wm map[domain.GraphKey]uint64, claude string) (ports.Session, error) {
	t.mu.Lock()
	for len(t.live) >= t.max {
		oldest := t.order.oldest(t.live)
		if oldest == "" {
			break // cannot happen: every live session has an entry
		}
		t.markGone(oldest)
	}
	t.order.tidy(t.live)
	id := newID()
	for t.live[id] != nil {
		id = newID()
	}
	s := &ports.Session{ID: id, ProjectPath: project, Principal: principal, Root: root, Start: now, LastActivity: now, Synced: maps.Clone(wm)}
	t.live[id] = s
	t.order.add(id, now)
	t.markChanged(id)
	var unbound string // the session the conversation was bound to before
	if claude != "" {
		unbound = t.byClaude[claude]
		t.bindLocked(id, claude)
	}
	out := copySession(*s)
	t.mu.Unlock()

	if err := t.Save(ctx); err != nil {
		t.mu.Lock()
		t.markGone(id)
		if unbound != "" && t.live[unbound] != nil {
			t.bindLocked(unbound, claude)
		}
		t.mu.Unlock()
		return ports.Session{}, domain.WrapError(err, "the new session could not be saved")
	}
	return out, nil
}

// Lookup returns a copy of the live session id. An expired session is
// dropped and reported as unknown.
func (t *Table) Lookup(id string, now domain.Micros) (ports.Session, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, err := t.liveLocked(id, now)
	if err != nil {
		return ports.Session{}, err
	}
	return copySession(*s), nil
}

func (t *Table) liveLocked(id string, now domain.Micros) (*ports.Session, error) {
	s, ok := t.live[id]
	if !ok {
		return nil, Unknown(id)
	}
	if t.expired(s, now) {
		if !t.dormant(s, now) {
			t.markGone(id)
		}
		return nil, Unknown(id)
	}
	return s, nil
}

// Touch counts one operation of session id at now and returns it.
func (t *Table) Touch(id string, now domain.Micros) (ports.Session, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, err := t.liveLocked(id, now)
	if err != nil {
		return ports.Session{}, err
	}
	s.LastActivity = max(s.LastActivity, now)
	s.OpCount++
	t.markChanged(id)
	return copySession(*s), nil
}

// Watermark returns the session's watermark for graph key. A session without
// one (carried over from the replaced server, which recorded times) gets
// start(), computed once and kept.
func (t *Table) Watermark(id string, key domain.GraphKey, start func(since domain.Micros) uint64) (uint64, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.live[id]
	if !ok {
		return 0, Unknown(id)
	}
	if w, ok := s.Synced[key]; ok {
		return w, nil
	}
	since := s.LastSyncedTS
	if since == 0 {
		since = s.Start
	}
	w := start(since)
	if s.Synced == nil {
		s.Synced = map[domain.GraphKey]uint64{}
	}
	s.Synced[key] = w
	t.markChanged(id)
	return w, nil
}

// Advance moves the session's watermark for key to seq, never back.
func (t *Table) Advance(id string, key domain.GraphKey, seq uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.live[id]
	if !ok {
		return
	}
	if s.Synced == nil {
		s.Synced = map[domain.GraphKey]uint64{}
	}
	if cur, ok := s.Synced[key]; !ok || seq > cur {
		s.Synced[key] = seq
		t.markChanged(id)
	}
}

// MaxWatermark is the highest watermark any live session holds for key:
// the lowest seq a freshly loaded graph may continue from, so no seq a
// session has seen is handed out again.
func (t *Table) MaxWatermark(key domain.GraphKey) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	var m uint64
	for _, s := range t.live {
		m = max(m, s.Synced[key])
	}
	return m
}

// Expire drops the sessions idle longer than the TTL and returns how many.
func (t *Table) Expire(now domain.Micros) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for id, s := range t.live {
		if t.expired(s, now) && !t.dormant(s, now) {
			t.markGone(id)
			n++
		}
	}
	return n
}

// Count returns the number of live, unexpired sessions.
func (t *Table) Count(now domain.Micros) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, s := range t.live {
		if !t.expired(s, now) {
			n++
		}
	}
	return n
}

// Save stores what changed since the last save: the sessions changed or
// created, whole, and the ids that went. When it fails, they stay to be
// saved by the next save.
func (t *Table) Save(ctx context.Context) error {
	t.saveMu.Lock()
	defer t.saveMu.Unlock()
	t.mu.Lock()
	if len(t.changed)+len(t.gone) == 0 {
		t.mu.Unlock()
		return nil
	}
	ch := ports.SessionChanges{Put: make([]ports.Session, 0, len(t.changed)), Delete: make([]string, 0, len(t.gone))}
	for id := range t.changed {
		if s := t.live[id]; s != nil {
			c := copySession(*s)
			if h := t.hooks[id]; h != nil {
				c.Hooks = h.Export()
			}
			ch.Put = append(ch.Put, c)
		}
	}
	for id := range t.gone {
		ch.Delete = append(ch.Delete, id)
	}
	t.changed, t.gone = map[string]struct{}{}, map[string]struct{}{}
	t.mu.Unlock()

	saved := false
	defer func() {
		if !saved { // an error, or a panic on its way to the caller's guard
			t.requeue(ch)
		}
	}()
	if err := t.repo.UpdateSessions(ctx, ch); err != nil {
		if t.failing != nil {
			t.failing.Set("save sessions", "the sessions could not be saved ("+err.Error()+"); new sessions fail until a save succeeds")
		}
		return err
	}
	saved = true
	if t.failing != nil {
		t.failing.Clear("save sessions")
	}
	return nil
}

// requeue gives the next save what a failed one did not store. A session is
// saved whole, so the next save writes its latest state; one that went
// meanwhile is removed instead.
func (t *Table) requeue(ch ports.SessionChanges) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, s := range ch.Put {
		if _, ok := t.live[s.ID]; ok {
			t.changed[s.ID] = struct{}{}
		} else {
			t.gone[s.ID] = struct{}{}
		}
	}
	for _, id := range ch.Delete {
		if _, ok := t.live[id]; !ok {
			t.gone[id] = struct{}{}
		}
	}
}

// MaxCountedPerGraph is how many nodes of one graph a session remembers
// having counted for the use count, like its seen set: past it the oldest
// are forgotten, and such a node would count again
// (docs/design/compaction.md#the-use-count).
const MaxCountedPerGraph = 5000

// ClaimCounts records that session id counts the nodes ids of graph key and
// returns those it had not counted before, in order and once each; none for
// a session that is not live. The session is saved with the next save. The
// lookup is a scan of at most MaxCountedPerGraph ids.
func (t *Table) ClaimCounts(id string, key domain.GraphKey, ids []string) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.live[id]
	if !ok {
		return nil
	}
	had := s.Counted[key]
	var fresh []string
	for _, n := range ids {
		if !slices.Contains(had, n) && !slices.Contains(fresh, n) {
			fresh = append(fresh, n)
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	// Appending never changes the elements a copy handed out holds.
	list := append(had, fresh...)
	if over := len(list) - MaxCountedPerGraph; over > 0 {
		list = list[over:]
	}
	if s.Counted == nil {
		s.Counted = map[domain.GraphKey][]string{}
	}
	s.Counted[key] = list
	t.markChanged(id)
	return fresh
}

// UnclaimCounts takes back ClaimCounts's ids of a count that was not saved
// (a write that failed), so that the session's next use counts them.
func (t *Table) UnclaimCounts(id string, key domain.GraphKey, ids []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.live[id]
	if !ok || len(ids) == 0 {
		return
	}
	// A new slice: a copy handed out may share the old one.
	s.Counted[key] = slices.DeleteFunc(slices.Clone(s.Counted[key]), func(n string) bool { return slices.Contains(ids, n) })
	t.markChanged(id)
}

// RootOf returns the folder of the most recently active live
// session bound to project that was named by one (team mode, where a
// graph's key names no folder): where this server's sessions have the
// project's files. "" for none.
func (t *Table) RootOf(project string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var root string
	var at domain.Micros
	for _, s := range t.live {
		if s.ProjectPath == project && s.Root != "" && (root == "" || s.LastActivity > at) {
			root, at = s.Root, s.LastActivity
		}
	}
	return root
}

// HeldByAnother reports whether session id is live and started by a
// principal other than owner.
func (t *Table) HeldByAnother(id, owner string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.live[id]
	return ok && s.Principal != owner
}

// Checkpointer is the repository's journal folding, when it has one.
func (t *Table) Checkpointer() (ports.SessionCheckpointer, bool) {
	cp, ok := t.repo.(ports.SessionCheckpointer)
	return cp, ok
}

// Shared is the repository when several servers share it (team mode); nil
// otherwise.
func (t *Table) Shared() ports.SharedSessionRepository { return t.shared }
