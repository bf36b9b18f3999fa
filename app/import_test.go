package app

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/importing"
	"github.com/kg-memory/kg/ports"
)

func TestExportThenImportIntoAnotherProject(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	e.put(project(sid), "a", "first")
	e.put(project(sid), "b", "second")
	e.edge(project(sid), "a", "src/auth/refresh.py", "touches")
	if err := e.svc.SaveProgress(e.ctx, project(sid), "task", domain.RawJSON(`{"step":2}`)); err != nil {
		t.Fatal(err)
	}
	ex, err := e.svc.Export(e.ctx, project(sid))
	if err != nil {
		t.Fatal(err)
	}
	if ex.Key != domain.ProjectGraph(projA) || len(ex.Data.Nodes) != 2 || len(ex.Data.Edges) != 1 || len(ex.Data.Progress) != 1 {
		t.Fatalf("export = %+v", ex)
	}

	e.clock.Advance(time.Hour)
	e.resetEvents()
	other := e.session(projB)
	to := Scope{ProjectPath: projB, Level: domain.LevelProject}
	commits := e.store.count(domain.ProjectGraph(projB))
	res, err := e.svc.Import(e.ctx, to, importing.Merge, ex.Data, ImportOptions{ListMoves: -1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Level != domain.LevelProject || res.Project != projB || len(res.Nodes) != 2 || len(res.Edges) != 1 || len(res.Progress) != 1 {
		t.Fatalf("import = %+v", res)
	}
	if got := e.store.count(domain.ProjectGraph(projB)); got != commits+1 {
		t.Errorf("commits = %d, want one durable batch after %d", got, commits)
	}
	a, ok := e.store.stored(t, domain.ProjectGraph(projB), "a")
	if !ok || a.Gist != "first" || a.Created != ex.Data.Nodes[0].Created || a.Version.TS != ex.Data.Nodes[0].Version.TS {
		t.Errorf("stored a = %+v; want the exported text and times", a)
	}
	if n := len(e.evs(ports.EventNodeUpdated)); n != 2 {
		t.Errorf("%d node_updated events, want 2", n)
	}
	if n := len(e.evs(ports.EventEdgeUpdated)); n != 1 {
		t.Errorf("%d edge_updated events, want 1", n)
	}
	// Another session of that project hears of it through kg_sync.
	rep, err := e.svc.Sync(e.ctx, other)
	if err != nil || rep.Project == nil || len(rep.Project.Items) != 3 {
		t.Errorf("sync after import = %+v, %v", rep.Project, err)
	}

	// The same document again writes nothing.
	e.resetEvents()
	res, err = e.svc.Import(e.ctx, to, importing.Merge, ex.Data, ImportOptions{ListMoves: -1})
	if err != nil || len(res.Nodes)+len(res.Edges)+len(res.Progress) != 0 || res.Unchanged != 4 {
		t.Errorf("second import = %+v, %v", res, err)
	}
	if n := len(e.evs(ports.EventNodeUpdated)); n != 0 {
		t.Errorf("second import published %d node events", n)
	}
}

func TestImportReplacePublishesDeletions(t *testing.T) {
	e := newEnv(t)
	sid := e.session("")
	e.put(user(sid), "old", "to go")
	e.put(user(sid), "kept", "stays")
	e.edge(user(sid), "kept", "old", "r")
	e.resetEvents()
	res, err := e.svc.Import(e.ctx, user(sid), importing.Replace, domain.GraphData{Nodes: []domain.Node{{ID: "kept", Gist: "stays"}}}, ImportOptions{ListMoves: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.DeletedNodes) != 1 || res.DeletedNodes[0].ID != "old" {
		t.Fatalf("import = %+v", res)
	}
	evs := e.evs(ports.EventNodeDeleted)
	if len(evs) != 1 || evs[0].NodeID != "old" || evs[0].EdgesDeleted != 1 || evs[0].SourceSession != sid || evs[0].Seq == 0 {
		t.Errorf("node_deleted events = %+v", evs)
	}
	if _, ok := e.store.stored(t, domain.UserGraph, "old"); ok {
		t.Error("the replaced node is still stored")
	}
}

func TestImportRejectsAndChangesNothing(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	e.put(user(sid), "n", "v1")
	before := e.store.count(domain.UserGraph)
	e.resetEvents()
	bad := domain.GraphData{Nodes: []domain.Node{{ID: "fine", Gist: "ok"}, {ID: "x", Gist: strings.Repeat("g", 1001)}}}
	tests := []struct {
		name  string
		sc    Scope
		mode  importing.Mode
		doc   domain.GraphData
		kind  domain.Kind
		field string
	}{
		{"bad item", user(sid), importing.Replace, bad, domain.KindInvalid, "nodes[1].gist"},
		{"bad mode", user(sid), "upsert", domain.GraphData{}, domain.KindInvalid, "mode"},
		{"no level", Scope{SessionID: sid}, importing.Merge, domain.GraphData{}, domain.KindInvalid, "level"},
		{"unknown session", user("0123456789abcdef"), importing.Merge, domain.GraphData{}, domain.KindNotFound, "session_id"},
		{"project without one", Scope{Level: domain.LevelProject}, importing.Merge, domain.GraphData{}, domain.KindInvalid, "project_path"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.svc.Import(e.ctx, tc.sc, tc.mode, tc.doc, ImportOptions{ListMoves: -1})
			wantKind(t, err, tc.kind, tc.field)
		})
	}
	if e.store.count(domain.UserGraph) != before || len(e.evs(ports.EventNodeDeleted))+len(e.evs(ports.EventNodeUpdated)) != 0 {
		t.Error("a rejected import wrote or published")
	}
	if n, ok := e.store.stored(t, domain.UserGraph, "n"); !ok || n.Gist != "v1" {
		t.Errorf("stored n = %+v, %v", n, ok)
	}
}

func TestImportSaveFailureChangesNothing(t *testing.T) {
	e := newEnv(t)
	sid := e.session("")
	e.put(user(sid), "n", "v1")
	e.resetEvents()
	e.store.failCommits(domain.UserGraph, errAny)
	_, err := e.svc.Import(e.ctx, user(sid), importing.Replace, domain.GraphData{Nodes: []domain.Node{{ID: "m", Gist: "new"}}}, ImportOptions{ListMoves: -1})
	wantKind(t, err, domain.KindUnavailable, "")
	if !errors.Is(err, errAny) {
		t.Errorf("error %v does not wrap the cause", err)
	}
	e.store.failCommits(domain.UserGraph, nil)
	got, err := e.svc.ReadGraphs(e.ctx, Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"n"}, ids(got.User.Nodes)); diff != "" {
		t.Errorf("nodes after a failed import (-want +got):\n%s", diff)
	}
	if n := len(e.evs(ports.EventNodeUpdated)) + len(e.evs(ports.EventNodeDeleted)); n != 0 {
		t.Errorf("a failed import published %d events", n)
	}
}

// resetEvents forgets the events published so far, once every committer is
// idle: events go out after the callers are acknowledged, so a write's
// events may still be on their way when it returns.
func (e *env) resetEvents() {
	e.svc.store.WaitIdle()
	e.events.reset()
}

// Importing a document again changes nothing, also once compaction has moved
// its nodes: the import compares content, not tiers (issue 15: every repeat
// of a 3,000-node document wrote 2,997 nodes back and made them active).
func TestReimportAfterCompactionChangesNothing(t *testing.T) {
	const n = 3000
	e := newEnv(t)
	doc := domain.GraphData{Progress: map[string]domain.RawJSON{"task": domain.RawJSON(`{"step": 1}`)}}
	for i := range n {
		doc.Nodes = append(doc.Nodes, domain.Node{ID: fmt.Sprintf("n%04d", i), Gist: fmt.Sprintf("imported insight number %d about the code", i),
			Notes: []string{"why it matters"}})
	}
	for i := 1; i < n; i++ {
		doc.Edges = append(doc.Edges, domain.Edge{From: doc.Nodes[i-1].ID, To: doc.Nodes[i].ID, Rel: "relates-to"})
	}
	to := Scope{ProjectPath: projA, Level: domain.LevelProject}
	first, err := e.svc.Import(e.ctx, to, importing.Merge, doc, ImportOptions{ListMoves: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Nodes) != n || len(first.Compaction.Archived) == 0 {
		t.Fatalf("first import wrote %d nodes and archived %d; want %d written and the budget to archive some",
			len(first.Nodes), len(first.Compaction.Archived), n)
	}
	key := domain.ProjectGraph(projA)
	before, err := e.store.Load(e.ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	commits := e.store.count(key)
	e.resetEvents()
	e.clock.Advance(time.Minute)

	for _, mode := range []importing.Mode{importing.Merge, importing.Replace} {
		again, err := e.svc.Import(e.ctx, to, mode, doc, ImportOptions{ListMoves: -1})
		if err != nil {
			t.Fatal(err)
		}
		if len(again.Nodes)+len(again.Edges)+len(again.Progress)+len(again.DeletedNodes)+len(again.DeletedEdges) != 0 ||
			again.Unchanged != n+(n-1)+1 || !again.Compaction.Empty() {
			t.Errorf("%s import again: %d nodes, %d edges, %d progress written, %d unchanged, moves %+v; want nothing written",
				mode, len(again.Nodes), len(again.Edges), len(again.Progress), again.Unchanged, again.Compaction)
		}
	}
	if got := e.store.count(key); got != commits {
		t.Errorf("the repeats committed %d times, want none", got-commits)
	}
	if evs := e.evs(ports.EventNodeUpdated); len(evs) != 0 {
		t.Errorf("the repeats published %d node_updated events", len(evs))
	}
	after, err := e.store.Load(e.ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("the stored graph changed (-before +after):\n%.3000s", diff)
	}
}
