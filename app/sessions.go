package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"maps"
	"sync"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// sessionTable holds the live sessions (docs/design/sync.md#sessions). Changes
// to activity counters and watermarks are saved at most once per maintenance
// tick and at Close, so they never cost an fsync per request; a new session is
// saved at once, so it survives a crash right after it starts.
type sessionTable struct {
	repo ports.SessionRepository
	// shared is repo when several servers share it (team mode, shared.go).
	shared ports.SharedSessionRepository
	ttl    domain.Micros
	max    int

	mu    sync.Mutex
	live  map[string]*ports.Session
	gen   uint64 // bumped by every change
	saved uint64 // gen of the last successful save

	// saveMu serialises saves, so an older snapshot never overwrites a newer
	// one.
	saveMu sync.Mutex
}

func newSessionTable(repo ports.SessionRepository, cfg Config, stored map[string]ports.Session) *sessionTable {
	t := &sessionTable{repo: repo, ttl: cfg.SessionTTL, max: cfg.MaxSessions, live: make(map[string]*ports.Session, len(stored))}
	t.shared, _ = repo.(ports.SharedSessionRepository)
	for id, s := range stored {
		c := copySession(s)
		c.ID = id
		t.live[id] = &c
	}
	return t
}

func copySession(s ports.Session) ports.Session {
	s.Synced = maps.Clone(s.Synced)
	s.Extra = maps.Clone(s.Extra)
	return s
}

// unknownSession is the error for an id that is not (or no longer) live.
func unknownSession(id string) error {
	return domain.NotFoundf("session_id", "unknown session %q; call kg_read with cwd to start one", id)
}

// newID returns 16 lowercase hex characters from a cryptographic source.
func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// expired reports whether s has been idle longer than the TTL at now.
func (t *sessionTable) expired(s *ports.Session, now domain.Micros) bool {
	return now-s.LastActivity > t.ttl
}

// create registers a session bound to project with the given first
// watermarks and saves the table at once. At the cap, the least recently
// active session is expired to make room.
func (t *sessionTable) create(ctx context.Context, project, principal string, now domain.Micros, wm map[domain.GraphKey]uint64) (ports.Session, error) {
	t.mu.Lock()
	for id, s := range t.live {
		if t.expired(s, now) {
			delete(t.live, id)
		}
	}
	for len(t.live) >= t.max {
		var oldest *ports.Session
		for _, s := range t.live {
			if oldest == nil || s.LastActivity < oldest.LastActivity ||
				(s.LastActivity == oldest.LastActivity && s.ID < oldest.ID) {
				oldest = s
			}
		}
		delete(t.live, oldest.ID)
	}
	id := newID()
	for t.live[id] != nil {
		id = newID()
	}
	s := &ports.Session{ID: id, ProjectPath: project, Principal: principal, Start: now, LastActivity: now, Synced: maps.Clone(wm)}
	t.live[id] = s
	t.gen++
	out := copySession(*s)
	t.mu.Unlock()

	if err := t.save(ctx); err != nil {
		t.mu.Lock()
		delete(t.live, id)
		t.gen++
		t.mu.Unlock()
		return ports.Session{}, wrapErr(err, "the new session could not be saved")
	}
	return out, nil
}

// lookup returns a copy of the live session id. An expired session is
// dropped and reported as unknown.
func (t *sessionTable) lookup(id string, now domain.Micros) (ports.Session, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, err := t.liveLocked(id, now)
	if err != nil {
		return ports.Session{}, err
	}
	return copySession(*s), nil
}

func (t *sessionTable) liveLocked(id string, now domain.Micros) (*ports.Session, error) {
	s, ok := t.live[id]
	if !ok {
		return nil, unknownSession(id)
	}
	if t.expired(s, now) {
		delete(t.live, id)
		t.gen++
		return nil, unknownSession(id)
	}
	return s, nil
}

// touch counts one operation of session id at now and returns it.
func (t *sessionTable) touch(id string, now domain.Micros) (ports.Session, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, err := t.liveLocked(id, now)
	if err != nil {
		return ports.Session{}, err
	}
	s.LastActivity = max(s.LastActivity, now)
	s.OpCount++
	t.gen++
	return copySession(*s), nil
}

// watermark returns the session's watermark for graph key. A session without
// one (carried over from the replaced server, which recorded times) gets
// start(), computed once and kept.
func (t *sessionTable) watermark(id string, key domain.GraphKey, start func(since domain.Micros) uint64) (uint64, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.live[id]
	if !ok {
		return 0, unknownSession(id)
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
	t.gen++
	return w, nil
}

// advance moves the session's watermark for key to seq, never back.
func (t *sessionTable) advance(id string, key domain.GraphKey, seq uint64) {
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
		t.gen++
	}
}

// maxWatermark is the highest watermark any live session holds for key:
// the lowest seq a freshly loaded graph may continue from, so no seq a
// session has seen is handed out again.
func (t *sessionTable) maxWatermark(key domain.GraphKey) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	var m uint64
	for _, s := range t.live {
		m = max(m, s.Synced[key])
	}
	return m
}

// expire drops the sessions idle longer than the TTL and returns how many.
func (t *sessionTable) expire(now domain.Micros) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for id, s := range t.live {
		if t.expired(s, now) {
			delete(t.live, id)
			n++
		}
	}
	if n > 0 {
		t.gen++
	}
	return n
}

// count returns the number of live, unexpired sessions.
func (t *sessionTable) count(now domain.Micros) int {
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

// save stores the table if it changed since the last save.
func (t *sessionTable) save(ctx context.Context) error {
	t.saveMu.Lock()
	defer t.saveMu.Unlock()
	t.mu.Lock()
	if t.gen == t.saved {
		t.mu.Unlock()
		return nil
	}
	gen := t.gen
	snap := make(map[string]ports.Session, len(t.live))
	for id, s := range t.live {
		snap[id] = copySession(*s)
	}
	t.mu.Unlock()
	if err := t.repo.SaveSessions(ctx, snap); err != nil {
		return err
	}
	t.mu.Lock()
	t.saved = gen
	t.mu.Unlock()
	return nil
}
