package domain

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// graphMachine drives a graph through random operations and checks, after
// each, that the incremental state equals a recomputation from scratch and
// that Rollback always returns to the last checkpoint.
type graphMachine struct {
	g          *Graph
	checkpoint GraphData // at the last Checkpoint, seq blanked
	now        Micros
	lastSeq    uint64
}

var (
	propIDs      = []string{"a", "b", "c", "d", "e"}
	propEnds     = []string{"a", "b", "c", "d", "e", "a.go", "https://x.test/doc", "user-principle"}
	propRels     = []string{"uses", "touches"}
	propSessions = []string{"", "s1", "s2"}
)

func (m *graphMachine) stamp(t *rapid.T) Stamp {
	m.now += Micros(rapid.IntRange(0, 3).Draw(t, "dt"))
	return Stamp{Now: m.now, Session: rapid.SampledFrom(propSessions).Draw(t, "session")}
}

// strs draws nil (omitted), an empty list (clear) or a few strings, some of
// them long enough to move the token estimate.
func strs(t *rapid.T, label string) []string {
	switch rapid.IntRange(0, 2).Draw(t, label+"-kind") {
	case 0:
		return nil
	case 1:
		return []string{}
	}
	n := rapid.IntRange(1, 3).Draw(t, label+"-n")
	out := make([]string, n)
	for i := range out {
		out[i] = strings.Repeat("w", rapid.IntRange(1, 30).Draw(t, label+"-len"))
	}
	return out
}

// unchanged fails when a failed operation changed anything.
func (m *graphMachine) unchanged(t *rapid.T, before GraphData, op string) {
	if diff := quickDiff(before, m.g.Data()); diff != "" {
		t.Fatalf("a rejected %s changed the graph:\n%s", op, diff)
	}
}

func (m *graphMachine) PutNode(t *rapid.T) {
	in := NodeInput{
		ID:      rapid.SampledFrom(propIDs).Draw(t, "id"),
		Gist:    strings.Repeat("g", rapid.IntRange(1, 40).Draw(t, "gist")),
		Notes:   strs(t, "notes"),
		Touches: strs(t, "touches"),
	}
	if rapid.Bool().Draw(t, "expect") {
		v := uint64(rapid.IntRange(0, 3).Draw(t, "version"))
		in.ExpectedVersion = &v
	}
	before := m.g.Data()
	want := m.g.lastNodeVersion(in.ID) + 1
	n, err := m.g.PutNode(in, m.stamp(t))
	if err != nil {
		if KindOf(err) != KindConflict {
			t.Fatalf("PutNode: %v", err)
		}
		m.unchanged(t, before, "put")
		return
	}
	if n.Tier != Active || n.Version.V != want || n.Version.Seq != m.g.Seq() {
		t.Fatalf("put node: tier %v, version %d, seq %d; want active, %d, %d", n.Tier, n.Version.V, n.Version.Seq, want, m.g.Seq())
	}
}

func (m *graphMachine) PutEdge(t *rapid.T) {
	in := EdgeInput{
		From:  rapid.SampledFrom(propEnds).Draw(t, "from"),
		To:    rapid.SampledFrom(propEnds).Draw(t, "to"),
		Rel:   rapid.SampledFrom(propRels).Draw(t, "rel"),
		Notes: strs(t, "notes"),
	}
	if _, err := m.g.PutEdge(in, m.stamp(t)); err != nil {
		t.Fatalf("PutEdge: %v", err)
	}
}

func (m *graphMachine) DeleteNode(t *rapid.T) {
	id := rapid.SampledFrom(propIDs).Draw(t, "id")
	before := m.g.Data()
	want := len(m.g.EdgesOf(id))
	n, err := m.g.DeleteNode(id, m.stamp(t))
	if err != nil {
		if KindOf(err) != KindNotFound {
			t.Fatalf("DeleteNode: %v", err)
		}
		m.unchanged(t, before, "delete")
		return
	}
	if n != want || m.g.IsNode(id) || len(m.g.EdgesOf(id)) != 0 {
		t.Fatalf("delete %s: %d edges deleted, want %d; node left %v", id, n, want, m.g.IsNode(id))
	}
}

func (m *graphMachine) DeleteEdge(t *rapid.T) {
	k := EdgeKey{
		From: rapid.SampledFrom(propEnds).Draw(t, "from"),
		To:   rapid.SampledFrom(propEnds).Draw(t, "to"),
		Rel:  rapid.SampledFrom(propRels).Draw(t, "rel"),
	}
	_, had := m.g.Edge(k)
	before := m.g.Data()
	if got := m.g.DeleteEdge(k, m.stamp(t)); got != had {
		t.Fatalf("DeleteEdge(%s) = %v, edge existed: %v", k, got, had)
	}
	if !had {
		m.unchanged(t, before, "edge delete")
	}
}

