package porttest

import (
	"fmt"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// The change log cases (docs/design/trust.md#history-and-undo): what a
// logged commit stores comes back, newest first, after a checkpoint, a
// release and a reopen; a failed commit stores no entry; the query selects
// by node, session and seq; pruning removes old entries.

func (h *harness) history() ports.HistoryRepository {
	h.t.Helper()
	hr, ok := h.o.Graphs.(ports.HistoryRepository)
	if !ok {
		h.t.Fatalf("%s does not keep a change log (ports.HistoryRepository)", h.b.Name)
	}
	return hr
}

// logged applies change to g as one write of session at time now, commits it
// with its change log entries and checkpoints g. It returns the entries.
func (h *harness) logged(k domain.GraphKey, g *domain.Graph, at domain.Stamp, change func()) []domain.HistoryEntry {
	h.t.Helper()
	return h.loggedAs(k, g, at, domain.HistoryPut, change)
}

// loggedAs is logged for a write the change log records as op (an undo, a
// read that promoted).
func (h *harness) loggedAs(k domain.GraphKey, g *domain.Graph, at domain.Stamp, op domain.HistoryOp, change func()) []domain.HistoryEntry {
	h.t.Helper()
	before := g.DurableSeq()
	g.StartChangeLog()
	change()
	es := g.TakeChangeLog(at, op)
	if err := h.history().CommitLogged(h.ctx, k, g, g.Pending(), domain.HistoryBatch{SeqBefore: before, SeqAfter: g.Seq(), Entries: es}); err != nil {
		h.t.Fatalf("commit %s: %v", k, err)
	}
	g.Checkpoint()
	return es
}

func (h *harness) readHistory(k domain.GraphKey, q ports.HistoryQuery) []domain.HistoryEntry {
	h.t.Helper()
	es, err := h.history().History(h.ctx, k, q)
	if err != nil {
		h.t.Fatalf("history of %s: %v", k, err)
	}
	return es
}

func seqsOf(es []domain.HistoryEntry) []uint64 {
	out := make([]uint64, len(es))
	for i, e := range es {
		out[i] = e.Seq
	}
	return out
}

// historyWrites makes a graph's log: 12 writes of two sessions (puts,
// an edge, a delete), day after day, and returns the entries oldest first.
func (h *harness) historyWrites(k domain.GraphKey, g *domain.Graph) []domain.HistoryEntry {
	var all []domain.HistoryEntry
	for i := range 12 {
		at := domain.Stamp{Now: t0 + domain.Micros(i)*domain.Day, Session: []string{"s1", "s2"}[i%2]}
		all = append(all, h.logged(k, g, at, func() {
			id := fmt.Sprintf("n%d", i%4)
			switch i % 4 {
			case 3:
				if _, err := g.DeleteNode("n0", at); err != nil {
					h.t.Fatal(err)
				}
			default:
				if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: fmt.Sprintf("gist %d", i), Notes: []string{"note"}}, at); err != nil {
					h.t.Fatal(err)
				}
				if _, err := g.PutEdge(domain.EdgeInput{From: id, To: "n0", Rel: "uses"}, at); err != nil {
					h.t.Fatal(err)
				}
			}
		})...)
	}
	return all
}

var historyOpts = cmp.Options{dataOpts, cmp.Comparer(func(a, b *domain.Node) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.ID == b.ID && domain.SameNodeContent(a, b) && a.Version == b.Version && a.Tier == b.Tier
}), cmp.Comparer(func(a, b *domain.Edge) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Key() == b.Key() && domain.SameEdgeContent(a, b) && a.Version == b.Version
})}

func newestFirst(es []domain.HistoryEntry) []domain.HistoryEntry {
	out := make([]domain.HistoryEntry, len(es))
	for i, e := range es {
		out[len(es)-1-i] = e
	}
	return out
}

func testHistoryRoundTrip(h *harness) {
	k := domain.ProjectGraph("/history/app")
	g := domain.NewGraph(k)
	all := h.historyWrites(k, g)
	if len(all) < 20 {
		h.t.Fatalf("only %d entries were logged", len(all))
	}
	check := func(when string) {
		h.t.Helper()
		got := h.readHistory(k, ports.HistoryQuery{})
		if diff := cmp.Diff(newestFirst(all), got, historyOpts); diff != "" {
			h.t.Fatalf("%s: history differs (-want +got):\n%s", when, diff)
		}
	}
	check("after the commits")
	if cp, ok := h.o.Graphs.(ports.GraphCheckpointer); ok {
		if err := cp.Checkpoint(h.ctx, k, g); err != nil {
			h.t.Fatal(err)
		}
		check("after a checkpoint")
	}
	if rel, ok := h.o.Graphs.(ports.GraphReleaser); ok {
		rel.Release(k)
		check("after a release")
	}
	h.reopen()
	check("after a reopen")
	// The writes go on after the reopen, and their entries follow.
	g = restore(h.t, k, h.load(k))
	at := domain.Stamp{Now: t0 + 20*domain.Day, Session: "s3"}
	all = append(all, h.logged(k, g, at, func() {
		if _, err := g.PutNode(domain.NodeInput{ID: "late", Gist: "after the reopen"}, at); err != nil {
			h.t.Fatal(err)
		}
	})...)
	check("after a write past the reopen")

	// Other graphs have their own logs.
	if got := h.readHistory(domain.UserGraph, ports.HistoryQuery{}); len(got) != 0 {
		h.t.Errorf("the user graph, never written, has history %v", seqsOf(got))
	}
}

