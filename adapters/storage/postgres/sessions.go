package postgres

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/kg-memory/kg/adapters/storage/record"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Sessions are stored one row each, with a row per graph watermark, so that
// any server can serve any session and a save writes only what changed
// (docs/design/team.md#sessions-across-servers). Counters, times and
// watermarks only move forward (GREATEST): two servers saving one session
// out of order lose nothing. The rest of a record — its unknown fields and
// any field added later, such as a seen set — is kept in the data column as
// one JSON object.

// savedSession is what this store last wrote or read of a session.
type savedSession struct {
	hash         [32]byte
	lastActivity int64
}

// sessionData is the data column.
type sessionData struct {
	Root string `json:"root,omitempty"`
	// HookState is ports.MarshalHookState's object, as every backend keeps it.
	HookState json.RawMessage            `json:"hook_state,omitempty"`
	Counted   []countedRec               `json:"counted,omitempty"`
	Extra     map[string]json.RawMessage `json:"extra,omitempty"`
}

// countedRec is one graph's ids of Session.Counted, the nodes the session
// counted for the use count (docs/design/compaction.md#the-use-count).
type countedRec struct {
	Level   string   `json:"level"`
	Owner   string   `json:"owner,omitempty"`
	Project string   `json:"project,omitempty"`
	IDs     []string `json:"ids"`
}

// countedRecs lists counted by graph, in a stable order.
func countedRecs(counted map[domain.GraphKey][]string) []countedRec {
	var out []countedRec
	for _, k := range slices.SortedFunc(maps.Keys(counted), func(a, b domain.GraphKey) int {
		return strings.Compare(a.String()+"\x00"+a.Owner, b.String()+"\x00"+b.Owner)
	}) {
		if len(counted[k]) > 0 {
			out = append(out, countedRec{Level: string(k.Level), Owner: k.Owner, Project: k.Project, IDs: counted[k]})
		}
	}
	return out
}

// countedOf is the inverse of countedRecs; nil for none.
func countedOf(recs []countedRec) map[domain.GraphKey][]string {
	if len(recs) == 0 {
		return nil
	}
	out := make(map[domain.GraphKey][]string, len(recs))
	for _, r := range recs {
		out[domain.GraphKey{Level: domain.Level(r.Level), Owner: r.Owner, Project: r.Project}] = r.IDs
	}
	return out
}

func fingerprint(s ports.Session) [32]byte {
	type wm struct {
		K string
		V uint64
	}
	var w []wm
	for k, v := range s.Synced {
		w = append(w, wm{k.String(), v})
	}
	slices.SortFunc(w, func(a, b wm) int {
		if a.K < b.K {
			return -1
		}
		if a.K > b.K {
			return 1
		}
		return 0
	})
	b, err := json.Marshal(struct {
		ID, Principal, Project, Root string
		Start, Last, Ops, LastSynced int64
		Extra                        map[string]domain.RawJSON
		W                            []wm
		Hooks                        ports.HookState
		Counted                      []countedRec
	}{s.ID, s.Principal, s.ProjectPath, s.Root, int64(s.Start), int64(s.LastActivity), s.OpCount, int64(s.LastSyncedTS), s.Extra, w, s.Hooks, countedRecs(s.Counted)})
	if err != nil {
		// Never equal to a stored fingerprint: the session is written.
		var random [32]byte
		_, _ = rand.Read(random[:])
		return random
	}
	return sha256.Sum256(b)
}

// LoadSessions returns every stored session.
func (s *Store) LoadSessions(ctx context.Context) (map[string]ports.Session, error) {
	out := map[string]ports.Session{}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		return readSessions(ctx, tx, "", out)
	})
	if err != nil {
		return nil, unavailable(err, "load the sessions from the database")
	}
	s.sessMu.Lock()
	for id, sess := range out {
		s.saved[id] = savedSession{hash: fingerprint(sess), lastActivity: int64(sess.LastActivity)}
	}
	s.sessMu.Unlock()
	return out, nil
}

// LoadSession returns the stored session id (ports.SharedSessionRepository).
func (s *Store) LoadSession(ctx context.Context, id string) (ports.Session, bool, error) {
	out := map[string]ports.Session{}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		return readSessions(ctx, tx, id, out)
	})
	if err != nil {
		return ports.Session{}, false, unavailable(err, "load session %q from the database", id)
	}
	sess, ok := out[id]
	if ok {
		s.sessMu.Lock()
		s.saved[id] = savedSession{hash: fingerprint(sess), lastActivity: int64(sess.LastActivity)}
		s.sessMu.Unlock()
	}
	return sess, ok, nil
}

