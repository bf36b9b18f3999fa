package domain

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestApplyCommittedProperty: a replica that applies, batch by batch, the
// PendingDelta of every batch a leader commits holds the leader's data,
// stats and durable seq, with exact indexes, whatever the batches did; and
// PendingBefore names each changed item as it was at the last checkpoint.
func TestApplyCommittedProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := &graphMachine{g: NewGraph(ProjectGraph("/p"))}
		m.checkpoint = withoutSeq(m.g.Data())
		replica := NewGraph(ProjectGraph("/p"))
		ops := []func(*rapid.T){m.PutNode, m.PutEdge, m.DeleteNode, m.DeleteEdge, m.RecallNode, m.SetTier, m.Prune,
			m.StampRead, m.Progress, m.MoveProject}
		batches := rapid.IntRange(1, 12).Draw(t, "batches")
		for range batches {
			before := m.g.Data()
			for range rapid.IntRange(0, 6).Draw(t, "ops") {
				rapid.SampledFrom(ops).Draw(t, "op")(t)
			}
			checkBefore(t, before, m.g.PendingBefore())
			d := m.g.PendingDelta()
			m.g.Checkpoint()
			replica.ApplyCommitted(d)
			if diff := cmp.Diff(m.g.Data(), replica.Data()); diff != "" {
				t.Fatalf("replica differs from the leader (-leader +replica):\n%s", diff)
			}
			if replica.Stats() != m.g.Stats() || replica.DurableSeq() != m.g.DurableSeq() || replica.Seq() != m.g.Seq() {
				t.Fatalf("replica stats %+v seq %d/%d, leader %+v %d/%d", replica.Stats(), replica.Seq(), replica.DurableSeq(),
					m.g.Stats(), m.g.Seq(), m.g.DurableSeq())
			}
			if !replica.Pending().Empty() {
				t.Fatalf("replica has pending changes after applying: %v", pendingNames(replica.Pending()))
			}
			checkIndexes(t, replica)
		}
	})
}

// checkBefore fails unless every node and edge named in b has, in the data
// before, the value b gives (nil: absent).
func checkBefore(t failer, before GraphData, b Delta) {
	nodes := map[string]Node{}
	for _, n := range before.Nodes {
		nodes[n.ID] = n
	}
	for id, n := range b.Nodes {
		old, had := nodes[id]
		if had != (n != nil) || (had && !cmp.Equal(old, *n)) {
			t.Fatalf("PendingBefore node %q = %+v, was %+v (present %v)", id, n, old, had)
		}
	}
	edges := map[EdgeKey]Edge{}
	for _, e := range before.Edges {
		edges[e.Key()] = e
	}
	for k, e := range b.Edges {
		old, had := edges[k]
		if had != (e != nil) || (had && !cmp.Equal(old, *e)) {
			t.Fatalf("PendingBefore edge %s = %+v, was %+v (present %v)", k, e, old, had)
		}
	}
	for id, tb := range b.NodeTombstones {
		old, had := before.NodeTombstones[id]
		if had != (tb != nil) || (had && old != *tb) {
			t.Fatalf("PendingBefore tombstone %q = %+v, was %+v", id, tb, old)
		}
	}
}

// TestApplyCommittedKeepsHigherSeq: a graph whose failed save used seqs the
// database never stored keeps its counter, but its durable seq is exactly
// the committed one.
func TestApplyCommittedKeepsHigherSeq(t *testing.T) {
	g := NewGraph(UserGraph)
	at := Stamp{Now: 10}
	for _, id := range []string{"a", "b", "c"} {
		if _, err := g.PutNode(NodeInput{ID: id, Gist: id}, at); err != nil {
			t.Fatal(err)
		}
	}
	g.Rollback() // the save failed: seqs 1..3 were handed out and lost
	other := NewGraph(UserGraph)
	if _, err := other.PutNode(NodeInput{ID: "x", Gist: "from elsewhere"}, at); err != nil {
		t.Fatal(err)
	}
	g.ApplyCommitted(other.PendingDelta())
	if g.DurableSeq() != 1 || g.Seq() != 3 {
		t.Fatalf("after applying seq 1: durable %d, seq %d; want 1, 3", g.DurableSeq(), g.Seq())
	}
	n, err := g.PutNode(NodeInput{ID: "y", Gist: "next"}, at)
	if err != nil || n.Version.Seq != 4 {
		t.Fatalf("next write took seq %d (%v), want 4", n.Version.Seq, err)
	}
}