func (m *graphMachine) RecallNode(t *rapid.T) {
	id := rapid.SampledFrom(propIDs).Draw(t, "id")
	r, err := m.g.RecallNode(id, m.stamp(t))
	if err != nil {
		if KindOf(err) != KindNotFound {
			t.Fatalf("RecallNode: %v", err)
		}
		return
	}
	if r.Node.Tier != Active || r.Node.LastRead != m.now {
		t.Fatalf("recall %s: tier %v, last read %d", id, r.Node.Tier, r.Node.LastRead)
	}
	for _, nb := range r.Rescued {
		if n, _ := m.g.Node(nb); n.Tier != Archived {
			t.Fatalf("rescued %s is %v", nb, n.Tier)
		}
	}
	if !slices.IsSorted(r.Rescued) {
		t.Fatalf("rescued not sorted: %v", r.Rescued)
	}
}

func (m *graphMachine) StampRead(t *rapid.T) {
	m.g.StampRead(rapid.SampledFrom(propIDs).Draw(t, "id"), m.stamp(t).Now)
}

// SetTier moves a node as compaction would, which is what makes edges
// shown or hidden.
func (m *graphMachine) SetTier(t *rapid.T) {
	id := rapid.SampledFrom(propIDs).Draw(t, "id")
	if !m.g.IsNode(id) {
		return
	}
	m.g.setTier(id, rapid.SampledFrom([]Tier{Active, Archived, Orphaned}).Draw(t, "tier"), m.stamp(t).Now)
}

func (m *graphMachine) Prune(t *rapid.T) {
	id := rapid.SampledFrom(propIDs).Draw(t, "id")
	if !m.g.IsNode(id) {
		return
	}
	m.g.removeNode(id, m.stamp(t), true)
}

func (m *graphMachine) Progress(t *rapid.T) {
	state := RawJSON(`{"n":` + strings.Repeat("1", rapid.IntRange(1, 5).Draw(t, "n")) + `}`)
	if err := m.g.SetProgress(rapid.SampledFrom([]string{"t1", "t2"}).Draw(t, "task"), state); err != nil {
		t.Fatalf("SetProgress: %v", err)
	}
}

func (m *graphMachine) MoveProject(t *rapid.T) {
	m.g.SetProjectPath(rapid.SampledFrom([]string{"/p", "/q"}).Draw(t, "path"))
}

func (m *graphMachine) Checkpoint(t *rapid.T) {
	m.g.Checkpoint()
	m.checkpoint = withoutSeq(m.g.Data())
	if !m.g.Pending().Empty() || m.g.DurableSeq() != m.g.Seq() {
		t.Fatalf("after checkpoint: pending %v, durable %d, seq %d", pendingNames(m.g.Pending()), m.g.DurableSeq(), m.g.Seq())
	}
}

func (m *graphMachine) Rollback(t *rapid.T) {
	seq := m.g.Seq()
	m.g.Rollback()
	if diff := quickDiff(m.checkpoint, withoutSeq(m.g.Data())); diff != "" {
		t.Fatalf("rollback did not return to the checkpoint (-checkpoint +got):\n%s", diff)
	}
	if m.g.Seq() != seq {
		t.Fatalf("rollback moved seq from %d to %d", seq, m.g.Seq())
	}
}

// Check runs after every operation.
func (m *graphMachine) Check(t *rapid.T) {
	checkIndexes(t, m.g)
	if m.g.Seq() < m.lastSeq {
		t.Fatalf("seq went back from %d to %d", m.lastSeq, m.g.Seq())
	}
	m.lastSeq = m.g.Seq()
	m.checkSeqs(t)
	m.checkPending(t)
}

// checkSeqs: every seq on record is distinct and at most Seq.
func (m *graphMachine) checkSeqs(t *rapid.T) {
	seen := map[uint64]string{}
	note := func(seq uint64, what string) {
		if seq == 0 {
			return
		}
		if seq > m.g.Seq() {
			t.Fatalf("%s has seq %d above the counter %d", what, seq, m.g.Seq())
		}
		if other, dup := seen[seq]; dup {
			t.Fatalf("%s and %s share seq %d", what, other, seq)
		}
		seen[seq] = what
	}
	d := m.g.Data()
	for _, n := range d.Nodes {
		note(n.Version.Seq, "node "+n.ID)
		note(n.TierSeq, "tier of "+n.ID)
	}
	for _, e := range d.Edges {
		note(e.Version.Seq, "edge "+e.Key().String())
	}
	for id, tb := range d.NodeTombstones {
		note(tb.Seq, "tombstone "+id)
	}
	for k, tb := range d.EdgeTombstones {
		note(tb.Seq, "tombstone "+k.String())
	}
}