// FindSession returns principal's session bound to the Claude session
// claude, else the most recently active one of project
// (ports.SharedSessionRepository), in one snapshot.
func (s *Store) FindSession(ctx context.Context, principal, claude, project string) (ports.Session, bool, error) {
	if claude == "" && project == "" {
		return ports.Session{}, false, nil
	}
	out := map[string]ports.Session{}
	var id string
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `SELECT id FROM sessions
			WHERE principal = $1 AND ($2 <> '' AND data->'hook_state'->>'claude_session_id' = $2 OR $3 <> '' AND project_path = $3)
			ORDER BY coalesce($2 <> '' AND data->'hook_state'->>'claude_session_id' = $2, false) DESC, last_activity DESC, id LIMIT 1`,
			principal, claude, project).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		return readSessions(ctx, tx, id, out)
	})
	if err != nil {
		return ports.Session{}, false, unavailable(err, "look up a session in the database")
	}
	sess, ok := out[id]
	if ok {
		s.sessMu.Lock()
		s.saved[id] = savedSession{hash: fingerprint(sess), lastActivity: int64(sess.LastActivity)}
		s.sessMu.Unlock()
	}
	return sess, ok, nil
}

// readSessions reads the session id, or every session when id is "".
func readSessions(ctx context.Context, tx pgx.Tx, id string, out map[string]ports.Session) error {
	where := ""
	args := []any{}
	if id != "" {
		where, args = " WHERE id = $1", []any{id}
	}
	rows, err := tx.Query(ctx, "SELECT id, principal, project_path, start_ts, last_activity, op_count, last_synced_ts, data FROM sessions"+where, args...)
	if err != nil {
		return err
	}
	var sess ports.Session
	var start, last, synced int64
	var data []byte
	_, err = pgx.ForEachRow(rows, []any{&sess.ID, &sess.Principal, &sess.ProjectPath, &start, &last, &sess.OpCount, &synced, &data}, func() error {
		var d sessionData
		if err := json.Unmarshal(data, &d); err != nil {
			return damagedf("session %q: %v", sess.ID, err)
		}
		var hooks ports.HookState
		if len(d.HookState) > 0 {
			if hooks, err = ports.UnmarshalHookState(d.HookState); err != nil {
				return damagedf("session %q: hook_state: %v", sess.ID, err)
			}
		}
		out[sess.ID] = ports.Session{ID: sess.ID, Principal: sess.Principal, ProjectPath: sess.ProjectPath, Root: d.Root, Start: domain.Micros(start),
			LastActivity: domain.Micros(last), OpCount: sess.OpCount, LastSyncedTS: domain.Micros(synced), Hooks: hooks, Counted: countedOf(d.Counted), Extra: record.RawJSONs(d.Extra)}
		return nil
	})
	if err != nil {
		return err
	}
	where = ""
	if id != "" {
		where = " WHERE session_id = $1"
	}
	rows, err = tx.Query(ctx, "SELECT session_id, level, owner, project, seq FROM session_watermarks"+where, args...)
	if err != nil {
		return err
	}
	var sid, level, owner, project string
	var seq int64
	_, err = pgx.ForEachRow(rows, []any{&sid, &level, &owner, &project, &seq}, func() error {
		sess, ok := out[sid]
		if !ok {
			return nil
		}
		if sess.Synced == nil {
			sess.Synced = map[domain.GraphKey]uint64{}
		}
		sess.Synced[domain.GraphKey{Level: domain.Level(level), Owner: owner, Project: project}] = uint64(seq)
		out[sid] = sess
		return nil
	})
	return err
}

