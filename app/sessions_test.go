package app

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

func TestRegisterSession(t *testing.T) {
	e := newEnv(t)
	w := e.session(projA)
	e.put(project(w), "n", "makes the project's durable seq move")

	s, err := e.svc.RegisterSession(e.ctx, projA+"/sub/..", "")
	if err != nil {
		t.Fatal(err)
	}
	if s.ProjectPath != projA || s.Start != e.clock.Now() {
		t.Errorf("session = %+v, want bound to %s, started now", s, projA)
	}
	if got := s.Synced[domain.ProjectGraph(projA)]; got == 0 {
		t.Error("first project watermark is 0, want the graph's durable seq")
	}
	if _, ok := s.Synced[domain.UserGraph]; !ok {
		t.Error("no user watermark")
	}
	_, err = e.svc.RegisterSession(e.ctx, "relative", "")
	if de := wantKind(t, err, domain.KindInvalid, "project_path"); de.Error() != "project_path: must be an absolute path" {
		t.Errorf("message %q", de.Error())
	}
}

func TestRegisterSessionFailsWhenItCannotBeSaved(t *testing.T) {
	e := newEnv(t)
	e.store.InjectFault(func(op string) error {
		if op == "save-sessions" {
			return errAny
		}
		return nil
	})
	_, err := e.svc.RegisterSession(e.ctx, "", "")
	wantKind(t, err, domain.KindUnavailable, "")
	if h := e.svc.Health(e.ctx); h.ActiveSessions != 0 {
		t.Errorf("%d sessions live after a failed registration", h.ActiveSessions)
	}
}

func TestSessionExpiresAfterTTL(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.SessionTTL = 3600 * domain.Second })
	sid := e.session("")
	e.clock.Advance(59 * time.Minute)
	if _, err := e.svc.Sync(e.ctx, sid); err != nil {
		t.Fatalf("session used within its TTL: %v", err)
	}
	e.clock.Advance(61 * time.Minute)
	_, err := e.svc.Sync(e.ctx, sid)
	wantKind(t, err, domain.KindNotFound, "session_id")
	_, err = e.svc.PutNode(e.ctx, user(sid), domain.NodeInput{ID: "x", Gist: "y"})
	wantKind(t, err, domain.KindNotFound, "session_id")
}

func TestSessionCapExpiresLeastRecentlyActive(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxSessions = 2 })
	s1 := e.session("")
	e.clock.Advance(time.Second)
	s2 := e.session("")
	e.clock.Advance(time.Second)
	if _, err := e.svc.Sync(e.ctx, s1); err != nil { // s1 is now the more recently active
		t.Fatal(err)
	}
	e.clock.Advance(time.Second)
	s3 := e.session("")
	if _, err := e.svc.SessionStats(e.ctx, s2); domain.KindOf(err) != domain.KindNotFound {
		t.Errorf("least recently active session still live: %v", err)
	}
	for _, id := range []string{s1, s3} {
		if _, err := e.svc.SessionStats(e.ctx, id); err != nil {
			t.Errorf("session %s: %v", id, err)
		}
	}
	if h := e.svc.Health(e.ctx); h.ActiveSessions != 2 {
		t.Errorf("%d live sessions, want 2", h.ActiveSessions)
	}
}

func TestSessionActivityIsSavedByTheTickNotPerRequest(t *testing.T) {
	e := newEnv(t)
	sid := e.session("")
	e.put(user(sid), "a", "b")
	stored, _ := e.store.LoadSessions(e.ctx)
	if got := stored[sid].OpCount; got != 0 {
		t.Errorf("op count stored after one request = %d, want 0 until the tick", got)
	}
	e.svc.maint.Tick(e.ctx)
	stored, _ = e.store.LoadSessions(e.ctx)
	if got := stored[sid].OpCount; got != 1 {
		t.Errorf("op count stored after the tick = %d, want 1", got)
	}
}

