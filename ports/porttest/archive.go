package porttest

import (
	"slices"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/ports"
)

// testHistoryArchive: a person's archive (compaction.ArchiveNodes, logged
// as domain.HistoryArchive) comes back as archive entries with their tier
// change, after a reopen — told apart from a read's promotion, a move,
// which an undo never reverses (docs/decisions/0106-archive-by-hand.md).
func testHistoryArchive(h *harness) {
	k := domain.ProjectGraph("/history/archive")
	g := domain.NewGraph(k)
	w := domain.Stamp{Now: t0, Session: "writer"}
	all := h.logged(k, g, w, func() {
		for _, id := range []string{"a", "b", "c"} {
			if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: "about " + id}, w); err != nil {
				h.t.Fatal(err)
			}
		}
	})
	p := domain.Stamp{Now: t0 + domain.Second, Session: "person", Principal: "olive"}
	archived := h.loggedAs(k, g, p, domain.HistoryArchive, func() {
		if _, err := compaction.ArchiveNodes(g, []string{"a", "b", "c"}, p.Now); err != nil {
			h.t.Fatal(err)
		}
	})
	if len(archived) != 3 {
		h.t.Fatalf("the archive logged %d entries, want 3", len(archived))
	}
	r := domain.Stamp{Now: t0 + 2*domain.Second, Session: "reader"}
	all = append(all, archived...)
	all = append(all, h.loggedAs(k, g, r, domain.HistoryMove, func() {
		if _, err := g.RecallNode("b", r); err != nil {
			h.t.Fatal(err)
		}
	})...)
	h.reopen()
	got := h.readHistory(k, ports.HistoryQuery{})
	// A tier change has no time of its own: a backend that builds the
	// entries from its batches (team mode) stamps it with the commit's.
	untimed := func(es []domain.HistoryEntry) []domain.HistoryEntry {
		out := slices.Clone(es)
		for i := range out {
			if out[i].Tier != nil {
				out[i].Time = 0
			}
		}
		return out
	}
	if diff := cmp.Diff(untimed(newestFirst(all)), untimed(got), historyOpts); diff != "" {
		h.t.Fatalf("history differs after a reopen (-want +got):\n%s", diff)
	}
	ops := map[domain.HistoryOp]int{}
	for _, e := range got {
		ops[e.Op]++
	}
	if ops[domain.HistoryArchive] != 3 || ops[domain.HistoryMove] != 1 {
		h.t.Fatalf("ops read back %v, want 3 archive entries and the read's one move", ops)
	}
}
