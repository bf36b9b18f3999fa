package app

import (
	"testing"

	"github.com/kg-memory/kg/domain"
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
	e.svc.tick(e.ctx)
	if got := stored(); len(got) != 2 {
		t.Fatalf("pruned on day 9 of 10: %v", got)
	}
	e.clock.Advance(2 * 24 * 3600 * 1e9) // day 11: "old" is past 10 days
	e.svc.tick(e.ctx)
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
	if _, err := e.svc.Import(e.ctx, Scope{Level: domain.LevelUser}, domain.ImportReplace, doc, ImportOptions{}); err != nil {
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
	if err != nil || len(undo.Applied) != 3 || len(undo.Skipped) != 0 {
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
