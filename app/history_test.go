package app

import (
	"strings"
	"testing"
	"time"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/importing"
	"github.com/kg-memory/kg/ports"
)

// The maintenance tick prunes what is older than KG_HISTORY_DAYS from the
// store itself (not only from what reads show), at most once an hour per
// graph, and keeps what is younger.
func TestMaintenancePrunesTheChangeLog(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.HistoryDays = 10 })
	sid := e.session("")
	e.put(user(sid), "old", "written on day 0")
	e.clock.Advance(9 * 24 * 3600 * 1e9)
	e.put(user(e.session("")), "young", "written on day 9")
	stored := func() []uint64 {
		es, err := e.store.History(e.ctx, domain.UserGraph, ports.HistoryQuery{})
		if err != nil {
			t.Fatal(err)
		}
		var seqs []uint64
		for _, en := range es {
			seqs = append(seqs, en.Seq)
		}
		return seqs
	}
	if got := stored(); len(got) != 2 {
		t.Fatalf("stored before pruning: %v", got)
	}
	e.svc.maint.Tick(e.ctx)
	if got := stored(); len(got) != 2 {
		t.Fatalf("pruned on day 9 of 10: %v", got)
	}
	e.clock.Advance(2 * 24 * 3600 * 1e9) // day 11: "old" is past 10 days
	e.svc.maint.Tick(e.ctx)
	if got := stored(); len(got) != 1 || got[0] != 2 {
		t.Fatalf("after the tick of day 11 the store holds %v, want only the entry of day 9 (seq 2)", got)
	}
	res, err := e.svc.History(e.ctx, HistoryRequest{Scope: Scope{Level: domain.LevelUser}})
	if err != nil || len(res.Entries) != 1 || res.Entries[0].ID != "young" {
		t.Fatalf("history after pruning: %+v, %v", res, err)
	}
}

// An import with replace over the wrong graph is one entry, and undoing it
// (by its seq range) puts the graph back as it was, as new writes.
func TestUndoAnImportWithReplace(t *testing.T) {
	e := newEnv(t)
	sid := e.session("")
	e.put(user(sid), "kept-lesson", "the graph before the import")
	e.put(user(sid), "other-lesson", "also there before")
	doc := domain.GraphData{Nodes: []domain.Node{{ID: "imported", Gist: "from the wrong file"}}}
	if _, err := e.svc.Import(e.ctx, Scope{Level: domain.LevelUser}, importing.Replace, doc, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := e.svc.History(e.ctx, HistoryRequest{Scope: Scope{Level: domain.LevelUser}, Limit: 1})
	if err != nil || len(res.Entries) != 1 {
		t.Fatalf("history: %+v, %v", res, err)
	}
	imp := res.Entries[0]
	if imp.Op != domain.HistoryImportReplace || !imp.Graph || len(imp.Items) != 3 {
		t.Fatalf("the import's entry: %+v", imp)
	}
	undo, err := e.svc.Undo(e.ctx, UndoRequest{Scope: Scope{Level: domain.LevelUser}, Range: true, From: 3, To: imp.Seq})
	if err != nil || len(undo.Graphs) != 1 || len(undo.Graphs[0].Applied) != 3 || len(undo.Graphs[0].Skipped) != 0 {
		t.Fatalf("undo of the import: %+v, %v", undo, err)
	}
	for id, want := range map[string]string{"kept-lesson": "the graph before the import", "other-lesson": "also there before"} {
		n, ok := e.store.stored(t, domain.UserGraph, id)
		if !ok || n.Gist != want {
			t.Errorf("%s after the undo: %+v, %v", id, n, ok)
		}
	}
	if _, ok := e.store.stored(t, domain.UserGraph, "imported"); ok {
		t.Error("the imported node survived the undo")
	}
}

// Issue 28, item 1: session B re-puts a node with the content session A
// wrote. The re-put bumps the node's version and seq (kg_sync reports it to
// A), so it has its entry in the change log, and undoing A skips the node,
// naming B, instead of deleting B's write.
func TestUndoSkipsANodeAnotherSessionRePutIdentically(t *testing.T) {
	e := newEnv(t)
	a, b := e.session(projA), e.session(projA)
	e.put(project(a), "x", "same")
	second := e.put(project(b), "x", "same")
	if second.Node.Version.V != 2 {
		t.Fatalf("the identical re-put is at version %d, want 2 (a put bumps the version)", second.Node.Version.V)
	}
	hist, err := e.svc.History(e.ctx, HistoryRequest{Scope: project(a), ID: "x"})
	if err != nil || len(hist.Entries) != 2 || hist.Entries[0].Session != b || hist.Entries[0].Op != domain.HistoryPut {
		t.Fatalf("history of x after the identical re-put: %+v, %v", hist.Entries, err)
	}
	res, err := e.svc.Undo(e.ctx, UndoRequest{Scope: project(a), Session: a})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Graphs) != 1 || len(res.Graphs[0].Applied) != 0 || len(res.Graphs[0].Skipped) != 1 ||
		!strings.Contains(res.Graphs[0].Skipped[0].Reason, "session "+b) {
		t.Fatalf("undo of A: %+v; want x skipped as changed since by B", res.Graphs)
	}
	if _, ok := e.store.stored(t, domain.ProjectGraph(projA), "x"); !ok {
		t.Fatal("undoing A deleted B's node")
	}
}

