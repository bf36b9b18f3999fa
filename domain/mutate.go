package domain

import (
	"fmt"
	"slices"
)

// Stamp says when and by whom a change is made: one clock read per change,
// taken by the caller, and the session that made it (empty for none).
type Stamp struct {
	Now     Micros
	Session string
	// Principal is who makes the change, in team mode; "" otherwise. It
	// is recorded on the version entries the change writes.
	Principal string
}

// NodeInput is a client's put of a node. A nil Notes or Touches means
// "omitted: keep what is stored"; a non-nil empty list clears it.
type NodeInput struct {
	ID              string
	Gist            string
	Notes           []string
	Touches         []string
	ExpectedVersion *uint64 // when set, the node must be at this version (0: must not exist)
}

// Validate checks every field of the input against
// docs/design/model.md#identifiers-and-limits and returns the input with its
// gist trimmed and its notes' CR LF line breaks made LF.
func (in NodeInput) Validate() (NodeInput, error) {
	if err := ValidateID("id", in.ID); err != nil {
		return in, err
	}
	gist, err := NormalizeGist(in.Gist)
	if err != nil {
		return in, err
	}
	in.Gist = gist
	if in.Notes, err = NormalizeNotes("notes", in.Notes); err != nil {
		return in, err
	}
	if err := ValidateTouches("touches", in.Touches); err != nil {
		return in, err
	}
	return in, nil
}

// NodeVersion returns the version a node is at, as a client sees it: its
// version if it exists, 0 if it is missing or deleted
// (docs/design/sync.md#tombstones). expected_version is compared with it,
// so that 0 means "create only" for a deleted node too.
func (g *Graph) NodeVersion(id string) uint64 {
	if n, ok := g.node(id); ok {
		return n.Version.V
	}
	return 0
}

// lastNodeVersion returns the last version the node had in any
// incarnation: its version if it exists, the version kept by its tombstone
// if it was deleted, else 0. A write numbers the node from it, so that a
// re-created node continues from its tombstone and a client holding a
// version of the old incarnation cannot overwrite the new one.
func (g *Graph) lastNodeVersion(id string) uint64 {
	if n, ok := g.node(id); ok {
		return n.Version.V
	}
	if t, ok := g.nodeTombs[id]; ok {
		return t.V
	}
	return 0
}

// PutNode creates a node or merges in into the existing one, and makes it
// active. A rejected input changes nothing.
func (g *Graph) PutNode(in NodeInput, at Stamp) (*Node, error) {
	in, err := in.Validate()
	if err != nil {
		return nil, err
	}
	if in.ExpectedVersion != nil {
		if cur := g.NodeVersion(in.ID); *in.ExpectedVersion != cur {
			return nil, versionConflict(in.ID, cur, *in.ExpectedVersion, g.lastNodeVersion(in.ID))
		}
	}
	last := g.lastNodeVersion(in.ID)
	var n *Node
	if old, ok := g.node(in.ID); ok {
		n = old.clone()
	} else {
		// A node created by a call starts with no use: the call's own
		// count, if it has a session, gives it one session's worth.
		n = &Node{ID: in.ID, Created: at.Now, Use: Use{Known: true}}
	}
	n.Gist = in.Gist
	if in.Notes != nil {
		n.Notes = cloneStrings(in.Notes)
	}
	if in.Touches != nil {
		n.Touches = cloneStrings(in.Touches)
	}
	n.Tier, n.OrphanedAt, n.TierSeq = Active, 0, 0
	n.Stale = nil // a write of the node clears its stale marks (docs/design/trust.md#staleness)
	n.Version = Version{V: last + 1, TS: at.Now, Session: at.Session, Principal: at.Principal, Seq: g.nextSeq()}
	if _, ok := g.nodeTombs[in.ID]; ok {
		g.setNodeTomb(in.ID, nil)
	}
	g.setNode(in.ID, n)
	return n, nil
}

// versionConflict is the error of a put whose expected version does not
// hold. A deleted node is at version 0; the message says it was deleted, so
// that a client holding its old version knows why.
func versionConflict(id string, cur, want, last uint64) error {
	if cur == 0 && last > 0 {
		return &Error{Kind: KindConflict, Field: "expected_version",
			Msg: fmt.Sprintf("node %q was deleted (its last version was %d): it is at version 0, not %d; send 0 to re-create it", id, last, want)}
	}
	return &Error{Kind: KindConflict, Field: "expected_version",
		Msg: fmt.Sprintf("node %q is at version %d, not %d; read it and retry", id, cur, want)}
}

