package porttest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/domain/importing"
	"github.com/kg-memory/kg/domain/merge"
	"github.com/kg-memory/kg/domain/secretscreen"
	"github.com/kg-memory/kg/domain/undo"
	"github.com/kg-memory/kg/ports"
)

// The undo property on every backend (docs/design/trust.md#undo): random
// histories of three sessions, with identical re-puts, re-creates after a
// delete, merges, imports, compaction moves and reads that promote between
// their writes, each write committed with its change log; then one
// session (or a seq range) is undone from the log the backend gives back.
// What the undo must do is worked out without the log, from the versions
// each write left: so a write that bumps a version and has no entry (issue
// 28: an identical re-put) makes the case fail instead of hiding from it.

// undoHistories is how many random histories the case runs per backend.
const undoHistories = 150

// undoSessions write the histories.
var undoSessions = []string{"s1", "s2", "s3"}

// itemState is what an undo restores of an item ("" when it does not
// exist) and the seq of its version (0 when it does not exist).
type itemState struct {
	content string
	seq     uint64
	edge    *domain.EdgeKey // the key of an edge
}

func itemStates(g *domain.Graph) map[string]itemState {
	out := map[string]itemState{}
	for _, n := range g.Nodes() {
		out["node "+n.ID] = itemState{content: n.Gist + "|" + strings.Join(n.Notes, ",") + "|" + strings.Join(n.Touches, ","), seq: n.Version.Seq}
	}
	for _, e := range g.Edges() {
		k := e.Key()
		out["edge "+k.String()] = itemState{content: "|" + strings.Join(e.Notes, ","), seq: e.Version.Seq, edge: &k}
	}
	return out
}

// undoTouch is one write's change of an item, as the versions show it.
type undoTouch struct {
	write   int
	session string
	seq     uint64 // the seq the item's version (or tombstone) took
}

// undoRun is one random history on one graph of the backend.
type undoRun struct {
	h   *harness
	rnd *rand.Rand
	k   domain.GraphKey
	g   *domain.Graph
	now domain.Micros
	// before[i] is every item's state before write i; touched[item] the
	// writes that gave it a new version (a promotion by read excepted:
	// it is a move), in order.
	before  []map[string]itemState
	touched map[string][]undoTouch
	ids     []string
}

func testUndoProperty(h *harness) {
	for i := range undoHistories {
		seed := uint64(i) + 1
		r := &undoRun{h: h, rnd: rand.New(rand.NewPCG(seed, 28)), k: domain.ProjectGraph(fmt.Sprintf("/undo/history-%d", i)),
			now: t0, touched: map[string][]undoTouch{}, ids: []string{"a", "b", "c"}}
		r.g = domain.NewGraph(r.k)
		r.run(seed)
	}
}

