package app

import (
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

func TestRestartKeepsGraphsSessionsAndWatermarks(t *testing.T) {
	e := newEnv(t)
	a, b := e.session(projA), e.session(projA)
	e.put(project(b), "n1", "before A syncs")
	if _, err := e.svc.Sync(e.ctx, a); err != nil {
		t.Fatal(err)
	}
	e.put(project(b), "n2", "after A synced")
	e.put(user(a), "u", "A's own")

	e.restart()

	res, err := e.svc.Read(e.ctx, ReadRequest{SessionID: a})
	if err != nil {
		t.Fatalf("session lost in the restart: %v", err)
	}
	sameIDs(t, "project after restart", ids(res.Full.Project.View.Active), []string{"n1", "n2"})
	sameIDs(t, "user after restart", ids(res.Full.User.View.Active), []string{"u"})
	sync, err := e.svc.Sync(e.ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	sameIDs(t, "A's sync after restart", syncedIDs(*sync.Project), []string{"n2"})
	sameIDs(t, "A's user sync after restart", syncedIDs(sync.User), nil)
	st, _ := e.svc.SessionStats(e.ctx, a)
	if st.Session.OpCount != 4 || st.Session.ProjectPath != projA {
		t.Errorf("session after restart = %+v", st.Session)
	}
}

func TestLoadNeverReusesASeqASessionHasSeen(t *testing.T) {
	e := newEnv(t)
	if err := e.svc.Close(e.ctx); err != nil {
		t.Fatal(err)
	}
	// A session that has seen seq 100 of a graph stored at seq 0 (say,
	// restored from an older backup).
	now := e.clock.Now()
	if err := e.store.UpdateSessions(e.ctx, ports.PutSessions(map[string]ports.Session{
		"00000000000000aa": {ID: "00000000000000aa", Start: now, LastActivity: now, Synced: map[domain.GraphKey]uint64{domain.UserGraph: 100}},
	})); err != nil {
		t.Fatal(err)
	}
	e.svc = e.open()
	r := e.put(Scope{Level: domain.LevelUser}, "n", "new")
	if r.Node.Version.Seq <= 100 {
		t.Errorf("seq %d handed out again after a session saw 100", r.Node.Version.Seq)
	}
	res, err := e.svc.Sync(e.ctx, "00000000000000aa")
	if err != nil {
		t.Fatal(err)
	}
	sameIDs(t, "sync", syncedIDs(res.User), []string{"n"})
}
