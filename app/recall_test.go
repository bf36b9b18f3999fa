package app

import (
	"errors"
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// seedTiers stores a user graph with an archived node "a", an orphaned
// neighbour "b" and an active node "c", as an earlier run left them.
func seedTiers(t *testing.T, s *countingStore) {
	t.Helper()
	old := domain.Micros(t0.UnixMicro()) - domain.Days(30)
	s.seed(t, domain.UserGraph, domain.GraphData{
		Nodes: []domain.Node{
			{ID: "a", Gist: "archived one", Tier: domain.Archived, Created: old, Version: domain.Version{V: 2, TS: old, Seq: 1}},
			{ID: "b", Gist: "orphaned one", Tier: domain.Orphaned, OrphanedAt: old, Created: old, Version: domain.Version{V: 1, TS: old, Seq: 2}},
			{ID: "c", Gist: "active one", Created: old, Version: domain.Version{V: 1, TS: old, Seq: 3}},
		},
		Edges: []domain.Edge{{From: "a", To: "b", Rel: "leads-to", Version: domain.Version{V: 1, TS: old, Seq: 4}}},
		Seq:   4,
	})
}

func TestReadByIDPromotesAndRescues(t *testing.T) {
	e := newEnv(t)
	seedTiers(t, e.store)
	e.restart()
	sid := e.session("")
	before := e.store.count(domain.UserGraph)

	res, err := e.svc.Read(e.ctx, ReadRequest{SessionID: sid, IDs: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	rd := res.Nodes[0]
	if rd.WasTier != domain.Archived || rd.Node.Tier != domain.Active || rd.RecallNotSaved != "" {
		t.Fatalf("read: was %s now %s (%q); want archived → active", rd.WasTier, rd.Node.Tier, rd.RecallNotSaved)
	}
	sameIDs(t, "rescued", rd.Rescued, []string{"b"})
	if got := e.store.count(domain.UserGraph); got != before+1 {
		t.Errorf("commits = %d, want one more than %d: a promotion is durable before the read returns", got, before)
	}
	a, _ := e.store.stored(t, domain.UserGraph, "a")
	b, _ := e.store.stored(t, domain.UserGraph, "b")
	if a.Tier != domain.Active || a.Version.V != 3 || b.Tier != domain.Archived {
		t.Errorf("stored a: %s v%d, b: %s; want a active v3, b archived", a.Tier, a.Version.V, b.Tier)
	}
	evs := e.evs(ports.EventNodeRecalled)
	if len(evs) != 1 || evs[0].SourceSession != sid || evs[0].Node.ID != "a" || len(evs[0].Rescued) != 1 {
		t.Errorf("node_recalled events = %+v", evs)
	}
	// The edge's other end shows its new tier.
	if end := rd.Out[0]; end.OtherTier == nil || *end.OtherTier != domain.Archived {
		t.Errorf("edge end b shows tier %v, want archived", end.OtherTier)
	}
}

func TestReadByIDRecallSaveFailure(t *testing.T) {
	e := newEnv(t)
	seedTiers(t, e.store)
	e.restart()
	sid := e.session("")
	e.store.failCommits(domain.UserGraph, errors.New("disk full"))

	res, err := e.svc.Read(e.ctx, ReadRequest{SessionID: sid, IDs: []string{"a"}})
	if err != nil {
		t.Fatalf("a recall that cannot be saved still reads: %v", err)
	}
	rd := res.Nodes[0]
	if rd.RecallNotSaved == "" || rd.Node.Gist != "archived one" || rd.Node.Tier != domain.Archived {
		t.Errorf("read = tier %s, note %q; want the content, archived, with a note", rd.Node.Tier, rd.RecallNotSaved)
	}
	if len(e.evs(ports.EventNodeRecalled)) != 0 {
		t.Error("node_recalled published for a recall that was not saved")
	}
	full, _ := e.svc.Read(e.ctx, ReadRequest{SessionID: sid})
	sameIDs(t, "archived after the failed recall", full.Full.User.View.Archived, []string{"a"})

	e.store.failCommits(domain.UserGraph, nil)
	res, err = e.svc.Read(e.ctx, ReadRequest{SessionID: sid, IDs: []string{"a"}})
	if err != nil || res.Nodes[0].Node.Tier != domain.Active || res.Nodes[0].RecallNotSaved != "" {
		t.Fatalf("retry: %+v, %v; want promoted", res.Nodes, err)
	}
}

func TestReadByIDOfActiveNodeStampsWithNextWrite(t *testing.T) {
	e := newEnv(t)
	sid := e.session("")
	e.put(user(sid), "n", "gist")
	commits := e.store.count(domain.UserGraph)
	e.clock.Advance(3600e9)
	readAt := e.clock.Now()

	res, err := e.svc.Read(e.ctx, ReadRequest{SessionID: sid, IDs: []string{"n"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Nodes[0].Node.LastRead != readAt {
		t.Errorf("read shows last read %d, want %d", res.Nodes[0].Node.LastRead, readAt)
	}
	if e.store.count(domain.UserGraph) != commits {
		t.Error("reading an active node waited on disk")
	}
	if n, _ := e.store.stored(t, domain.UserGraph, "n"); n.LastRead == readAt {
		t.Error("read stamp stored before any write")
	}
	e.put(user(sid), "other", "a write carries the stamp")
	if n, _ := e.store.stored(t, domain.UserGraph, "n"); n.LastRead != readAt {
		t.Errorf("stored last read = %d, want %d after the next write", n.LastRead, readAt)
	}
}

func TestReadNode(t *testing.T) {
	e := newEnv(t)
	seedTiers(t, e.store)
	e.restart()

	rd, err := e.svc.ReadNode(e.ctx, Scope{Level: domain.LevelUser}, "a")
	if err != nil {
		t.Fatal(err)
	}
	if rd.WasTier != domain.Archived || rd.Node.Tier != domain.Active {
		t.Errorf("REST read: was %s now %s, want a recall", rd.WasTier, rd.Node.Tier)
	}
	if evs := e.evs(ports.EventNodeRecalled); len(evs) != 1 || evs[0].SourceSession != "" {
		t.Errorf("events = %+v, want one without a session", evs)
	}

	_, err = e.svc.ReadNode(e.ctx, Scope{Level: domain.LevelUser}, "nope")
	de := wantKind(t, err, domain.KindNotFound, "id")
	if de.Error() != `id: node "nope" not found in user graph` {
		t.Errorf("message %q", de.Error())
	}
	_, err = e.svc.ReadNode(e.ctx, Scope{}, "a")
	wantKind(t, err, domain.KindInvalid, "level")
	_, err = e.svc.ReadNode(e.ctx, Scope{Level: domain.LevelProject}, "a")
	wantKind(t, err, domain.KindInvalid, "project_path")
	_, err = e.svc.ReadNode(e.ctx, Scope{Level: domain.LevelProject, ProjectPath: "rel"}, "a")
	de = wantKind(t, err, domain.KindInvalid, "project_path")
	if de.Error() != "project_path: must be an absolute path" {
		t.Errorf("message %q", de.Error())
	}
	_, err = e.svc.ReadNode(e.ctx, Scope{Level: domain.LevelProject, ProjectPath: projA}, "a")
	wantKind(t, err, domain.KindNotFound, "id")
}
