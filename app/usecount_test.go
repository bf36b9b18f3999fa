package app

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kg-memory/kg/app/sessiontable"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/ports"
)

// readByID reads ids through kg_read in session sid.
func (e *env) readByID(sid string, ids ...string) []NodeRead {
	e.t.Helper()
	res, err := e.svc.Read(e.ctx, ReadRequest{SessionID: sid, IDs: ids})
	if err != nil {
		e.t.Fatalf("Read %v: %v", ids, err)
	}
	return res.Nodes
}

// storedUse flushes the pending counts (a maintenance tick) and returns the
// stored use count and version of node id of key.
func (e *env) storedUse(key domain.GraphKey, id string) (domain.Use, domain.Version) {
	e.t.Helper()
	e.svc.maint.Tick(e.ctx)
	n, ok := e.store.stored(e.t, key, id)
	if !ok {
		e.t.Fatalf("node %q not stored", id)
	}
	return n.Use, n.Version
}

// sessions is the use count n sessions give a node on day(t0); none is a
// node never counted.
func sessions(n int) domain.Use {
	if n == 0 {
		return domain.Use{Known: true}
	}
	return domain.Use{Count: uint64(n) * domain.UseUnit, Day: domain.UseDay(domain.Micros(t0.UnixMicro())), Known: true}
}

// Each session counts a node once, by kg_put_node, by kg_read with ids or by
// CountUses, whatever it does again; no count takes a version or a seq or
// sends an event (docs/design/compaction.md#the-use-count).
func TestUseCountsOncePerSession(t *testing.T) {
	e := newEnv(t)
	a, b, c := e.session(projA), e.session(projA), e.session(projA)
	put := e.put(user(a), "n", "a lesson")
	if put.Node.Use != sessions(1) {
		t.Fatalf("a new node's use after its put = %+v, want its creator's one count", put.Node.Use)
	}
	e.put(user(a), "n", "a lesson, refined") // the same session: no second count
	want, wantV := e.storedUse(domain.UserGraph, "n")
	if want != sessions(1) {
		t.Fatalf("after two puts by one session: %+v, want one count", want)
	}
	e.events.reset()
	seq := e.userSeq()

	for i, sid := range []string{a, b, b, c} {
		got := e.readByID(sid, "n")[0].Node.Use
		wantN := []int{1, 2, 2, 3}[i]
		if got != sessions(wantN) {
			t.Errorf("read %d: the read shows use %+v, want %d sessions", i, got, wantN)
		}
	}
	if err := e.svc.counting.CountUses(e.ctx, c, domain.UserGraph, []string{"n", "n"}); err != nil {
		t.Fatal(err)
	}
	use, v := e.storedUse(domain.UserGraph, "n")
	if use != sessions(3) {
		t.Errorf("stored use after reads by a, b, b, c and c's mark = %+v, want 3 sessions", use)
	}
	if v != wantV || e.userSeq() != seq {
		t.Errorf("counting moved the version %+v → %+v or the seq", wantV, v)
	}
	for _, typ := range []string{ports.EventNodeUpdated, ports.EventNodeRecalled} {
		if evs := e.evs(typ); len(evs) != 0 {
			t.Errorf("counting sent %d %s events", len(evs), typ)
		}
	}
	// A session that has only the mark counts through it.
	d := e.session(projA)
	if err := e.svc.counting.CountUses(e.ctx, d, domain.UserGraph, []string{"n"}); err != nil {
		t.Fatal(err)
	}
	if use, _ := e.storedUse(domain.UserGraph, "n"); use != sessions(4) {
		t.Errorf("after d's mark: %+v, want 4 sessions", use)
	}
}

