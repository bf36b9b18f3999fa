package domain

// Delta is the committed content of the items one batch changed: what a
// graph shared by several servers learns of another server's commit
// (docs/design/team.md#catching-up). A nil value names an item the batch
// removed.
type Delta struct {
	// Seq is the graph's committed seq after the batch.
	Seq            uint64
	Nodes          map[string]*Node
	Edges          map[EdgeKey]*Edge
	NodeTombstones map[string]*Tombstone
	EdgeTombstones map[EdgeKey]*Tombstone
	Progress       map[string]RawJSON
	// ProjectPath, when not nil, is the project path the batch recorded.
	// (Unknown metadata is only ever kept as it was loaded, never changed,
	// so a delta carries none.)
	ProjectPath *string
}

// NewDelta returns a delta that names nothing yet.
func NewDelta() Delta {
	return Delta{Nodes: map[string]*Node{}, Edges: map[EdgeKey]*Edge{},
		NodeTombstones: map[string]*Tombstone{}, EdgeTombstones: map[EdgeKey]*Tombstone{},
		Progress: map[string]RawJSON{}}
}

// Size returns the number of items named.
func (d Delta) Size() int {
	return len(d.Nodes) + len(d.Edges) + len(d.NodeTombstones) + len(d.EdgeTombstones) + len(d.Progress)
}

// PendingDelta returns the current value of every item Pending names: what
// a commit of the pending changes stores. Seq is the graph's seq.
func (g *Graph) PendingDelta() Delta {
	d := NewDelta()
	d.Seq = g.seq
	cs := g.pending
	for id := range cs.Nodes {
		n, _ := g.node(id)
		d.Nodes[id] = n
	}
	for k := range cs.Edges {
		e, _ := g.Edge(k)
		d.Edges[k] = e
	}
	for id := range cs.NodeTombstones {
		d.NodeTombstones[id] = tombPtr(g.nodeTombs, id)
	}
	for k := range cs.EdgeTombstones {
		d.EdgeTombstones[k] = tombPtr(g.edgeTombs, k)
	}
	for task := range cs.Progress {
		d.Progress[task] = g.progress[task]
	}
	if cs.Meta {
		p := g.projectPath
		d.ProjectPath = &p
	}
	return d
}

// PendingBefore returns, for every node, edge and tombstone Pending names,
// its value at the last checkpoint (nil: it did not exist then): the
// "before" of a change log entry. An item pending without a journal entry
// is one Restore left pending (renumbered, upgraded) that has not changed
// since: its first change would have been journaled (journalNode), so its
// current value is its value before. Seq is the durable seq.
//
// It is also the read of the durable state, for kg_sync (domain/changes,
// docs/decisions/0110-changes-a-room.md): the graph as of its last
// checkpoint is the current one with every item Pending names at its value
// here, whatever batch is being saved meanwhile.
func (g *Graph) PendingBefore() Delta {
	cp := g.checkpointed()
	d := NewDelta()
	d.Seq = g.durableSeq
	for id := range g.pending.Nodes {
		if n, ok := cp.nodes[id]; ok {
			d.Nodes[id] = n
		} else {
			d.Nodes[id], _ = g.node(id)
		}
	}
	for k := range g.pending.Edges {
		if e, ok := cp.edges[k]; ok {
			d.Edges[k] = e
		} else {
			d.Edges[k], _ = g.Edge(k)
		}
	}
	for id := range g.pending.NodeTombstones {
		if t, ok := cp.nodeTombs[id]; ok {
			d.NodeTombstones[id] = t
		} else {
			d.NodeTombstones[id] = tombPtr(g.nodeTombs, id)
		}
	}
	for k := range g.pending.EdgeTombstones {
		if t, ok := cp.edgeTombs[k]; ok {
			d.EdgeTombstones[k] = t
		} else {
			d.EdgeTombstones[k] = tombPtr(g.edgeTombs, k)
		}
	}
	return d
}

// checkpointState holds, for each item changed since the last checkpoint,
// its value at that checkpoint (nil: it did not exist then).
type checkpointState struct {
	nodes     map[string]*Node
	edges     map[EdgeKey]*Edge
	nodeTombs map[string]*Tombstone
	edgeTombs map[EdgeKey]*Tombstone
}

// checkpointed reads the durable values of the items changed since the last
// checkpoint from the undo journal: the first entry for an item holds what
// it was then: what PendingBefore reports.
func (g *Graph) checkpointed() checkpointState {
	var cp checkpointState
	if len(g.journal) == 0 {
		return cp
	}
	cp = checkpointState{nodes: map[string]*Node{}, edges: map[EdgeKey]*Edge{},
		nodeTombs: map[string]*Tombstone{}, edgeTombs: map[EdgeKey]*Tombstone{}}
	for _, u := range g.journal {
		switch u.kind {
		case undoNode:
			nu := g.nodeUndos[u.i]
			if _, seen := cp.nodes[nu.id]; !seen {
				cp.nodes[nu.id] = nu.old
			}
		case undoEdge:
			eu := g.edgeUndos[u.i]
			if _, seen := cp.edges[eu.k]; !seen {
				cp.edges[eu.k] = eu.old
			}
		case undoNodeTomb:
			ru := g.rareUndos[u.i]
			if _, seen := cp.nodeTombs[ru.id]; !seen {
				cp.nodeTombs[ru.id] = tombOrNil(ru)
			}
		case undoEdgeTomb:
			ru := g.rareUndos[u.i]
			if _, seen := cp.edgeTombs[ru.edge]; !seen {
				cp.edgeTombs[ru.edge] = tombOrNil(ru)
			}
		}
	}
	return cp
}

func tombOrNil(u rareUndo) *Tombstone {
	if !u.had {
		return nil
	}
	t := u.tomb
	return &t
}

func tombPtr[K comparable](m map[K]Tombstone, k K) *Tombstone {
	t, ok := m[k]
	if !ok {
		return nil
	}
	return &t
}

// ApplyCommitted puts the items of d, committed elsewhere, into the graph,
// keeping every index exact, and marks the result durable at d.Seq. The seq
// counter becomes the larger of its own value and d.Seq, so a seq this
// graph handed out and lost to a failed save is still not handed out again,
// while DurableSeq is exactly d.Seq: a session's watermark must never pass
// what is committed (docs/design/team.md#the-write-order).
//
// The graph must hold no pending change but its seq (the state after a
// checkpoint or a rollback). Nodes and edges of d are taken, not copied,
// and must not be changed afterwards.
func (g *Graph) ApplyCommitted(d Delta) {
	for id, n := range d.Nodes {
		g.setNode(id, n)
	}
	for k, e := range d.Edges {
		g.setEdge(k, e)
	}
	for id, t := range d.NodeTombstones {
		g.setNodeTomb(id, t)
	}
	for k, t := range d.EdgeTombstones {
		g.setEdgeTomb(k, t)
	}
	for task, state := range d.Progress {
		g.setProgress(task, state)
	}
	if d.ProjectPath != nil {
		g.projectPath = *d.ProjectPath
	}
	g.seq = max(g.seq, d.Seq)
	g.clearJournal()
	g.pending.reset()
	g.restored = nil
	g.durableSeq = d.Seq
	if g.seq != g.durableSeq {
		g.pending.Meta = true // the counter moved past what is stored
	}
}
