package app

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/merge"
	"github.com/kg-memory/kg/ports"
)

// mergeEnv is a project graph with near-duplicates a and b: b has edges in
// and out, one to a file path, one to a, and a's own edge from d.
func mergeEnv(t *testing.T) (*env, string) {
	e := newEnv(t)
	sid := e.session(projA)
	sc := project(sid)
	for _, n := range []domain.NodeInput{
		{ID: "a", Gist: "retry the flaky upload three times", Notes: []string{"seen in CI"}},
		{ID: "b", Gist: "retry the flaky upload 3 times", Notes: []string{"seen in CI", "backoff 2s"}, Touches: []string{"upload/retry.go"}},
		{ID: "c", Gist: "the upload client"},
		{ID: "d", Gist: "CI notes"},
	} {
		if _, err := e.svc.PutNode(e.ctx, sc, n); err != nil {
			t.Fatal(err)
		}
	}
	for _, ed := range []domain.EdgeInput{
		{From: "b", To: "c", Rel: "uses"},
		{From: "b", To: "upload/retry.go", Rel: "lives-in"},
		{From: "d", To: "b", Rel: "mentions", Notes: []string{"via b"}},
		{From: "d", To: "a", Rel: "mentions", Notes: []string{"via a"}},
		{From: "b", To: "a", Rel: "duplicates"},
	} {
		if _, err := e.svc.PutEdge(e.ctx, sc, ed); err != nil {
			t.Fatal(err)
		}
	}
	return e, sid
}