func (r *undoRun) run(seed uint64) {
	h := r.h
	writes := 4 + r.rnd.IntN(14)
	for i := range writes {
		r.write(i)
	}
	var target undo.Target
	log := h.readHistory(r.k, ports.HistoryQuery{})
	slices.Reverse(log)
	if r.rnd.IntN(3) > 0 || len(log) == 0 {
		target.Session = undoSessions[r.rnd.IntN(len(undoSessions))]
	} else {
		a := r.rnd.IntN(len(log))
		b := a + r.rnd.IntN(len(log)-a)
		target.From, target.To = log[a].Seq, log[b].Seq
	}
	plan, ok := r.undo(target)
	if !ok {
		return // nothing of the target in the log
	}
	pre := r.before[len(r.before)-1]
	post := itemStates(r.g)
	skipped := map[string]string{}
	for _, s := range plan.Skipped {
		skipped[domain.ItemChange{Edge: s.Edge, ID: s.ID, Key: s.Key}.Name()] = s.Reason
	}
	holds := func(tc undoTouch) bool {
		if target.Session != "" {
			return tc.session == target.Session
		}
		return tc.seq >= target.From && tc.seq <= target.To
	}
	fail := func(format string, args ...any) {
		h.t.Helper()
		for _, e := range h.readHistory(r.k, ports.HistoryQuery{}) {
			h.t.Logf("log: seq %d %s %s %s", e.Seq, e.Session, e.Op, e.Name())
		}
		h.t.Fatalf("history %d (seed %d), undo of %+v: %s", seed-1, seed, target, fmt.Sprintf(format, args...))
	}
	items := map[string]bool{}
	for _, m := range []map[string]itemState{pre, post} {
		for k := range m {
			items[k] = true
		}
	}
	for k := range r.touched {
		items[k] = true
	}
	for item := range items {
		ts := r.touched[item]
		first := slices.IndexFunc(ts, holds)
		if first < 0 {
			if pre[item].content != post[item].content {
				fail("%s: not changed by the undone writes, but the undo changed it from %q to %q", item, pre[item].content, post[item].content)
			}
			continue
		}
		if slices.ContainsFunc(ts[first:], func(tc undoTouch) bool { return !holds(tc) }) {
			if pre[item].content != post[item].content {
				fail("%s: changed by another write since, yet the undo changed it from %q to %q", item, pre[item].content, post[item].content)
			}
			if _, ok := skipped[item]; !ok {
				fail("%s: changed by another write since, and not named as skipped", item)
			}
			continue
		}
		if why, ok := skipped[item]; ok {
			if !strings.Contains(why, "deleting it would delete edges") || pre[item].content != post[item].content {
				fail("%s: skipped (%s) though nobody else changed it; pre %q post %q", item, why, pre[item].content, post[item].content)
			}
			continue
		}
		if want := r.before[ts[first].write][item].content; post[item].content != want {
			fail("%s: the undo left %q, want %q as before write %d", item, post[item].content, want, ts[first].write)
		}
	}
}

// write makes write i: one session's random change, committed with its
// change log, and records which items took a new version.
func (r *undoRun) write(i int) {
	r.now += domain.Second
	at := domain.Stamp{Now: r.now, Session: undoSessions[r.rnd.IntN(len(undoSessions))]}
	pre := itemStates(r.g)
	r.before = append(r.before, pre)
	op, change := r.randomChange(at)
	r.h.loggedAs(r.k, r.g, at, op, change)
	post := itemStates(r.g)
	if op == domain.HistoryMove {
		return // a read that promoted: a move, no one's change of content
	}
	for item := range keysOf(pre, post) {
		if pre[item].seq != post[item].seq {
			seq := post[item].seq
			if seq == 0 { // deleted: the tombstone's seq
				seq = r.tombSeq(item, pre[item].edge)
			}
			r.touched[item] = append(r.touched[item], undoTouch{write: i, session: at.Session, seq: seq})
		}
	}
}

// tombSeq is the seq of the tombstone of a deleted item: the edge with key
// edge, else the node the item names.
func (r *undoRun) tombSeq(item string, edge *domain.EdgeKey) uint64 {
	if edge != nil {
		t, _ := r.g.EdgeTombstone(*edge)
		return t.Seq
	}
	t, _ := r.g.NodeTombstone(strings.TrimPrefix(item, "node "))
	return t.Seq
}

func keysOf(ms ...map[string]itemState) map[string]bool {
	out := map[string]bool{}
	for _, m := range ms {
		for k := range m {
			out[k] = true
		}
	}
	return out
}

