package domain

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// undoContent is what an undo restores of every item: a node's gist, notes and
// touches, an edge's notes; "" for an item that does not exist.
func undoContent(g *Graph) map[string]string {
	out := map[string]string{}
	for _, n := range g.Nodes() {
		out["node "+n.ID] = n.Gist + "|" + strings.Join(n.Notes, ",") + "|" + strings.Join(n.Touches, ",")
	}
	for _, e := range g.Edges() {
		out["edge "+e.Key().String()] = "|" + strings.Join(e.Notes, ",")
	}
	return out
}

// itemSeqs is the seq of every item's version; a write that changed an
// item (a promotion by read aside) gave it a new one. The property test
// tells what each write changed from them, not from the change log, so
// that a write that has no entry cannot hide from it.
func itemSeqs(g *Graph) map[string]uint64 {
	out := map[string]uint64{}
	for _, n := range g.Nodes() {
		out["node "+n.ID] = n.Version.Seq
	}
	for _, e := range g.Edges() {
		out["edge "+e.Key().String()] = e.Version.Seq
	}
	return out
}

// TestUndoRestoresWhatNobodyChangedSince runs random histories of three
// sessions writing the same few nodes and edges (identical re-puts and
// re-creates after a delete among them), then undoes one session
// (or a seq range) and checks, item by item, that every item the undone
// changes touched and nobody else changed since is back as it was before
// the first of them (unless it is named as skipped for a reason that
// protects another write), and that every other item is exactly as before
// the undo: no later write of another session is overwritten.
func TestUndoRestoresWhatNobodyChangedSince(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := NewGraph(UserGraph)
		var log []HistoryEntry
		// before[i] is the content before write i; touched[item] the
		// indexes of the writes that changed it, with their sessions.
		var before []map[string]string
		type touch struct {
			write   int
			session string
			seq     uint64
		}
		touched := map[string][]touch{}
		now := Micros(1000)
		ids := []string{"a", "b", "c"}
		sessions := []string{"s1", "s2", "s3"}
		writes := rapid.IntRange(1, 25).Draw(t, "writes")
		for i := range writes {
			now += 10
			at := Stamp{Now: now, Session: rapid.SampledFrom(sessions).Draw(t, "session")}
			before = append(before, undoContent(g))
			seqsBefore := itemSeqs(g)
			g.StartChangeLog()
			id := rapid.SampledFrom(ids).Draw(t, "id")
			switch rapid.IntRange(0, 4).Draw(t, "op") {
			case 0, 1:
				_, _ = g.PutNode(NodeInput{ID: id, Gist: fmt.Sprintf("gist %d", rapid.IntRange(0, 3).Draw(t, "gist")),
					Notes: []string{fmt.Sprint(rapid.IntRange(0, 1).Draw(t, "note"))}}, at)
			case 4: // an identical re-put of what is stored
				if n, ok := g.Node(id); ok {
					_, _ = g.PutNode(NodeInput{ID: id, Gist: n.Gist, Notes: n.Notes, Touches: n.Touches}, at)
				}
			case 2:
				_, _ = g.DeleteNode(id, at)
			case 3:
				to := rapid.SampledFrom(append(ids, "x.go")).Draw(t, "to")
				if rapid.Bool().Draw(t, "delete edge") {
					g.DeleteEdge(EdgeKey{From: id, To: to, Rel: "uses"}, at)
				} else {
					_, _ = g.PutEdge(EdgeInput{From: id, To: to, Rel: "uses", Notes: []string{fmt.Sprint(i)}}, at)
				}
			}
			entries := g.TakeChangeLog(at, HistoryPut)
			seqsAfter := itemSeqs(g)
			for _, e := range entries {
				// An entry's item must be one whose version changed, and the
				// loop below must find it.
				if seqsBefore[e.Name()] == seqsAfter[e.Name()] && e.Op != HistoryMove {
					t.Fatalf("write %d logged %s, whose version did not change", i, e.Name())
				}
			}
			for _, e := range entries {
				if seqsBefore[e.Name()] != seqsAfter[e.Name()] {
					touched[e.Name()] = append(touched[e.Name()], touch{write: i, session: at.Session, seq: e.Seq})
				}
			}
			for item, seq := range seqsAfter {
				if seqsBefore[item] != seq && !slices.ContainsFunc(entries, func(e HistoryEntry) bool { return e.Name() == item }) {
					t.Fatalf("write %d gave %s a new version (seq %d) and logged no entry of it", i, item, seq)
				}
			}
			log = append(log, entries...)
			g.Checkpoint()
		}

		var target UndoTarget
		if rapid.Bool().Draw(t, "by session") {
			target.Session = rapid.SampledFrom(sessions).Draw(t, "undo session")
		} else if len(log) > 0 {
			a := rapid.IntRange(0, len(log)-1).Draw(t, "from")
			b := rapid.IntRange(a, len(log)-1).Draw(t, "to")
			target.From, target.To = log[a].Seq, log[b].Seq
		} else {
			target.From, target.To = 1, 1
		}
		holds := func(tc touch) bool {
			if target.Session != "" {
				return tc.session == target.Session
			}
			return tc.seq >= target.From && tc.seq <= target.To
		}

		pre := undoContent(g)
		plan := PlanUndo(g, log, target)
		g.StartChangeLog()
		_, failed := g.ApplyUndo(plan, Stamp{Now: now + 10, Session: "undoer"})
		undoLog := g.TakeChangeLog(Stamp{Now: now + 10, Session: "undoer"}, HistoryUndo)
		if len(failed) > 0 {
			t.Fatalf("steps failed: %v", failed)
		}
		post := undoContent(g)
		skipped := map[string]string{}
		for _, s := range plan.Skipped {
			skipped[ItemChange{Edge: s.Edge, ID: s.ID, Key: s.Key}.Name()] = s.Reason
		}

		items := map[string]bool{}
		for k := range pre {
			items[k] = true
		}
		for k := range post {
			items[k] = true
		}
		for k := range touched {
			items[k] = true
		}
		for item := range items {
			ts := touched[item]
			first := slices.IndexFunc(ts, holds)
			if first < 0 {
				if pre[item] != post[item] {
					t.Fatalf("%s: not touched by the undone changes, but the undo changed it from %q to %q", item, pre[item], post[item])
				}
				continue
			}
			otherSince := slices.ContainsFunc(ts[first:], func(tc touch) bool { return !holds(tc) })
			if otherSince {
				if pre[item] != post[item] {
					t.Fatalf("%s: changed by another write since, yet the undo changed it from %q to %q", item, pre[item], post[item])
				}
				if _, ok := skipped[item]; !ok {
					t.Fatalf("%s: changed by another write since, and not named as skipped", item)
				}
				continue
			}
			want := before[ts[first].write][item]
			if why, ok := skipped[item]; ok {
				if !strings.Contains(why, "deleting it would delete edges") || pre[item] != post[item] {
					t.Fatalf("%s: skipped (%s) though nobody else changed it; pre %q post %q", item, why, pre[item], post[item])
				}
				continue
			}
			if post[item] != want {
				for _, e := range log {
					t.Logf("log: seq %d %s %s %s", e.Seq, e.Session, e.Op, e.Name())
				}
				t.Logf("target %+v plan %+v", target, plan)
				t.Fatalf("%s: undo left %q, want %q as before write %d (pre-undo %q)", item, post[item], want, ts[first].write, pre[item])
			}
		}
		// The undo's own writes are logged, as the undoer's.
		for _, e := range undoLog {
			if e.Op != HistoryUndo || e.Session != "undoer" {
				t.Fatalf("undo logged %+v", e)
			}
		}
	})
}

