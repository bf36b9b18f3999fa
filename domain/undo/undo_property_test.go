package undo

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/kg-memory/kg/domain"
)

// undoContent is what an undo restores of every item: a node's gist, notes and
// touches, an edge's notes; "" for an item that does not exist.
func undoContent(g *domain.Graph) map[string]string {
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
func itemSeqs(g *domain.Graph) map[string]uint64 {
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
		g := domain.NewGraph(domain.UserGraph)
		var log []domain.HistoryEntry
		// before[i] is the content before write i; touched[item] the
		// indexes of the writes that changed it, with their sessions.
		var before []map[string]string
		type touch struct {
			write   int
			session string
			seq     uint64
		}
		touched := map[string][]touch{}
		now := domain.Micros(1000)
		ids := []string{"a", "b", "c"}
		sessions := []string{"s1", "s2", "s3"}
		writes := rapid.IntRange(1, 25).Draw(t, "writes")
		for i := range writes {
			now += 10
			at := domain.Stamp{Now: now, Session: rapid.SampledFrom(sessions).Draw(t, "session")}
			before = append(before, undoContent(g))
			seqsBefore := itemSeqs(g)
			g.StartChangeLog()
			id := rapid.SampledFrom(ids).Draw(t, "id")
			switch rapid.IntRange(0, 4).Draw(t, "op") {
			case 0, 1:
				_, _ = g.PutNode(domain.NodeInput{ID: id, Gist: fmt.Sprintf("gist %d", rapid.IntRange(0, 3).Draw(t, "gist")),
					Notes: []string{fmt.Sprint(rapid.IntRange(0, 1).Draw(t, "note"))}}, at)
			case 4: // an identical re-put of what is stored
				if n, ok := g.Node(id); ok {
					_, _ = g.PutNode(domain.NodeInput{ID: id, Gist: n.Gist, Notes: n.Notes, Touches: n.Touches}, at)
				}
			case 2:
				_, _ = g.DeleteNode(id, at)
			case 3:
				to := rapid.SampledFrom(append(ids, "x.go")).Draw(t, "to")
				if rapid.Bool().Draw(t, "delete edge") {
					g.DeleteEdge(domain.EdgeKey{From: id, To: to, Rel: "uses"}, at)
				} else {
					_, _ = g.PutEdge(domain.EdgeInput{From: id, To: to, Rel: "uses", Notes: []string{fmt.Sprint(i)}}, at)
				}
			}
			entries := g.TakeChangeLog(at, domain.HistoryPut)
			seqsAfter := itemSeqs(g)
			for _, e := range entries {
				// An entry's item must be one whose version changed, and the
				// loop below must find it.
				if seqsBefore[e.Name()] == seqsAfter[e.Name()] && e.Op != domain.HistoryMove {
					t.Fatalf("write %d logged %s, whose version did not change", i, e.Name())
				}
			}
			for _, e := range entries {
				if seqsBefore[e.Name()] != seqsAfter[e.Name()] {
					touched[e.Name()] = append(touched[e.Name()], touch{write: i, session: at.Session, seq: e.Seq})
				}
			}
			for item, seq := range seqsAfter {
				if seqsBefore[item] != seq && !slices.ContainsFunc(entries, func(e domain.HistoryEntry) bool { return e.Name() == item }) {
					t.Fatalf("write %d gave %s a new version (seq %d) and logged no entry of it", i, item, seq)
				}
			}
			log = append(log, entries...)
			g.Checkpoint()
		}

		var target Target
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
		plan := NewPlan(g, log, target)
		g.StartChangeLog()
		_, failed := Apply(g, plan, domain.Stamp{Now: now + 10, Session: "undoer"})
		undoLog := g.TakeChangeLog(domain.Stamp{Now: now + 10, Session: "undoer"}, domain.HistoryUndo)
		if len(failed) > 0 {
			t.Fatalf("steps failed: %v", failed)
		}
		post := undoContent(g)
		skipped := map[string]string{}
		for _, s := range plan.Skipped {
			skipped[domain.ItemChange{Edge: s.Edge, ID: s.ID, Key: s.Key}.Name()] = s.Reason
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
			if e.Op != domain.HistoryUndo || e.Session != "undoer" {
				t.Fatalf("undo logged %+v", e)
			}
		}
	})
}