// Issue 28, item 2: an undo by session id alone covers every graph the
// session wrote — its user graph and its project — each in its own
// commit, with the result per graph; a level narrows it, and a level
// project without a path means the session's project.
func TestUndoBySessionCoversEveryGraphItWrote(t *testing.T) {
	e := newEnv(t)
	a, other := e.session(projA), e.session(projB)
	e.put(user(a), "lesson", "a wrote it in the user graph")
	e.put(project(a), "design", "a wrote it in project a")
	e.put(project(other), "elsewhere", "another session's project")
	userCommits, projCommits := e.store.count(domain.UserGraph), e.store.count(domain.ProjectGraph(projA))

	dry, err := e.svc.Undo(e.ctx, UndoRequest{Session: a, DryRun: true})
	if err != nil {
		t.Fatalf("dry run of an undo by session id alone: %v", err)
	}
	if len(dry.Graphs) != 2 || dry.Graphs[0].Level != domain.LevelUser || dry.Graphs[1].Project != projA ||
		len(dry.Graphs[0].Applied) != 1 || len(dry.Graphs[1].Applied) != 1 {
		t.Fatalf("dry run: %+v; want the user graph and project a, one node each", dry.Graphs)
	}
	narrowed, err := e.svc.Undo(e.ctx, UndoRequest{Scope: Scope{Level: domain.LevelProject}, Session: a, DryRun: true})
	if err != nil || len(narrowed.Graphs) != 1 || narrowed.Graphs[0].Project != projA {
		t.Fatalf("dry run narrowed to level project: %+v, %v; want project a, the session's", narrowed.Graphs, err)
	}

	res, err := e.svc.Undo(e.ctx, UndoRequest{Session: a})
	if err != nil || len(res.Graphs) != 2 {
		t.Fatalf("undo by session id: %+v, %v", res, err)
	}
	for _, k := range []domain.GraphKey{domain.UserGraph, domain.ProjectGraph(projA)} {
		for _, id := range []string{"lesson", "design"} {
			if _, ok := e.store.stored(t, k, id); ok {
				t.Errorf("%s still holds %s after the undo of the session that wrote it", k, id)
			}
		}
	}
	if _, ok := e.store.stored(t, domain.ProjectGraph(projB), "elsewhere"); !ok {
		t.Error("the undo touched another session's project")
	}
	if got := e.store.count(domain.UserGraph) - userCommits; got != 1 {
		t.Errorf("the user graph took %d commits for the undo, want its own one", got)
	}
	if got := e.store.count(domain.ProjectGraph(projA)) - projCommits; got != 1 {
		t.Errorf("project a took %d commits for the undo, want its own one", got)
	}
}

// A session kg no longer knows (expired) is undone in every graph whose log
// holds its changes: the user graph and each project.
func TestUndoOfAnExpiredSessionFindsItsGraphsInTheLog(t *testing.T) {
	e := newEnv(t)
	a := e.session("")
	e.put(user(a), "lesson", "written by a")
	e.put(Scope{SessionID: a, Level: domain.LevelProject, ProjectPath: projB}, "design", "written by a in b")
	e.clock.Advance(25 * time.Hour) // past KG_SESSION_TTL
	e.svc.maint.Tick(e.ctx)
	if _, err := e.svc.scope.sessionFor(e.ctx, a); err == nil {
		t.Fatal("the session did not expire")
	}
	res, err := e.svc.Undo(e.ctx, UndoRequest{Session: a, DryRun: true})
	if err != nil || len(res.Graphs) != 2 || res.Graphs[1].Project != projB {
		t.Fatalf("undo of an expired session: %+v, %v; want the user graph and project b", res.Graphs, err)
	}
	_, err = e.svc.Undo(e.ctx, UndoRequest{Session: "0000000000000000"})
	if domain.KindOf(err) != domain.KindNotFound || !strings.Contains(err.Error(), "none of the") {
		t.Fatalf("undo of a session that wrote nothing: %v", err)
	}
}