func testHistoryQuery(h *harness) {
	k := domain.UserGraph
	g := domain.NewGraph(k)
	all := h.historyWrites(k, g)
	want := func(q ports.HistoryQuery) []uint64 {
		var out []uint64
		for _, e := range newestFirst(all) {
			if q.Match(&e) {
				out = append(out, e.Seq)
				if q.Limit > 0 && len(out) == q.Limit {
					break
				}
			}
		}
		return out
	}
	for _, q := range []ports.HistoryQuery{
		{ID: "n1"}, {ID: "n0"}, {Session: "s2"}, {SinceSeq: 10}, {BeforeSeq: 15, Limit: 4},
		{BeforeSeq: 1 << 40}, {SinceSeq: 3, BeforeSeq: 1<<31 + 1}, // past what a 32-bit integer holds
		{Session: "s1", ID: "n2", Limit: 1}, {NotBefore: t0 + 6*domain.Day}, {ID: "nobody"},
	} {
		got := seqsOf(h.readHistory(k, q))
		w := want(q)
		if len(w) == 0 && q.ID != "nobody" {
			h.t.Fatalf("query %+v selects nothing: a case that cannot fail", q)
		}
		if diff := cmp.Diff(w, got, dataOpts); diff != "" {
			h.t.Errorf("query %+v: seqs differ (-want +got):\n%s", q, diff)
		}
	}
}

func testHistoryFailedCommit(h *harness) {
	k := domain.ProjectGraph("/history/fail")
	g := domain.NewGraph(k)
	all := h.historyWrites(k, g)
	h.o.InjectFault(errDiskFull)
	at := domain.Stamp{Now: t0 + 30*domain.Day, Session: "ghost"}
	before := g.DurableSeq()
	g.StartChangeLog()
	if _, err := g.PutNode(domain.NodeInput{ID: "ghost", Gist: "must not survive"}, at); err != nil {
		h.t.Fatal(err)
	}
	es := g.TakeChangeLog(at, domain.HistoryPut)
	if err := h.history().CommitLogged(h.ctx, k, g, g.Pending(), domain.HistoryBatch{SeqBefore: before, SeqAfter: g.Seq(), Entries: es}); err == nil {
		h.t.Fatal("a commit under a full disk succeeded")
	}
	g.Rollback()
	h.o.InjectFault(nil)
	for range 2 {
		if got := h.readHistory(k, ports.HistoryQuery{}); len(got) != len(all) || got[0].Seq != all[len(all)-1].Seq {
			h.t.Fatalf("after a failed commit the history has %v, want %v", seqsOf(got), seqsOf(newestFirst(all)))
		}
		h.reopen()
	}
	// The next write's entry follows the last durable one.
	at.Session = "after"
	next := h.logged(k, g, at, func() {
		if _, err := g.PutNode(domain.NodeInput{ID: "after", Gist: "after the disk recovered"}, at); err != nil {
			h.t.Fatal(err)
		}
	})
	got := h.readHistory(k, ports.HistoryQuery{Limit: 2})
	if len(got) != 2 || got[0].Seq != next[0].Seq || got[1].Seq != all[len(all)-1].Seq {
		h.t.Fatalf("history after the recovery starts %v", seqsOf(got))
	}
}

func testHistoryPrune(h *harness) {
	k := domain.ProjectGraph("/history/prune")
	g := domain.NewGraph(k)
	all := h.historyWrites(k, g)
	if cp, ok := h.o.Graphs.(ports.GraphCheckpointer); ok {
		if err := cp.Checkpoint(h.ctx, k, g); err != nil {
			h.t.Fatal(err)
		}
	}
	cutoff := t0 + 6*domain.Day
	if err := h.history().PruneHistory(h.ctx, k, cutoff); err != nil {
		h.t.Fatal(err)
	}
	h.reopen()
	// A backend may keep older entries that share a segment with newer
	// ones, but never drops a newer one, and what it keeps stays in order.
	got := h.readHistory(k, ports.HistoryQuery{})
	var newer int
	for _, e := range all {
		if e.Time >= cutoff {
			newer++
		}
	}
	if len(got) < newer || got[0].Seq != all[len(all)-1].Seq {
		h.t.Fatalf("pruning dropped entries newer than the cutoff: kept %v", seqsOf(got))
	}
	// A repository several servers share keeps its last batches for them
	// to catch up from, whatever their age.
	if _, shared := h.o.Graphs.(ports.SharedGraphRepository); len(got) == len(all) && !shared {
		h.t.Errorf("pruning before day 6 of 12 kept all %d entries", len(all))
	}
	if got := h.readHistory(k, ports.HistoryQuery{NotBefore: cutoff}); len(got) != newer {
		h.t.Errorf("entries at or after the cutoff: %d, want %d", len(got), newer)
	}
}