// EdgeInput is a client's put of an edge. A nil Notes keeps the stored
// notes; a non-nil empty list clears them.
type EdgeInput struct {
	From, To, Rel string
	Notes         []string
}

// Key returns the identity of the edge.
func (in EdgeInput) Key() EdgeKey { return EdgeKey{in.From, in.To, in.Rel} }

// Validate checks every field of the input against
// docs/design/model.md#identifiers-and-limits and returns the input with its
// notes' CR LF line breaks made LF.
func (in EdgeInput) Validate() (EdgeInput, error) {
	if err := ValidateEnd("from", in.From); err != nil {
		return in, err
	}
	if err := ValidateEnd("to", in.To); err != nil {
		return in, err
	}
	if err := ValidateRel("rel", in.Rel); err != nil {
		return in, err
	}
	notes, err := NormalizeNotes("notes", in.Notes)
	if err != nil {
		return in, err
	}
	in.Notes = notes
	return in, nil
}

// PutEdge creates or updates the edge (from, to, rel). Its ends need not
// exist.
func (g *Graph) PutEdge(in EdgeInput, at Stamp) (*Edge, error) {
	in, err := in.Validate()
	if err != nil {
		return nil, err
	}
	k := in.Key()
	var e *Edge
	var cur uint64
	if old, ok := g.Edge(k); ok {
		e = old.clone()
		cur = old.Version.V
	} else {
		e = &Edge{From: k.From, To: k.To, Rel: k.Rel}
		if t, ok := g.edgeTombs[k]; ok {
			cur = t.V
		}
	}
	if in.Notes != nil {
		e.Notes = cloneStrings(in.Notes)
	}
	e.Version = Version{V: cur + 1, TS: at.Now, Session: at.Session, Principal: at.Principal, Seq: g.nextSeq()}
	if _, ok := g.edgeTombs[k]; ok {
		g.setEdgeTomb(k, nil)
	}
	g.setEdge(k, e)
	return e, nil
}

// DeleteNode deletes the node and the edges of this graph that touch it,
// leaving a tombstone for each. It returns the number of edges deleted.
func (g *Graph) DeleteNode(id string, at Stamp) (int, error) { return g.deleteNode(id, at, false) }

// PruneNode deletes the node as DeleteNode does, but marks its tombstone and
// those of its edges Pruned, so that sync can tell them from a client's
// delete: the deletion of a pruning, for domain/compaction
// (compaction.Prune, docs/design/compaction.md#pruning).
func (g *Graph) PruneNode(id string, at Stamp) (int, error) { return g.deleteNode(id, at, true) }

func (g *Graph) deleteNode(id string, at Stamp, pruned bool) (int, error) {
	if _, ok := g.node(id); !ok {
		return 0, NotFoundf("id", "node %q not found in %s graph", id, g.key.Level)
	}
	return g.removeNode(id, at, pruned), nil
}

// removeNode deletes a node and its edges, leaving tombstones.
func (g *Graph) removeNode(id string, at Stamp, pruned bool) int {
	edges := g.EdgesOf(id) // sorted: deterministic seqs
	for _, e := range edges {
		g.removeEdge(e, at, pruned)
	}
	n, _ := g.node(id)
	g.setNodeTomb(id, &Tombstone{V: n.Version.V, TS: at.Now, Session: at.Session, Seq: g.nextSeq(), Pruned: pruned})
	g.setNode(id, nil)
	return len(edges)
}

func (g *Graph) removeEdge(e *Edge, at Stamp, pruned bool) {
	k := e.Key()
	g.setEdgeTomb(k, &Tombstone{V: e.Version.V, TS: at.Now, Session: at.Session, Seq: g.nextSeq(), Pruned: pruned})
	g.setEdge(k, nil)
}

// DeleteEdge deletes the edge with key k. It reports whether it existed; a
// missing edge is not an error.
func (g *Graph) DeleteEdge(k EdgeKey, at Stamp) bool {
	e, ok := g.Edge(k)
	if !ok {
		return false
	}
	g.removeEdge(e, at, false)
	return true
}

// DropTombstones drops the tombstones of the nodes with the ids in nodes,
// then those of the edges with the keys in edges, in the order given, for
// domain/compaction (compaction.ExpireTombstones). Each dropped tombstone is
// journaled and pending like any change, so a backend deletes it too and a
// rollback brings it back; an id or key without a tombstone is skipped.
func (g *Graph) DropTombstones(nodes []string, edges []EdgeKey) {
	for _, id := range nodes {
		if _, ok := g.nodeTombs[id]; ok {
			g.setNodeTomb(id, nil)
		}
	}
	for _, k := range edges {
		if _, ok := g.edgeTombs[k]; ok {
			g.setEdgeTomb(k, nil)
		}
	}
}