// Nothing but those three counts: no session, the full read, search, the REST
// read by id, edges.
func TestOnlySessionReadsByIDWritesAndMarksCount(t *testing.T) {
	e := newEnv(t)
	e.put(Scope{Level: domain.LevelUser}, "n", "shared words here") // no session: no count
	if use, _ := e.storedUse(domain.UserGraph, "n"); use != sessions(0) {
		t.Fatalf("a put without a session gave %+v, want no count", use)
	}
	a := e.session(projA)
	if _, err := e.svc.Read(e.ctx, ReadRequest{SessionID: a}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Search(e.ctx, SearchRequest{SessionID: a, Query: "shared"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.ReadNode(e.ctx, user(a), "n"); err != nil {
		t.Fatal(err)
	}
	e.edge(user(a), "n", "src/x.go", "touches")
	if use, _ := e.storedUse(domain.UserGraph, "n"); use != sessions(0) {
		t.Errorf("full read, search, REST read and an edge gave %+v, want no count", use)
	}
	e.readByID(a, "n")
	if use, _ := e.storedUse(domain.UserGraph, "n"); use != sessions(1) {
		t.Errorf("kg_read by id gave %+v, want one count", use)
	}
}

// The counted set is kept with the session: after a restart the same
// session's read does not count again, another session's does.
func TestCountedSetSurvivesRestart(t *testing.T) {
	e := newEnv(t)
	a, b := e.session(projA), e.session(projA)
	e.put(project(a), "p", "project lesson")
	e.readByID(b, "p")
	e.restart()
	e.readByID(a, "p")
	e.readByID(b, "p")
	if use, _ := e.storedUse(domain.ProjectGraph(projA), "p"); use != sessions(2) {
		t.Fatalf("after a restart, re-reads by a and b gave %+v, want the 2 counts from before", use)
	}
	c := e.session(projA)
	e.readByID(c, "p")
	if use, _ := e.storedUse(domain.ProjectGraph(projA), "p"); use != sessions(3) {
		t.Errorf("a new session's read after the restart gave %+v, want 3", use)
	}
}

// A count pending at Close is saved by it, like a read stamp.
func TestCloseSavesPendingCounts(t *testing.T) {
	e := newEnv(t)
	a, b := e.session(projA), e.session(projA)
	e.put(user(a), "n", "lesson")
	e.readByID(b, "n")
	if err := e.svc.Close(e.ctx); err != nil {
		t.Fatal(err)
	}
	if n, _ := e.store.stored(t, domain.UserGraph, "n"); n.Use != sessions(2) {
		t.Errorf("stored after Close: %+v, want 2 sessions", n.Use)
	}
	e.svc = e.open()
}

// A put that is not saved takes its count back: the session's next use
// counts.
func TestFailedPutCountsNothing(t *testing.T) {
	e := newEnv(t)
	a, b := e.session(projA), e.session(projA)
	e.put(user(a), "n", "lesson")
	e.store.failCommits(domain.UserGraph, errAny)
	if _, err := e.svc.PutNode(e.ctx, user(b), domain.NodeInput{ID: "n", Gist: "changed"}); err == nil {
		t.Fatal("the put succeeded on a failing store")
	}
	e.store.failCommits(domain.UserGraph, nil)
	e.readByID(b, "n")
	if use, _ := e.storedUse(domain.UserGraph, "n"); use != sessions(2) {
		t.Errorf("after b's failed put and b's read: %+v, want 2 sessions", use)
	}
}

// CountUses refuses what it cannot count, naming the field, and counts
// nothing then.
func TestCountUsesRefusals(t *testing.T) {
	e := newEnv(t)
	a := e.session(projA)
	e.put(user(a), "n", "lesson")
	e.put(project(a), "p", "project lesson")
	b := e.session(projA)
	none := e.session("")
	for _, tc := range []struct {
		name, session string
		key           domain.GraphKey
		ids           []string
		kind          domain.Kind
		field, msg    string
	}{
		{"no session", "", domain.UserGraph, []string{"n"}, domain.KindInvalid, "session_id", "required"},
		{"unknown session", "00000000000000ff", domain.UserGraph, []string{"n"}, domain.KindNotFound, "session_id", "kg_read with cwd"},
		{"no ids", b, domain.UserGraph, nil, domain.KindInvalid, "ids", "at least one"},
		{"unknown id", b, domain.UserGraph, []string{"n", "ghost", "gone"}, domain.KindNotFound, "ids", `"ghost" and "gone"`},
		{"another project", b, domain.ProjectGraph(projB), []string{"p"}, domain.KindInvalid, "level", projA},
		{"no project", none, domain.ProjectGraph(projA), []string{"p"}, domain.KindInvalid, "level", "no project"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := e.svc.counting.CountUses(e.ctx, tc.session, tc.key, tc.ids)
			de := wantKind(t, err, tc.kind, tc.field)
			if !strings.Contains(de.Error(), tc.msg) {
				t.Errorf("error %q does not say %q", de, tc.msg)
			}
		})
	}
	if use, _ := e.storedUse(domain.UserGraph, "n"); use != sessions(1) {
		t.Errorf("refused counts changed n: %+v", use)
	}
	// The refused call claimed nothing: b's mark still counts.
	if err := e.svc.counting.CountUses(e.ctx, b, domain.UserGraph, []string{"n"}); err != nil {
		t.Fatal(err)
	}
	if use, _ := e.storedUse(domain.UserGraph, "n"); use != sessions(2) {
		t.Errorf("b's mark after its refused one: %+v, want 2", use)
	}
}

// A session remembers at most MaxCountedPerGraph nodes of a graph; the
// oldest are forgotten first.
func TestCountedSetIsCapped(t *testing.T) {
	e := newEnv(t)
	a := e.session(projA)
	ids := make([]string, sessiontable.MaxCountedPerGraph+1)
	for i := range ids {
		ids[i] = fmt.Sprintf("n%05d", i)
	}
	e.svc.sessions.ClaimCounts(a, domain.UserGraph, ids)
	s, err := e.svc.sessions.Lookup(a, e.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	got := s.Counted[domain.UserGraph]
	if len(got) != sessiontable.MaxCountedPerGraph || got[0] != "n00001" || got[len(got)-1] != ids[len(ids)-1] {
		t.Errorf("counted set: %d ids from %s to %s, want %d from n00001", len(got), got[0], got[len(got)-1], sessiontable.MaxCountedPerGraph)
	}
	if fresh := e.svc.sessions.ClaimCounts(a, domain.UserGraph, []string{"n00000", "n00001"}); len(fresh) != 1 || fresh[0] != "n00000" {
		t.Errorf("claim after the cap = %v, want the forgotten n00000 only", fresh)
	}
}

// A node read by three sessions outranks one written once, and stays active
// through a run that archives the other; under KG_SCORING=seed the two rank
// by recency and connectedness instead.
func TestCompactionKeepsWhatSessionsUse(t *testing.T) {
	for _, tc := range []struct {
		scoring  compaction.Scoring
		archived string
	}{{compaction.ScoringUse, "written-once"}, {compaction.ScoringSeed, "read-by-three"}} {
		t.Run(tc.scoring.String(), func(t *testing.T) {
			e := newEnv(t, func(c *Config) { c.Policy.Scoring = tc.scoring; c.Policy.Grace = 0 })
			a, b, c := e.session(projA), e.session(projA), e.session(projA)
			e.put(user(a), "read-by-three", "the lesson every session needs: "+strings.Repeat("word ", 60))
			e.clock.Advance(time.Hour)
			for _, sid := range []string{a, b, c} {
				e.readByID(sid, "read-by-three")
			}
			e.clock.Advance(time.Hour)
			e.put(Scope{Level: domain.LevelUser}, "written-once", "a lesson no session came back to: "+strings.Repeat("word ", 60))
			e.svc.maint.Tick(e.ctx)
			e.cfg.Policy.MaxTokens = 100
			e.restart()
			if _, err := e.svc.Compact(e.ctx, user(a)); err != nil {
				t.Fatal(err)
			}
			n, _ := e.store.stored(t, domain.UserGraph, tc.archived)
			if n.Tier != domain.Archived {
				t.Errorf("%s is %s after the run, want archived", tc.archived, n.Tier)
			}
		})
	}
}

// kg_useful counts what it marks as a use of the session, once: a session
// that marks a node it never read or wrote makes that node more used, and a
// second mark by it adds nothing (docs/design/compaction.md#the-use-count).
func TestUsefulMarkCountsAUse(t *testing.T) {
	e := newEnv(t)
	writer, reader := e.session(projA), e.session(projA)
	e.put(project(writer), "n", "a lesson")
	if use, _ := e.storedUse(domain.ProjectGraph(projA), "n"); use != sessions(1) {
		t.Fatalf("after the put: %+v, want the writer's one count", use)
	}
	for range 2 {
		if _, err := e.svc.MarkUseful(e.ctx, reader, []string{"n"}); err != nil {
			t.Fatal(err)
		}
	}
	if use, _ := e.storedUse(domain.ProjectGraph(projA), "n"); use != sessions(2) {
		t.Errorf("after two kg_useful marks by another session: %+v, want 2 sessions", use)
	}
}

// userSeq is the loaded user graph's seq.
func (e *env) userSeq() uint64 {
	en, err := e.svc.store.Get(e.ctx, domain.UserGraph)
	if err != nil {
		e.t.Fatal(err)
	}
	en.RLock()
	defer en.RUnlock()
	return en.Graph().Seq()
}