// TestChangeLogEntries: a write's entries name the item, the op, the seq and
// the values before and after; a read stamp logs nothing; a compaction
// move logs the tier change alone.
func TestChangeLogEntries(t *testing.T) {
	g := NewGraph(UserGraph)
	at := Stamp{Now: 100, Session: "s1"}
	g.StartChangeLog()
	if _, err := g.PutNode(NodeInput{ID: "a", Gist: "one"}, at); err != nil {
		t.Fatal(err)
	}
	if _, err := g.PutEdge(EdgeInput{From: "a", To: "b.go", Rel: "touches"}, at); err != nil {
		t.Fatal(err)
	}
	es := g.TakeChangeLog(at, HistoryPut)
	if len(es) != 2 || es[0].Op != HistoryPut || es[0].ID != "a" || es[0].BeforeNode != nil || es[0].AfterNode.Gist != "one" ||
		es[0].Seq != 1 || !es[1].Edge || es[1].Seq != 2 || es[0].Session != "s1" || es[0].Time != 100 {
		t.Fatalf("entries %+v", es)
	}
	g.StartChangeLog()
	g.StampRead("a", 200)
	if es := g.TakeChangeLog(at, HistoryPut); len(es) != 0 {
		t.Fatalf("a read stamp logged %+v", es)
	}
	g.StartChangeLog()
	g.setTier("a", Archived, 300)
	es = g.TakeChangeLog(Stamp{Now: 300}, HistoryPut)
	if len(es) != 1 || es[0].Op != HistoryMove || es[0].Tier == nil || *es[0].Tier != (TierChange{From: "active", To: "archived"}) ||
		es[0].BeforeNode != nil || es[0].AfterNode != nil {
		t.Fatalf("move logged %+v", es)
	}
	g.StartChangeLog()
	if _, err := g.DeleteNode("a", Stamp{Now: 400, Session: "s2"}); err != nil {
		t.Fatal(err)
	}
	es = g.TakeChangeLog(Stamp{Now: 400, Session: "s2"}, HistoryPut)
	if len(es) != 2 || es[0].Op != HistoryDelete || !es[0].Edge || es[1].Op != HistoryDelete || es[1].ID != "a" || es[1].AfterNode != nil {
		t.Fatalf("delete logged %+v", es)
	}
	if d := es[1].Diff(); len(d) != 1 || d[0].Field != "gist" || d[0].Before != "one" || d[0].After != "" {
		t.Fatalf("diff %+v", d)
	}
}

// TestChangeLogOfAHugeWrite: a write that changes more than MaxLoggedItems
// items is one entry of the whole graph, holding none of them.
func TestChangeLogOfAHugeWrite(t *testing.T) {
	g := NewGraph(UserGraph)
	at := Stamp{Now: 100, Session: "bulk"}
	g.StartChangeLog()
	for i := range MaxLoggedItems + 1 {
		if _, err := g.PutNode(NodeInput{ID: fmt.Sprintf("n%d", i), Gist: "bulk"}, at); err != nil {
			t.Fatal(err)
		}
	}
	es := g.TakeChangeLog(at, HistoryImportReplace)
	if len(es) != 1 || !es[0].Graph || len(es[0].Items) != 0 || es[0].Op != HistoryImportReplace || es[0].Seq != g.Seq() ||
		!strings.Contains(es[0].Detail, "too many to keep one by one") {
		t.Fatalf("entries of a huge write: %d, first %+v", len(es), es[0])
	}
}
