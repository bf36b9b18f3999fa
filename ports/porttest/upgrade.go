package porttest

import (
	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
)

// testFailedSaveAfterAnUpgrade: a graph upgraded by its load (every item
// pending, none changed since the load) whose save failed is served, as
// app/graphstore does; a write to an existing node whose save fails too is
// rolled back whole, and the next save stores the upgrade and the next
// write, never the failed one. A backend that writes only what Pending
// names needs the upgrade still pending after the rollback; one that writes
// the whole graph needs the failed write gone from memory.
func testFailedSaveAfterAnUpgrade(h *harness) {
	k := domain.ProjectGraph("/fail/upgraded")
	rich := RichData(k.Project)
	g := restore(h.t, k, rich)
	h.commit(k, g, g.Everything())
	stored := h.load(k)
	stored.Schema = domain.SchemaVersion - 1 // as an older kg wrote it
	g = restore(h.t, k, stored)
	want := g.Data()

	h.o.InjectFault(errDiskFull)
	if err := h.o.Graphs.Commit(h.ctx, k, g, g.Pending()); err == nil {
		h.t.Fatal("the upgrade's commit under a full disk succeeded")
	}
	// Served anyway, the upgrade pending; then a write whose save fails.
	at := domain.Stamp{Now: t0 + domain.Day, Session: "ghost"}
	if _, err := g.PutNode(domain.NodeInput{ID: "alpha", Gist: "must not survive"}, at); err != nil {
		h.t.Fatal(err)
	}
	if _, err := g.DeleteNode("beta", at); err != nil {
		h.t.Fatal(err)
	}
	if err := h.o.Graphs.Commit(h.ctx, k, g, g.Pending()); err == nil {
		h.t.Fatal("a commit under a full disk succeeded")
	}
	g.Rollback()
	h.o.InjectFault(nil)
	got := g.Data()
	got.Seq = want.Seq // the counter never goes back
	if diff := cmp.Diff(want, got, dataOpts); diff != "" {
		h.t.Errorf("the graph after the rollback differs from the one loaded (-loaded +got):\n%s", diff)
	}

	if _, err := g.PutNode(domain.NodeInput{ID: "after", Gist: "written after the disk recovered"}, at); err != nil {
		h.t.Fatal(err)
	}
	h.commit(k, g, g.Pending())
	h.reopen()
	h.sameGraph(k, g)
	if n, _ := g.Node("alpha"); n.Gist != rich.Nodes[0].Gist {
		h.t.Errorf("alpha's gist is %q after the rollback, want the stored one", n.Gist)
	}
}