// SetProgress stores the state of a task whole, replacing what was there.
func (g *Graph) SetProgress(task string, state RawJSON) error {
	if err := ValidateID("task_id", task); err != nil {
		return err
	}
	if err := ValidateProgressState("state", state); err != nil {
		return err
	}
	g.setProgress(task, append(RawJSON(nil), state...))
	return nil
}

// Recall is what reading a node by id did.
type Recall struct {
	Node    *Node
	WasTier Tier     // the tier before the read
	Rescued []string // orphaned neighbours made archived again, sorted
}

// Promoted reports whether the read brought the node back to active.
func (r Recall) Promoted() bool { return r.WasTier != Active }

// RecallNode reads the node with id: it stamps the read time and, if the node
// was archived or orphaned, makes it active (a write: its version and seq
// advance) and makes each orphaned neighbour archived again (chain rescue, a
// tier change). For an active node only the read stamp changes.
func (g *Graph) RecallNode(id string, at Stamp) (Recall, error) {
	old, ok := g.node(id)
	if !ok {
		return Recall{}, NotFoundf("id", "node %q not found in %s graph", id, g.key.Level)
	}
	r := Recall{WasTier: old.Tier}
	n := old.clone()
	n.LastRead = at.Now
	if old.Tier != Active {
		n.Tier, n.OrphanedAt, n.TierSeq = Active, 0, 0
		n.Version = Version{V: old.Version.V + 1, TS: at.Now, Session: at.Session, Principal: at.Principal, Seq: g.nextSeq()}
	}
	g.setNode(id, n)
	r.Node = n
	if old.Tier == Active {
		return r, nil
	}
	for _, k := range g.incident(id) {
		other := k.To
		if other == id {
			other = k.From
		}
		if nb, ok := g.node(other); ok && nb.Tier == Orphaned {
			r.Rescued = append(r.Rescued, other)
		}
	}
	// Rescue in id order: the list is documented as sorted, and the
	// rescue seqs then follow it whatever the order of the edges.
	// Two edges may join the same neighbour: Compact drops the repeat.
	slices.Sort(r.Rescued)
	r.Rescued = slices.Compact(r.Rescued)
	for _, other := range r.Rescued {
		g.setTier(other, Archived, at.Now)
	}
	return r, nil
}

// StampRead records that the node with id was read at t without any other
// change (the read of an active node). It does nothing for a missing node or
// an older stamp.
func (g *Graph) StampRead(id string, t Micros) {
	n, ok := g.node(id)
	if !ok || n.LastRead >= t {
		return
	}
	c := n.clone()
	c.LastRead = t
	g.setNode(id, c)
}

// setTier moves a node to tier as compaction or chain rescue does: the tier
// change takes a seq, recorded as the node's TierSeq, and no new version.
func (g *Graph) setTier(id string, tier Tier, now Micros) {
	g.setTierSeq(g.endIx[id], tier, now, g.nextSeq())
}

// setTierSeq is setTier for the node in end slot si, with the seq seq
// already handed out. Its text is unchanged, so are its costs.
func (g *Graph) setTierSeq(si int32, tier Tier, now Micros, seq uint64) {
	e := &g.ends[si]
	old := e.node
	n := old.clone()
	n.Tier = tier
	n.OrphanedAt = 0
	if tier == Orphaned {
		n.OrphanedAt = now
	}
	n.TierSeq = seq
	g.journalNode(e.name, old)
	g.putNodeAt(si, n, e.gistCost, e.notesCost)
}

func cloneStrings(s []string) []string {
	return append(make([]string, 0, len(s)), s...)
}

// SetNodeExtra sets the stored field of node id that kg does not interpret
// (Node.Extra) to v. Like a read stamp, it changes no version and takes no
// seq, so it is no change kg_sync reports; the write that makes it saves it
// (the useful marks of domain/recall). A missing node is a not-found error
// naming "ids".
func (g *Graph) SetNodeExtra(id, field string, v RawJSON) error {
	n, ok := g.node(id)
	if !ok {
		return NotFoundf("ids", "node %q not found in %s graph", id, g.key.Level)
	}
	c := n.clone()
	c.Extra = make(map[string]RawJSON, len(n.Extra)+1)
	for k, old := range n.Extra {
		c.Extra[k] = old
	}
	c.Extra[field] = v
	g.setNode(id, c)
	return nil
}