// UpdateSessions stores the sessions of ch.Put that changed since this
// store last saved or loaded them, forward only, and removes those of
// ch.Delete, in one transaction whose cost follows the change
// (ports.SessionRepository). A session this store has seen is removed only
// when nobody used it since (its stored last activity is not after the one
// this store saw): a session another server keeps alive stays. An id in
// both is removed, then put.
func (s *Store) UpdateSessions(ctx context.Context, ch ports.SessionChanges) error {
	deleted := make(map[string]bool, len(ch.Delete))
	for _, id := range ch.Delete {
		deleted[id] = true
	}
	s.sessMu.Lock()
	var changed []ports.Session
	hashes := map[string][32]byte{}
	for _, sess := range ch.Put {
		if sess.ID == "" {
			s.sessMu.Unlock()
			return domain.Invalidf("session", "empty session id")
		}
		h := fingerprint(sess)
		if old, ok := s.saved[sess.ID]; ok && old.hash == h && !deleted[sess.ID] {
			continue
		}
		hashes[sess.ID] = h
		changed = append(changed, sess)
	}
	gone, goneAt := make([]string, 0, len(ch.Delete)), make([]int64, 0, len(ch.Delete))
	for _, id := range ch.Delete {
		last := int64(math.MaxInt64) // never seen here: removed whatever its activity
		if old, ok := s.saved[id]; ok {
			last = old.lastActivity
		}
		gone, goneAt = append(gone, id), append(goneAt, last)
	}
	s.sessMu.Unlock()
	if len(changed) == 0 && len(gone) == 0 {
		return nil
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		if len(gone) > 0 {
			b.Queue(`DELETE FROM sessions s USING unnest($1::text[], $2::bigint[]) AS g(id, last)
				WHERE s.id = g.id AND s.last_activity <= g.last`, gone, goneAt)
		}
		queueSessions(b, changed)
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return err
		}
		return s.injected()
	})
	if err != nil {
		return unavailable(err, "save the sessions to the database")
	}
	s.sessMu.Lock()
	for _, id := range gone {
		delete(s.saved, id)
	}
	for _, sess := range changed {
		s.saved[sess.ID] = savedSession{hash: hashes[sess.ID], lastActivity: int64(sess.LastActivity)}
	}
	s.sessMu.Unlock()
	return nil
}

// SaveSession stores one session now (ports.SharedSessionRepository).
func (s *Store) SaveSession(ctx context.Context, sess ports.Session) error {
	if sess.ID == "" {
		return domain.Invalidf("session", "empty session id")
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		queueSessions(b, []ports.Session{sess})
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return err
		}
		return s.injected()
	})
	if err != nil {
		return unavailable(err, "save session %q to the database", sess.ID)
	}
	s.sessMu.Lock()
	s.saved[sess.ID] = savedSession{hash: fingerprint(sess), lastActivity: int64(sess.LastActivity)}
	s.sessMu.Unlock()
	return nil
}

// queueSessions adds the upserts of list and of its watermarks to b.
func queueSessions(b *pgx.Batch, list []ports.Session) {
	if len(list) == 0 {
		return
	}
	n := len(list)
	ids, principals, paths, data := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	start, last, ops, synced := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	var wmID, wmGraph, wmLevel, wmOwner, wmProject []string
	var wmSeq []int64
	for i, sess := range list {
		ids[i], principals[i], paths[i] = sess.ID, sess.Principal, sess.ProjectPath
		start[i], last[i], ops[i], synced[i] = int64(sess.Start), int64(sess.LastActivity), sess.OpCount, int64(sess.LastSyncedTS)
		hooks, _ := ports.MarshalHookState(sess.Hooks) // a struct of plain fields: cannot fail
		d, _ := json.Marshal(sessionData{Root: sess.Root, HookState: json.RawMessage(hooks), Counted: countedRecs(sess.Counted), Extra: record.RawMessages(sess.Extra)})
		data[i] = string(d)
		for _, k := range slices.SortedFunc(maps.Keys(sess.Synced), func(a, b domain.GraphKey) int {
			if a.String() < b.String() {
				return -1
			}
			return 1
		}) {
			wmID, wmGraph = append(wmID, sess.ID), append(wmGraph, k.String())
			wmLevel, wmOwner, wmProject = append(wmLevel, string(k.Level)), append(wmOwner, k.Owner), append(wmProject, k.Project)
			wmSeq = append(wmSeq, int64(sess.Synced[k]))
		}
	}
	b.Queue(`INSERT INTO sessions (id, principal, project_path, start_ts, last_activity, op_count, last_synced_ts, data)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::jsonb[])
		ON CONFLICT (id) DO UPDATE SET
			last_activity  = GREATEST(sessions.last_activity, EXCLUDED.last_activity),
			op_count       = GREATEST(sessions.op_count, EXCLUDED.op_count),
			last_synced_ts = GREATEST(sessions.last_synced_ts, EXCLUDED.last_synced_ts),
			data           = EXCLUDED.data`,
		ids, principals, paths, start, last, ops, synced, data)
	if len(wmID) > 0 {
		b.Queue(`INSERT INTO session_watermarks (session_id, graph, level, owner, project, seq)
			SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[])
			ON CONFLICT (session_id, graph) DO UPDATE SET seq = GREATEST(session_watermarks.seq, EXCLUDED.seq)`,
			wmID, wmGraph, wmLevel, wmOwner, wmProject, wmSeq)
	}
}