func TestMergeNodesIsOneDurableWrite(t *testing.T) {
	e, _ := mergeEnv(t)
	other := e.session(projA)
	if _, err := e.svc.Sync(e.ctx, other); err != nil { // the watermark: now
		t.Fatal(err)
	}
	key := domain.ProjectGraph(projA)
	commits := e.store.count(key)
	e.svc.store.WaitIdle()
	e.events.reset()

	r, err := e.svc.MergeNodes(e.ctx, Scope{ProjectPath: projA, Level: domain.LevelProject},
		merge.MergeInput{Into: "a", From: "b", Gist: "retry the flaky upload 3 times with a 2s backoff"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.store.count(key) - commits; got != 1 {
		t.Errorf("the merge took %d commits; want 1", got)
	}
	a, ok := e.store.stored(t, key, "a")
	if !ok || a.Gist != "retry the flaky upload 3 times with a 2s backoff" || !slices.Equal(a.Notes, []string{"seen in CI", "backoff 2s"}) ||
		!slices.Equal(a.Touches, []string{"upload/retry.go"}) {
		t.Fatalf("stored a = %+v", a)
	}
	if _, ok := e.store.stored(t, key, "b"); ok {
		t.Fatal("b is still stored")
	}
	if r.Node == nil || r.Node.ID != "a" || r.EdgesDeleted != 4 || len(r.Written) != 3 || r.DryRun {
		t.Errorf("result: node %+v, %d edges deleted, %d written", r.Node, r.EdgesDeleted, len(r.Written))
	}

	// The events are the usual ones, in seq order: a, the edges, b's delete.
	var got []string
	e.svc.store.WaitIdle()
	for _, ev := range e.events.evs {
		switch ev.Type {
		case ports.EventNodeUpdated:
			got = append(got, "node "+ev.Node.ID)
		case ports.EventEdgeUpdated:
			got = append(got, "edge "+ev.Edge.Key().String()+" "+strings.Join(ev.Edge.Notes, "|"))
		case ports.EventNodeDeleted:
			got = append(got, "deleted "+ev.NodeID)
		}
	}
	want := []string{"node a", "edge a --lives-in--> upload/retry.go ", "edge a --uses--> c ", "edge d --mentions--> a via a|via b", "deleted b"}
	if !slices.Equal(got, want) {
		t.Errorf("events:\n got %q\nwant %q", got, want)
	}

	// Another session's kg_sync hears the same changes.
	s, err := e.svc.Sync(e.ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	var heard []string
	for _, it := range s.Project.Items {
		switch {
		case it.Node != nil:
			heard = append(heard, "node "+it.Node.ID)
		case it.Edge != nil:
			heard = append(heard, "edge "+it.Edge.Key().String())
		case it.NodeID != "":
			heard = append(heard, "deleted node "+it.NodeID)
		case it.EdgeKey != nil:
			heard = append(heard, "deleted edge "+it.EdgeKey.String())
		}
	}
	for _, w := range []string{"node a", "edge a --uses--> c", "edge d --mentions--> a", "deleted node b", "deleted edge b --uses--> c", "deleted edge b --duplicates--> a"} {
		if !slices.Contains(heard, w) {
			t.Errorf("kg_sync of another session: %q missing from %q", w, heard)
		}
	}
}

func TestMergeNodesDryRunChangesNothing(t *testing.T) {
	e, _ := mergeEnv(t)
	key := domain.ProjectGraph(projA)
	commits := e.store.count(key)
	r, err := e.svc.MergeNodes(e.ctx, Scope{ProjectPath: projA, Level: domain.LevelProject}, merge.MergeInput{Into: "b", From: "a"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !r.DryRun || r.Node != nil || len(r.Plan.Edges) != 2 || r.Plan.Gist != "retry the flaky upload 3 times" {
		t.Errorf("plan = %+v", r.Plan)
	}
	e.svc.store.WaitIdle()
	if e.store.count(key) != commits {
		t.Error("a dry run committed")
	}
	if _, ok := e.store.stored(t, key, "a"); !ok {
		t.Error("a dry run deleted a")
	}
}

func TestMergeNodesConflictAndBadInput(t *testing.T) {
	e, sid := mergeEnv(t)
	sc := project(sid)
	one := uint64(1)
	// An agent writes b after the person looked at v1.
	if _, err := e.svc.PutNode(e.ctx, sc, domain.NodeInput{ID: "b", Gist: "retry the flaky upload 3 times, then give up"}); err != nil {
		t.Fatal(err)
	}
	_, err := e.svc.MergeNodes(e.ctx, sc, merge.MergeInput{Into: "a", From: "b", IntoVersion: &one, FromVersion: &one}, false)
	wantKind(t, err, domain.KindConflict, "from_version")
	if _, ok := e.store.stored(t, domain.ProjectGraph(projA), "b"); !ok {
		t.Fatal("a refused merge deleted b")
	}
	_, err = e.svc.MergeNodes(e.ctx, sc, merge.MergeInput{Into: "a", From: "nope"}, false)
	wantKind(t, err, domain.KindNotFound, "from")
	_, err = e.svc.MergeNodes(e.ctx, Scope{SessionID: sid}, merge.MergeInput{Into: "a", From: "b"}, false)
	wantKind(t, err, domain.KindInvalid, "level")
}

// A merge is in the change log like any write, item by item, and an undo of
// its seqs puts both nodes and every edge back.
func TestMergeNodesIsInTheChangeLogAndUndone(t *testing.T) {
	e, _ := mergeEnv(t)
	key := domain.ProjectGraph(projA)
	sc := Scope{ProjectPath: projA, Level: domain.LevelProject}
	before, err := e.store.Store.Load(e.ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	m, err := e.svc.MergeNodes(e.ctx, sc, merge.MergeInput{Into: "a", From: "b", Gist: "merged"}, false)
	if err != nil {
		t.Fatal(err)
	}
	after := e.storedSeq(key)
	h, err := e.svc.History(e.ctx, HistoryRequest{Scope: sc, ID: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Entries) == 0 || h.Entries[0].Op != domain.HistoryDelete || h.Entries[0].Seq != after {
		t.Fatalf("b's history starts %+v; want its delete at seq %d", h.Entries[:min(1, len(h.Entries))], after)
	}
	if m.FirstSeq != before.Seq+1 || m.LastSeq != after {
		t.Errorf("the merge's seqs %d–%d; want %d–%d", m.FirstSeq, m.LastSeq, before.Seq+1, after)
	}
	u, err := e.svc.Undo(e.ctx, UndoRequest{Scope: sc, Range: true, From: m.FirstSeq, To: m.LastSeq})
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Graphs) != 1 || len(u.Graphs[0].Skipped) != 0 {
		t.Errorf("undo of the merge: %+v", u.Graphs)
	}
	b, ok := e.store.stored(t, key, "b")
	a, _ := e.store.stored(t, key, "a")
	if !ok || b.Gist != "retry the flaky upload 3 times" || a.Gist != "retry the flaky upload three times" || !slices.Equal(a.Notes, []string{"seen in CI"}) {
		t.Fatalf("after the undo: a %+v, b %+v (%v)", a, b, ok)
	}
	for _, k := range []domain.EdgeKey{{From: "b", To: "c", Rel: "uses"}, {From: "d", To: "b", Rel: "mentions"}, {From: "b", To: "a", Rel: "duplicates"}} {
		if !e.store.storedEdge(t, key, k) {
			t.Errorf("edge %s not back", k)
		}
	}
	if e.store.storedEdge(t, key, domain.EdgeKey{From: "a", To: "c", Rel: "uses"}) {
		t.Error("the rewired edge is still there")
	}
}

// storedEdge reports whether the store holds the edge k of key.
func (c *countingStore) storedEdge(t *testing.T, key domain.GraphKey, k domain.EdgeKey) bool {
	t.Helper()
	d, err := c.Store.Load(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(d.Edges, func(e domain.Edge) bool { return e.Key() == k })
}