func TestSessionStats(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	e.put(project(sid), "p", "one")
	e.put(user(sid), "u1", "one")
	e.put(user(sid), "u2", "two")
	st, err := e.svc.SessionStats(e.ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	if st.Session.ID != sid || st.Session.OpCount != 3 || st.UserGraph.Active != 2 || st.Project == nil || st.Project.Active != 1 {
		t.Errorf("stats = %+v", st)
	}
	_, err = e.svc.SessionStats(e.ctx, "nope")
	wantKind(t, err, domain.KindNotFound, "session_id")
}

// A save hands the repository only what changed since the last save: a
// register saves its one new session, a tick the sessions touched since, an
// expiry the ids that went — never every session
// (docs/design/storage.md#sessions-file).
func TestSessionSavesNameOnlyWhatChanged(t *testing.T) {
	e := newEnv(t)
	var ids []string
	for range 20 {
		ids = append(ids, e.session(projA))
	}
	last := func() ports.SessionChanges {
		e.store.mu.Lock()
		defer e.store.mu.Unlock()
		return e.store.sessionSaves[len(e.store.sessionSaves)-1]
	}
	saves := func() int {
		e.store.mu.Lock()
		defer e.store.mu.Unlock()
		return len(e.store.sessionSaves)
	}
	if ch := last(); len(ch.Put) != 1 || ch.Put[0].ID != ids[19] || len(ch.Delete) != 0 {
		t.Errorf("a register saved %+v, want only the new session", ch)
	}
	e.put(user(ids[4]), "n", "g")
	e.clock.Advance(time.Minute)
	e.svc.maint.Tick(e.ctx)
	if ch := last(); len(ch.Put) != 1 || ch.Put[0].ID != ids[4] || ch.Put[0].OpCount != 1 || len(ch.Delete) != 0 {
		t.Errorf("the tick saved %+v, want only the session that made a request", ch)
	}
	n := saves()
	e.svc.maint.Tick(e.ctx)
	if saves() != n {
		t.Errorf("a tick with nothing changed saved %+v", last())
	}
	ttl := time.Duration(e.cfg.SessionTTL) * time.Microsecond
	e.clock.Advance(ttl / 2)
	e.put(user(ids[4]), "n2", "g") // keeps this one live
	e.clock.Advance(ttl / 2)
	e.svc.maint.Tick(e.ctx)
	if ch := last(); len(ch.Delete) != 19 || slices.Contains(ch.Delete, ids[4]) {
		t.Errorf("the expiry saved %+v, want the 19 expired ids removed", ch)
	}
	stored, _ := e.store.LoadSessions(e.ctx)
	if len(stored) != 1 || stored[ids[4]].ID != ids[4] {
		t.Errorf("stored sessions after the expiry: %d, want only %s", len(stored), ids[4])
	}
}

// A save that fails keeps what it did not store for the next save.
func TestFailedSessionSaveIsRetried(t *testing.T) {
	e := newEnv(t)
	sid := e.session("")
	e.put(user(sid), "n", "g")
	e.store.InjectFault(func(op string) error {
		if op == "save-sessions" {
			return errAny
		}
		return nil
	})
	e.svc.maint.Tick(e.ctx)
	e.store.InjectFault(nil)
	e.svc.maint.Tick(e.ctx)
	stored, _ := e.store.LoadSessions(e.ctx)
	if got := stored[sid].OpCount; got != 1 {
		t.Errorf("op count stored after a failed save and a retry = %d, want 1", got)
	}
}

// Only a request that succeeds counts as an operation of its session: one
// refused for bad input, an unknown id, a conflict or a failed save does not,
// nor does it move the session's last activity.
func TestRejectedRequestsDoNotCount(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	e.put(user(sid), "a", "one") // 1
	count := func() (int64, domain.Micros) {
		t.Helper()
		st, err := e.svc.SessionStats(e.ctx, sid)
		if err != nil {
			t.Fatal(err)
		}
		return st.Session.OpCount, st.Session.LastActivity
	}
	ops, last := count()
	if ops != 1 {
		t.Fatalf("op count after one write = %d, want 1", ops)
	}
	e.clock.Advance(time.Minute)
	stale := uint64(7)
	rejected := map[string]error{}
	_, rejected["a gist over the limit"] = e.svc.PutNode(e.ctx, user(sid), domain.NodeInput{ID: "b", Gist: strings.Repeat("g", domain.MaxGistLen+1)})
	_, rejected["a bad level"] = e.svc.PutNode(e.ctx, Scope{SessionID: sid, Level: "team"}, domain.NodeInput{ID: "b", Gist: "g"})
	_, rejected["another project"] = e.svc.PutNode(e.ctx, Scope{SessionID: sid, ProjectPath: projB, Level: domain.LevelProject}, domain.NodeInput{ID: "b", Gist: "g"})
	_, rejected["a stale version"] = e.svc.PutNode(e.ctx, user(sid), domain.NodeInput{ID: "a", Gist: "two", ExpectedVersion: &stale})
	_, rejected["a missing node"] = e.svc.DeleteNode(e.ctx, user(sid), "nobody")
	_, rejected["a blank query"] = e.svc.Search(e.ctx, SearchRequest{Query: "  ", SessionID: sid})
	rejected["a bad task"] = e.svc.SaveProgress(e.ctx, user(sid), "bad task id!", domain.RawJSON(`{}`))
	_, rejected["a cwd of another project"] = e.svc.Read(e.ctx, ReadRequest{SessionID: sid, CWD: projB})
	_, rejected["an id in no graph"] = e.svc.ReadNode(e.ctx, user(sid), "nobody")
	e.store.failCommits(domain.UserGraph, errAny)
	_, rejected["a failed save"] = e.svc.PutNode(e.ctx, user(sid), domain.NodeInput{ID: "c", Gist: "g"})
	e.store.failCommits(domain.UserGraph, nil)
	for what, err := range rejected {
		if err == nil {
			t.Errorf("%s was not refused", what)
		}
	}
	if got, at := count(); got != 1 || at != last {
		t.Errorf("after %d refused requests: op count %d, last activity %v; want 1 and %v", len(rejected), got, at, last)
	}
	if _, err := e.svc.Read(e.ctx, ReadRequest{SessionID: sid}); err != nil {
		t.Fatal(err)
	}
	if got, at := count(); got != 2 || at != e.clock.Now() {
		t.Errorf("after a read: op count %d, last activity %v; want 2 and now", got, at)
	}
}

// TestProjectKeyOnALocalServer: a server of one person names projects by
// their paths (docs/design/team.md#project-keys): a project_key beside a
// path is checked and the path used; a key alone is refused naming
// project_key, and so is a key that is no key.
func TestProjectKeyOnALocalServer(t *testing.T) {
	e := newEnv(t)
	s, err := e.svc.RegisterSession(e.ctx, projA, "github.com/acme/api")
	if err != nil || s.ProjectPath != projA {
		t.Fatalf("register with a path and a key: %+v, %v; want bound to %s", s, err, projA)
	}
	res, err := e.svc.Read(e.ctx, ReadRequest{CWD: projA, ProjectKey: "github.com/acme/api"})
	if err != nil || res.Full == nil || res.Full.Project == nil || res.Full.Project.Key.Project != projA {
		t.Fatalf("kg_read with cwd and project_key: %+v, %v; want the project at %s", res.Full, err, projA)
	}
	_, err = e.svc.RegisterSession(e.ctx, "", "github.com/acme/api")
	wantKind(t, err, domain.KindInvalid, "project_key")
	_, err = e.svc.PutNode(e.ctx, Scope{ProjectPath: projA, ProjectKey: "bad\x00key", Level: domain.LevelProject},
		domain.NodeInput{ID: "n", Gist: "g"})
	wantKind(t, err, domain.KindInvalid, "project_key")
}