// checkPending: every item that differs from the checkpoint is pending.
func (m *graphMachine) checkPending(t *rapid.T) {
	p := m.g.Pending()
	cur := m.g.Data()
	old := m.checkpoint
	nodes := func(d GraphData) map[string]Node {
		out := map[string]Node{}
		for _, n := range d.Nodes {
			out[n.ID] = n
		}
		return out
	}
	edges := func(d GraphData) map[EdgeKey]Edge {
		out := map[EdgeKey]Edge{}
		for _, e := range d.Edges {
			out[e.Key()] = e
		}
		return out
	}
	diffKeys(t, "node", nodes(old), nodes(cur), p.Nodes)
	diffKeys(t, "edge", edges(old), edges(cur), p.Edges)
	diffKeys(t, "node tombstone", old.NodeTombstones, cur.NodeTombstones, p.NodeTombstones)
	diffKeys(t, "edge tombstone", old.EdgeTombstones, cur.EdgeTombstones, p.EdgeTombstones)
	diffKeys(t, "progress", old.Progress, cur.Progress, p.Progress)
	if m.g.Seq() != m.g.DurableSeq() && !p.Meta {
		t.Fatalf("seq moved from %d to %d but the metadata is not pending", m.g.DurableSeq(), m.g.Seq())
	}
}

func diffKeys[K comparable, V any](t *rapid.T, what string, old, cur map[K]V, pending map[K]struct{}) {
	check := func(k K) {
		if _, ok := pending[k]; ok {
			return
		}
		o, inOld := old[k]
		c, inCur := cur[k]
		if inOld != inCur || !cmp.Equal(o, c) {
			t.Fatalf("%s %v changed but is not pending", what, k)
		}
	}
	for k := range old {
		check(k)
	}
	for k := range cur {
		check(k)
	}
}

func TestGraphProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := &graphMachine{g: NewGraph(ProjectGraph("/p"))}
		m.checkpoint = withoutSeq(m.g.Data())
		t.Repeat(rapid.StateMachineActions(m))
	})
}

// TestGraphPropertiesAfterAnUpgrade is TestGraphProperties on a graph
// restored with an upgrade whose save failed: every item is pending, none
// journaled, until the first checkpoint, and Rollback must still return to
// the restored graph (TestRollbackAfterAnUpgrade).
func TestGraphPropertiesAfterAnUpgrade(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := &graphMachine{g: NewGraph(ProjectGraph("/p"))}
		ops := []func(*rapid.T){m.PutNode, m.PutEdge, m.DeleteNode, m.DeleteEdge, m.RecallNode, m.SetTier, m.Prune, m.Progress}
		for range rapid.IntRange(0, 20).Draw(t, "steps") {
			rapid.SampledFrom(ops).Draw(t, "op")(t)
		}
		d := m.g.Data()
		d.Schema = SchemaVersion - 1
		m.g, _ = Restore(m.g.Key(), d, RestoreOptions{})
		m.checkpoint = withoutSeq(m.g.Data())
		t.Repeat(rapid.StateMachineActions(m))
	})
}

// TestRestoreProperty: restoring any reachable graph's data gives a graph
// with the same data, stats and seq, and nothing to write back.
func TestRestoreProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := &graphMachine{g: NewGraph(ProjectGraph("/p"))}
		m.checkpoint = withoutSeq(m.g.Data())
		steps := rapid.IntRange(0, 40).Draw(t, "steps")
		ops := []func(*rapid.T){m.PutNode, m.PutEdge, m.DeleteNode, m.DeleteEdge, m.RecallNode, m.SetTier, m.Prune}
		for range steps {
			rapid.SampledFrom(ops).Draw(t, "op")(t)
		}
		d := m.g.Data()
		r, notes := Restore(m.g.Key(), d, RestoreOptions{})
		if len(notes) != 0 {
			t.Fatalf("notes: %q", notes)
		}
		if diff := quickDiff(d, r.Data()); diff != "" {
			t.Fatalf("restored data differs:\n%s", diff)
		}
		if r.Stats() != m.g.Stats() || r.Seq() != m.g.Seq() || !r.Pending().Empty() {
			t.Fatalf("restored: stats %+v seq %d pending %v; want %+v, %d, none", r.Stats(), r.Seq(), pendingNames(r.Pending()), m.g.Stats(), m.g.Seq())
		}
		checkIndexes(t, r)
	})
}