// randomChange picks one change of the history and returns it with the op
// its write is logged as.
func (r *undoRun) randomChange(at domain.Stamp) (domain.HistoryOp, func()) {
	g, t := r.g, r.h.t
	id := r.ids[r.rnd.IntN(len(r.ids))]
	other := r.ids[r.rnd.IntN(len(r.ids))]
	gist := fmt.Sprintf("gist %d", r.rnd.IntN(3))
	must := func(err error) {
		if err != nil {
			t.Fatalf("%s: %v", at.Session, err)
		}
	}
	switch r.rnd.IntN(10) {
	case 0: // a put, often of a gist already there
		return domain.HistoryPut, func() {
			_, err := g.PutNode(domain.NodeInput{ID: id, Gist: gist}, at)
			must(err)
		}
	case 1, 9: // an identical re-put of what is stored
		return domain.HistoryPut, func() {
			n, ok := g.Node(id)
			if !ok {
				return
			}
			_, err := g.PutNode(domain.NodeInput{ID: id, Gist: n.Gist, Notes: n.Notes, Touches: n.Touches}, at)
			must(err)
		}
	case 2: // a delete, or a re-create after one
		return domain.HistoryPut, func() {
			if _, ok := g.Node(id); ok {
				_, err := g.DeleteNode(id, at)
				must(err)
				return
			}
			if _, ok := g.NodeTombstone(id); ok {
				_, err := g.PutNode(domain.NodeInput{ID: id, Gist: gist}, at)
				must(err)
			}
		}
	case 3: // an edge put, often with the notes it has, or deleted
		return domain.HistoryPut, func() {
			k := domain.EdgeKey{From: id, To: other, Rel: "uses"}
			if r.rnd.IntN(3) == 0 {
				g.DeleteEdge(k, at)
				return
			}
			_, err := g.PutEdge(domain.EdgeInput{From: k.From, To: k.To, Rel: k.Rel, Notes: []string{fmt.Sprint(r.rnd.IntN(2))}}, at)
			must(err)
		}
	case 4: // a merge of two nodes
		return domain.HistoryPut, func() {
			_, okA := g.Node(id)
			_, okB := g.Node(other)
			if !okA || !okB || id == other {
				return
			}
			_, err := merge.MergeNodes(g, merge.MergeInput{Into: id, From: other}, secretscreen.Allow, at)
			must(err)
		}
	case 5: // an import that merges, its nodes sometimes as stored
		return domain.HistoryPut, func() {
			doc := domain.GraphData{Nodes: []domain.Node{{ID: id, Gist: gist}},
				Edges: []domain.Edge{{From: id, To: other, Rel: "uses", Notes: []string{"0"}}}}
			_, err := importing.Import(g, doc, importing.Merge, at)
			must(err)
		}
	case 6, 7: // a compaction run on a tiny budget: moves only
		return domain.HistoryPut, func() {
			p := compaction.DefaultPolicy()
			p.MaxTokens, p.Grace = 1+r.rnd.IntN(40), 0
			compaction.Run(g, at.Now, p)
		}
	default: // a read by id that promotes
		return domain.HistoryMove, func() {
			if n, ok := g.Node(id); ok && n.Tier != domain.Active {
				_, err := g.RecallNode(id, at)
				must(err)
			}
		}
	}
}

// undo plans the undo of target from the log the backend holds, as the
// app does, applies it as one logged write and commits it. It reports
// false when the log holds none of the target's changes.
func (r *undoRun) undo(target undo.Target) (undo.Plan, bool) {
	h := r.h
	q := ports.HistoryQuery{Session: target.Session}
	if target.Session == "" {
		q.SinceSeq, q.BeforeSeq = target.From-1, target.To+1
	}
	mine := slices.DeleteFunc(h.readHistory(r.k, q), func(e domain.HistoryEntry) bool { return e.Op == domain.HistoryMove })
	if len(mine) == 0 {
		return undo.Plan{}, false
	}
	log := h.readHistory(r.k, ports.HistoryQuery{SinceSeq: mine[len(mine)-1].Seq - 1})
	slices.Reverse(log)
	r.now += domain.Second
	at := domain.Stamp{Now: r.now, Session: "undoer"}
	r.before = append(r.before, itemStates(r.g))
	var plan undo.Plan
	r.h.loggedAs(r.k, r.g, at, domain.HistoryUndo, func() {
		plan = undo.NewPlan(r.g, log, target)
		if _, failed := undo.Apply(r.g, plan, at); len(failed) > 0 {
			h.t.Fatalf("undo steps failed: %v", failed)
		}
	})
	return plan, true
}
