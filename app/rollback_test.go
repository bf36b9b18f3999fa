package app

import (
	"context"
	"testing"

	"github.com/kg-memory/kg/domain"
)

// olderSchema is a store whose graphs load as an older schema wrote them,
// so that every load upgrades its graph (domain.Restore), which must then
// be written back.
type olderSchema struct{ *countingStore }

func (s olderSchema) Load(ctx context.Context, key domain.GraphKey) (domain.GraphData, error) {
	d, err := s.countingStore.Load(ctx, key)
	d.Schema = domain.SchemaVersion - 1
	return d, err
}

// A graph upgraded by its load, whose save failed, is served with the
// upgrade pending; a write whose save fails too is taken back whole all the
// same: the node keeps the value on disk, kg_sync reports nothing, and the
// next save writes the upgrade, not the failed write
// (TestRollbackAfterAnUpgrade in domain).
func TestFailedWriteAfterAFailedUpgradeChangesNothing(t *testing.T) {
	e := newEnv(t)
	e.put(user(e.session("")), "n", "on disk")
	if err := e.svc.Close(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.store.failCommits(domain.UserGraph, errAny)
	svc, err := New(e.cfg, Deps{Graphs: olderSchema{e.store}, Sessions: e.store, Clock: e.clock, Events: e.events, Paths: fakePaths{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(context.Background()) })
	e.svc = svc
	a, b := e.session(""), e.session("")
	if got := e.readByID(a, "n"); len(got) != 1 || got[0].Node.Gist != "on disk" {
		t.Fatalf("read after the load: %+v", got)
	}

	if _, err := e.svc.PutNode(e.ctx, user(a), domain.NodeInput{ID: "n", Gist: "never saved"}); err == nil {
		t.Fatal("the put succeeded on a failing store")
	}
	if got := e.readByID(a, "n"); got[0].Node.Gist != "on disk" {
		t.Errorf("after the failed put: gist %q, want the one on disk", got[0].Node.Gist)
	}
	res, err := e.svc.Sync(e.ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	sameIDs(t, "sync after the failed put", syncedIDs(res.User), nil)

	e.store.failCommits(domain.UserGraph, nil)
	e.put(user(a), "m", "the next write")
	if n, _ := e.store.stored(t, domain.UserGraph, "n"); n.Gist != "on disk" {
		t.Errorf("stored gist %q, want the one on disk", n.Gist)
	}
}
