package app

import (
	"strings"
	"testing"
	"time"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// A read-only visit — a session started on a new project, a full read of
// one, a read of the graphs by path, a search, a sync — then maintenance
// ticks and a shutdown: no graph is written, the user graph included,
// because none holds anything; and the project is not listed. The first
// write stores the project.
func TestReadOnlyVisitsWriteNothing(t *testing.T) {
	e := newEnv(t)
	sid := e.session("/home/dev/typo")
	if _, err := e.svc.Read(e.ctx, ReadRequest{CWD: "/home/dev/other"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.ReadGraphs(e.ctx, Scope{ProjectPath: "/home/dev/third"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Search(e.ctx, SearchRequest{Query: "anything", SessionID: sid}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Sync(e.ctx, sid); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		e.clock.Advance(e.cfg.MaintenanceInterval)
		e.svc.maint.Tick(e.ctx)
	}
	if ps, err := e.svc.Projects(e.ctx); err != nil || len(ps) != 0 {
		t.Errorf("Projects = %v, %v; want none", ps, err)
	}
	e.restart()
	for _, k := range []domain.GraphKey{domain.UserGraph, domain.ProjectGraph("/home/dev/typo"), domain.ProjectGraph("/home/dev/other"), domain.ProjectGraph("/home/dev/third")} {
		if n := e.store.count(k); n != 0 {
			t.Errorf("%s: %d commit(s), want none", k, n)
		}
	}
	if list, _ := e.store.List(e.ctx); len(list) != 0 {
		t.Errorf("stored projects: %v, want none", list)
	}

	sid = e.session("/home/dev/typo")
	e.put(project(sid), "real", "the first write stores the project")
	if list, _ := e.store.List(e.ctx); len(list) != 1 || list[0].Key.Project != "/home/dev/typo" {
		t.Errorf("stored projects after a write: %v", list)
	}
}

// kg project rm: an empty project goes without --force; one holding
// anything is refused with a conflict naming --force, and goes with it; a
// project_removed event follows; a later write starts the project afresh,
// its seqs above the removed graph's; an unknown project is not_found.
func TestRemoveProject(t *testing.T) {
	e := newEnv(t)
	const empty, full = "/work/empty", "/work/full"
	e.store.seed(t, domain.ProjectGraph(empty), domain.GraphData{Schema: domain.SchemaVersion, ProjectPath: empty})
	sid := e.session(full)
	e.put(project(sid), "a", "kept until removed")
	e.put(project(sid), "b", "kept too")
	e.edge(project(sid), "a", "b", "needs")

	if _, err := e.svc.RemoveProject(e.ctx, "/work/nothing-here", false); domain.KindOf(err) != domain.KindNotFound {
		t.Errorf("remove of an unknown project: %v, want not_found", err)
	}
	res, err := e.svc.RemoveProject(e.ctx, empty, false)
	if err != nil || !res.Stored || res.Nodes != 0 {
		t.Fatalf("remove the empty project: %+v, %v", res, err)
	}
	_, err = e.svc.RemoveProject(e.ctx, full, false)
	if de := wantKind(t, err, domain.KindConflict, "force"); de != nil && !(strings.Contains(de.Msg, "2 node(s)") && strings.Contains(de.Msg, "1 edge(s)") && strings.Contains(de.Msg, "--force")) {
		t.Errorf("refusal = %q", de.Msg)
	}
	if d, _ := e.store.Load(e.ctx, domain.ProjectGraph(full)); len(d.Nodes) != 2 {
		t.Errorf("a refused removal changed the graph: %d nodes", len(d.Nodes))
	}
	before, _ := e.store.Load(e.ctx, domain.ProjectGraph(full))
	e.events.reset()
	res, err = e.svc.RemoveProject(e.ctx, full, true)
	if err != nil || res.Nodes != 2 || res.Edges != 1 {
		t.Fatalf("remove with force: %+v, %v", res, err)
	}
	// The event goes out after the removal is acknowledged, from the
	// committer: wait for it rather than race it.
	for deadline := time.Now().Add(5 * time.Second); len(e.events.ofType(ports.EventProjectRemoved)) == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if evs := e.events.ofType(ports.EventProjectRemoved); len(evs) != 1 || evs[0].Project != full || evs[0].NodesRemoved != 2 {
		t.Errorf("project_removed events: %+v", evs)
	}
	if list, _ := e.store.List(e.ctx); len(list) != 0 {
		t.Errorf("stored projects after the removals: %v", list)
	}
	if ps, _ := e.svc.Projects(e.ctx); len(ps) != 0 {
		t.Errorf("Projects after the removals: %v", ps)
	}
	r := e.put(project(sid), "c", "a new start")
	if r.Node.Version.Seq <= before.Seq {
		t.Errorf("the first write after the removal has seq %d, want above %d", r.Node.Version.Seq, before.Seq)
	}
	if d, _ := e.store.Load(e.ctx, domain.ProjectGraph(full)); len(d.Nodes) != 1 {
		t.Errorf("after a new write the project holds %d nodes, want 1", len(d.Nodes))
	}
}
