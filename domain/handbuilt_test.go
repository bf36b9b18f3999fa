package domain

import (
	"strings"
	"testing"
)

// The hand-built graphs of the journal tests; compaction's tests
// (domain/compaction), pruning's among them, build theirs the same way.

// cpN describes a node of a hand-built test graph.
type cpN struct {
	id         string
	gist       int    // gist length in chars; 0 means 20 (cost 20 + 5 = 25 tokens)
	notes      []int  // note lengths
	ts, read   Micros // last write, last read
	created    Micros // 0: old
	tier       Tier
	orphanedAt Micros
	use        Use // zero: none stored, so Restore gives the default
}

// cpE is an edge of a hand-built test graph, rel "r" unless given.
type cpE struct{ from, to string }

const cpNow = 100 * Day

// cpGraph builds a checkpointed graph through Restore, as a backend would.
func cpGraph(t testing.TB, nodes []cpN, edges []cpE) *Graph {
	t.Helper()
	var d GraphData
	d.Schema = SchemaVersion
	seq := uint64(0)
	for _, n := range nodes {
		gl := n.gist
		if gl == 0 {
			gl = 20
		}
		var notes []string
		for _, l := range n.notes {
			notes = append(notes, strings.Repeat("n", l))
		}
		seq++
		d.Nodes = append(d.Nodes, Node{
			ID: n.id, Gist: strings.Repeat("g", gl), Notes: notes,
			Tier: n.tier, Created: n.created, LastRead: n.read, OrphanedAt: n.orphanedAt, Use: n.use,
			Version: Version{V: 1, TS: n.ts, Seq: seq},
		})
	}
	for _, e := range edges {
		seq++
		d.Edges = append(d.Edges, Edge{From: e.from, To: e.to, Rel: "r", Version: Version{V: 1, TS: 1, Seq: seq}})
	}
	d.Seq = seq
	g, notes := Restore(GraphKey{Level: LevelUser}, d, RestoreOptions{})
	if len(notes) != 0 {
		t.Fatalf("Restore notes: %v", notes)
	}
	g.Checkpoint()
	return g
}

// line returns n old active nodes n1…n<n> with last writes 1…n and the
// default 25-token cost, so with no edges their rank order is n1, n2, ….
func line(n int, mod func(i int, c *cpN)) []cpN {
	var ns []cpN
	for i := 1; i <= n; i++ {
		c := cpN{id: "n" + string(rune('0'+i)), ts: Micros(i)}
		if mod != nil {
			mod(i, &c)
		}
		ns = append(ns, c)
	}
	return ns
}
