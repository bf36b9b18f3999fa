package graphstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Removal is the payload of a writeOp that removes its graph.
type Removal struct {
	// Force removes a graph that holds anything; without it such a
	// removal fails with a conflict.
	Force bool
	// Remover removes what storage holds of the project.
	Remover ports.ProjectRemover
	// Listed is set when the repository's List named the project (perhaps
	// an empty graph a visit of an older kg wrote).
	Listed bool
	result Removed
}

// Removed is what a removal removed.
type Removed struct {
	// Nodes and Edges are what the graph held (every tier).
	Nodes, Edges int
	// Stored is false when nothing was in storage: the graph was only
	// named (loaded empty), and removing it only forgot it.
	Stored bool
}

// RemovedEvent is the project_removed event of a removal.
func RemovedEvent(key domain.GraphKey, seq uint64, r Removed) ports.Event {
	return ports.Event{Type: ports.EventProjectRemoved, Level: key.Level, Project: key.Project, Owner: key.Owner, Seq: seq,
		NodesRemoved: r.Nodes, EdgesRemoved: r.Edges}
}

// Remove removes e's graph through its committer, after the writes
// queued before it and before those queued after, which then find the
// project empty, and returns what it removed. An entry that left the cache
// meanwhile is loaded afresh and the removal queued on it.
func (st *Store) Remove(ctx context.Context, e *Entry, r Removal) (Removed, error) {
	op := &writeOp{done: make(chan struct{}), remove: &r}
	for {
		if err := st.enqueue(ctx, e, op, false); err != nil {
			if !errors.Is(err, errGone) {
				return Removed{}, err
			}
			if e, err = st.Get(ctx, e.key); err != nil {
				return Removed{}, err
			}
			continue
		}
		select {
		case <-op.done:
		case <-ctx.Done():
			return Removed{}, domain.Unavailable(ctx.Err(), "gave up waiting for the removal of %s; it may still happen", GraphName(e.key))
		}
		if !errors.Is(op.err, errGone) {
			break
		}
		var err error
		if e, err = st.Get(ctx, e.key); err != nil {
			return Removed{}, err
		}
		op = &writeOp{done: make(chan struct{}), remove: op.remove}
	}
	if op.err != nil {
		return Removed{}, op.err
	}
	return op.remove.result, nil
}

// remove runs a removal in the graph's committer, alone in its batch:
// every write queued before it is durable, none queued after it has been
// applied. On success the entry leaves the cache — the writes queued after
// go through the cache again and find the project empty — keeping its seq
// as the floor of a later graph of the same project, so no seq is handed
// out twice (docs/design/sync.md#change-sequence).
func (st *Store) remove(ctx context.Context, e *Entry, op *writeOp) {
	r := op.remove
	e.mu.RLock()
	seq := e.g.Seq()
	r.result = Removed{Nodes: e.g.NodeCount(), Edges: e.g.EdgeCount(), Stored: r.Listed || e.stored.Load()}
	holds := !e.g.HoldsNothing()
	e.mu.RUnlock()
	var err error
	switch {
	case holds && !r.Force:
		err = &domain.Error{Kind: domain.KindConflict, Field: "force",
			Msg: fmt.Sprintf("the %s holds %d node(s) and %d edge(s) (or tombstones, progress): export it first (`kg export --project %s`) if you want to keep it, and remove it with --force",
				GraphName(e.key), r.result.Nodes, r.result.Edges, e.key.Project)}
	case r.result.Stored:
		if err = r.Remover.RemoveProject(ctx, e.key.Project); domain.KindOf(err) == domain.KindNotFound {
			err = nil // held nothing in storage after all
		} else if err != nil {
			err = domain.Unavailable(err, "the %s could not be removed (%v); nothing was changed, retry later", GraphName(e.key), err)
		}
	}
	if err == nil {
		e.q.Lock()
		e.gone = true
		e.q.Unlock()
		st.leave(e, func() { st.floors[e.key] = max(st.floors[e.key], seq) })
	}
	e.settled()
	op.err = err
	close(op.done)
	if err == nil && (r.result.Stored || holds) {
		st.Events.Publish(ports.One(RemovedEvent(e.key, seq, r.result)))
	}
}
