package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// removal is the payload of a writeOp that removes its graph.
type removal struct {
	// Force removes a graph that holds anything; without it such a
	// removal fails with a conflict.
	Force bool
	// Remover removes what storage holds of the project.
	Remover ports.ProjectRemover
	// Listed is set when the repository's List named the project (perhaps
	// an empty graph a visit of an older kg wrote).
	Listed bool
	result removedGraph
}

// removedGraph is what a removal removed.
type removedGraph struct {
	// Nodes and Edges are what the graph held (every tier).
	Nodes, Edges int
	// Stored is false when nothing was in storage: the graph was only
	// named (loaded empty), and removing it only forgot it.
	Stored bool
}

// removedEvent is the project_removed event of a removal.
func removedEvent(key domain.GraphKey, seq uint64, r removedGraph) ports.Event {
	return ports.Event{Type: ports.EventProjectRemoved, Level: key.Level, Project: key.Project, Owner: key.Owner, Seq: seq,
		NodesRemoved: r.Nodes, EdgesRemoved: r.Edges}
}

// removeGraph removes e's graph through its committer, after the writes
// queued before it and before those queued after, which then find the
// project empty, and returns what it removed. An entry that left the cache
// meanwhile is loaded afresh and the removal queued on it.
func (st *store) removeGraph(ctx context.Context, e *graphEntry, r removal) (removedGraph, error) {
	op := &writeOp{done: make(chan struct{}), remove: &r}
	for {
		if err := st.enqueue(ctx, e, op, false); err != nil {
			if !errors.Is(err, errGone) {
				return removedGraph{}, err
			}
			if e, err = st.get(ctx, e.key); err != nil {
				return removedGraph{}, err
			}
			continue
		}
		select {
		case <-op.done:
		case <-ctx.Done():
			return removedGraph{}, domain.Unavailable(ctx.Err(), "gave up waiting for the removal of %s; it may still happen", graphName(e.key))
		}
		if !errors.Is(op.err, errGone) {
			break
		}
		var err error
		if e, err = st.get(ctx, e.key); err != nil {
			return removedGraph{}, err
		}
		op = &writeOp{done: make(chan struct{}), remove: op.remove}
	}
	if op.err != nil {
		return removedGraph{}, op.err
	}
	return op.remove.result, nil
}

// remove runs a removal in the graph's committer, alone in its batch:
// every write queued before it is durable, none queued after it has been
// applied. On success the entry leaves the cache — the writes queued after
// go through the cache again and find the project empty — keeping its seq
// as the floor of a later graph of the same project, so no seq is handed
// out twice (docs/design/sync.md#change-sequence).
func (st *store) remove(ctx context.Context, e *graphEntry, op *writeOp) {
	r := op.remove
	e.mu.RLock()
	seq := e.g.Seq()
	r.result = removedGraph{Nodes: e.g.NodeCount(), Edges: e.g.EdgeCount(), Stored: r.Listed || e.stored.Load()}
	holds := !e.g.HoldsNothing()
	e.mu.RUnlock()
	var err error
	switch {
	case holds && !r.Force:
		err = &domain.Error{Kind: domain.KindConflict, Field: "force",
			Msg: fmt.Sprintf("the %s holds %d node(s) and %d edge(s) (or tombstones, progress): export it first (`kg export --project %s`) if you want to keep it, and remove it with --force",
				graphName(e.key), r.result.Nodes, r.result.Edges, e.key.Project)}
	case r.result.Stored:
		if err = r.Remover.RemoveProject(ctx, e.key.Project); domain.KindOf(err) == domain.KindNotFound {
			err = nil // held nothing in storage after all
		} else if err != nil {
			err = domain.Unavailable(err, "the %s could not be removed (%v); nothing was changed, retry later", graphName(e.key), err)
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
		st.events.Publish(ports.One(removedEvent(e.key, seq, r.result)))
	}
}
