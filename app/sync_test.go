package app

import (
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/changes"
	"github.com/kg-memory/kg/ports"
)

// syncedIDs lists what a report says: node ids, "-id" for deleted nodes,
// "edge:<from>-<rel>-<to>" for edges.
func syncedIDs(r changes.Report) []string {
	var out []string
	for _, it := range r.Items {
		switch {
		case it.Deleted && it.NodeID != "":
			out = append(out, "-"+it.NodeID)
		case it.Deleted:
			out = append(out, "-edge:"+it.EdgeKey.From+"-"+it.EdgeKey.Rel+"-"+it.EdgeKey.To)
		case it.Node != nil:
			out = append(out, it.Node.ID)
		case it.Edge != nil:
			out = append(out, "edge:"+it.Edge.From+"-"+it.Edge.Rel+"-"+it.Edge.To)
		}
	}
	return out
}

func TestSyncTwoSessions(t *testing.T) {
	e := newEnv(t)
	a, b := e.session(projA), e.session(projA)

	res, err := e.svc.Sync(e.ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Empty() {
		t.Fatalf("first sync of a fresh session = %+v, want nothing", res)
	}

	e.put(project(b), "n1", "by B")
	e.put(project(a), "n2", "by A")
	e.put(user(b), "u1", "by B in the user graph")
	res, err = e.svc.Sync(e.ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	sameIDs(t, "A's project sync", syncedIDs(*res.Project), []string{"n1"})
	sameIDs(t, "A's user sync", syncedIDs(res.User), []string{"u1"})
	if res.ProjectPath != projA {
		t.Errorf("project path %q", res.ProjectPath)
	}

	res, _ = e.svc.Sync(e.ctx, a)
	if !res.Empty() {
		t.Errorf("second sync = %+v, want nothing new", res)
	}

	if _, err := e.svc.DeleteNode(e.ctx, project(b), "n1"); err != nil {
		t.Fatal(err)
	}
	res, _ = e.svc.Sync(e.ctx, a)
	sameIDs(t, "A sees B's deletion", syncedIDs(*res.Project), []string{"-n1"})

	// B hears of A's write, not its own.
	res, _ = e.svc.Sync(e.ctx, b)
	sameIDs(t, "B's project sync", syncedIDs(*res.Project), []string{"n2"})
	sameIDs(t, "B's user sync", syncedIDs(res.User), nil)

	_, err = e.svc.Sync(e.ctx, "ffffffffffffffff")
	wantKind(t, err, domain.KindNotFound, "session_id")
}

func TestOwnWritesNeverMoveTheWatermark(t *testing.T) {
	e := newEnv(t)
	a, b := e.session(""), e.session("")
	e.put(user(b), "theirs", "written by B first")
	e.put(user(a), "mine", "then A writes")
	e.put(user(a), "mine2", "and again")
	res, err := e.svc.Sync(e.ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	sameIDs(t, "A's sync", syncedIDs(res.User), []string{"theirs"})
}

func TestSyncReportsOnlyDurableChanges(t *testing.T) {
	e := newEnv(t)
	a, b := e.session(""), e.session("")
	e.put(user(b), "x", "first")
	e.store.failCommits(domain.UserGraph, errAny)
	if _, err := e.svc.PutNode(e.ctx, user(b), domain.NodeInput{ID: "y", Gist: "never saved"}); err == nil {
		t.Fatal("write succeeded on a failing store")
	}
	res, _ := e.svc.Sync(e.ctx, a)
	sameIDs(t, "sync", syncedIDs(res.User), []string{"x"})
}

func TestSyncOfASessionOfTheReplacedServer(t *testing.T) {
	e := newEnv(t)
	w := e.session("")
	e.put(user(w), "before", "written before the old session last synced")
	syncedAt := e.clock.Now()
	e.clock.Advance(60e9)
	e.put(user(w), "after", "written after")
	if err := e.svc.Close(e.ctx); err != nil {
		t.Fatal(err)
	}
	// A session carried over from the replaced server: a time, no seqs.
	old, _ := e.store.LoadSessions(e.ctx)
	old["0badc0de"] = ports.Session{ID: "0badc0de", Start: syncedAt - 100, LastActivity: e.clock.Now(), LastSyncedTS: syncedAt}
	if err := e.store.UpdateSessions(e.ctx, ports.PutSessions(old)); err != nil {
		t.Fatal(err)
	}
	e.svc = e.open()
	res, err := e.svc.Sync(e.ctx, "0badc0de")
	if err != nil {
		t.Fatal(err)
	}
	sameIDs(t, "old session's sync", syncedIDs(res.User), []string{"after"})
}
