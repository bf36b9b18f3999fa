package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// RemovedProject is what RemoveProject removed.
type RemovedProject struct {
	ProjectPath string
	// Nodes and Edges are what the graph held (every tier).
	Nodes, Edges int
	// Stored is false when nothing was in storage: the graph was only
	// named (loaded empty), and removing it only forgot it.
	Stored bool
}

// RemoveProject is `kg project rm` (DELETE /api/projects): it removes the
// stored memory of the project at path — its file (or bucket) and journal —
// refusing, with a conflict that says so, a project that holds anything
// (a node, an edge, a tombstone, a progress state) unless force. It goes
// through the graph's committer like any write, after the writes queued
// before it and before those queued after, which then find the project
// empty; a project_removed event is published once it is durable. A project
// whose graph cannot be loaded (damaged) is removed only with force; its
// storage is then set aside unread where the backend can (bolt), else
// deleted (docs/design/operations.md#kg-project-rm).
func (s *Service) RemoveProject(ctx context.Context, path string, force bool) (RemovedProject, error) {
	p, err := s.scope.canonical(ctx, "project_path", path)
	if err != nil {
		return RemovedProject{}, err
	}
	remover, ok := s.graphs.(ports.ProjectRemover)
	if !ok {
		return RemovedProject{}, &domain.Error{Kind: domain.KindInvalid, Field: "project_path", Msg: "this storage backend cannot remove a project"}
	}
	key := domain.ProjectGraph(p)
	stored, err := s.graphs.List(ctx)
	if err != nil {
		return RemovedProject{}, wrapErr(err, "list projects")
	}
	inStorage := false
	for _, sg := range stored {
		inStorage = inStorage || sg.Key == key
	}
	if !inStorage && !s.store.isLoaded(key) {
		return RemovedProject{}, &domain.Error{Kind: domain.KindNotFound, Field: "project_path",
			Msg: "no project has memory at " + p + " (`kg project list` shows the projects that do)"}
	}
	e, err := s.store.get(ctx, key)
	if err != nil {
		if !force || !errors.Is(err, ports.ErrDamaged) {
			if errors.Is(err, ports.ErrDamaged) {
				return RemovedProject{}, &domain.Error{Kind: domain.KindConflict, Field: "force", Err: err,
					Msg: fmt.Sprintf("the project graph (%s) cannot be loaded, so kg cannot tell what it holds (%v); --force removes it unread", p, err)}
			}
			return RemovedProject{}, err
		}
		// Damaged: nothing is loaded, so nothing can write it meanwhile
		// but a request that loads it, which fails the same way.
		if err := remover.RemoveProject(ctx, p); err != nil {
			return RemovedProject{}, wrapErr(err, "remove project "+p)
		}
		s.store.forgetProblem(key)
		s.log.Info("project removed", "project", p, "damaged", true)
		s.events.Publish(ports.One(removedEvent(key, 0, RemovedProject{ProjectPath: p, Stored: true})))
		return RemovedProject{ProjectPath: p, Stored: true}, nil
	}
	// Team mode: what it holds is what the database holds, written by any
	// server, not only this one's copy (docs/design/team.md#removing-a-project).
	s.store.fresh(ctx, key)
	op := &writeOp{done: make(chan struct{}), remove: &removal{force: force, remover: remover, listed: inStorage}}
	for {
		if err := s.store.enqueue(ctx, e, op, false); err != nil {
			if !errors.Is(err, errGone) {
				return RemovedProject{}, err
			}
			if e, err = s.store.get(ctx, key); err != nil {
				return RemovedProject{}, err
			}
			continue
		}
		select {
		case <-op.done:
		case <-ctx.Done():
			return RemovedProject{}, domain.Unavailable(ctx.Err(), "gave up waiting for the removal of %s; it may still happen", graphName(key))
		}
		if !errors.Is(op.err, errGone) {
			break
		}
		if e, err = s.store.get(ctx, key); err != nil {
			return RemovedProject{}, err
		}
		op = &writeOp{done: make(chan struct{}), remove: op.remove}
	}
	if op.err != nil {
		return RemovedProject{}, op.err
	}
	res := op.remove.result
	res.ProjectPath = p
	s.log.Info("project removed", "project", p, "nodes", res.Nodes, "edges", res.Edges, "stored", res.Stored)
	return res, nil
}

// removal is the payload of a writeOp that removes its graph.
type removal struct {
	force   bool
	remover ports.ProjectRemover
	listed  bool // the repository's List named the project (perhaps an empty graph a visit of an older kg wrote)
	result  RemovedProject
}

// removedEvent is the project_removed event of a removal.
func removedEvent(key domain.GraphKey, seq uint64, r RemovedProject) ports.Event {
	ev := eventBase(ports.EventProjectRemoved, key, seq, "")
	ev.NodesRemoved, ev.EdgesRemoved = r.Nodes, r.Edges
	return ev
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
	r.result = RemovedProject{Nodes: e.g.NodeCount(), Edges: e.g.EdgeCount(), Stored: r.listed || e.stored.Load()}
	holds := !e.g.HoldsNothing()
	e.mu.RUnlock()
	var err error
	switch {
	case holds && !r.force:
		err = &domain.Error{Kind: domain.KindConflict, Field: "force",
			Msg: fmt.Sprintf("the %s holds %d node(s) and %d edge(s) (or tombstones, progress): export it first (`kg export --project %s`) if you want to keep it, and remove it with --force",
				graphName(e.key), r.result.Nodes, r.result.Edges, e.key.Project)}
	case r.result.Stored:
		if err = r.remover.RemoveProject(ctx, e.key.Project); domain.KindOf(err) == domain.KindNotFound {
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
