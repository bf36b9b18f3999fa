package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/kg-memory/kg/app/graphstore"
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
		return RemovedProject{}, domain.WrapError(err, "list projects")
	}
	inStorage := false
	for _, sg := range stored {
		inStorage = inStorage || sg.Key == key
	}
	if !inStorage && !s.store.IsLoaded(key) {
		return RemovedProject{}, &domain.Error{Kind: domain.KindNotFound, Field: "project_path",
			Msg: "no project has memory at " + p + " (`kg project list` shows the projects that do)"}
	}
	e, err := s.store.Get(ctx, key)
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
			return RemovedProject{}, domain.WrapError(err, "remove project "+p)
		}
		s.store.ForgetProblem(key)
		s.log.Info("project removed", "project", p, "damaged", true)
		s.events.Publish(ports.One(graphstore.RemovedEvent(key, 0, graphstore.Removed{Stored: true})))
		return RemovedProject{ProjectPath: p, Stored: true}, nil
	}
	// Team mode: what it holds is what the database holds, written by any
	// server, not only this one's copy (docs/design/team.md#removing-a-project).
	s.store.Fresh(ctx, key)
	removed, err := s.store.Remove(ctx, e, graphstore.Removal{Force: force, Remover: remover, Listed: inStorage})
	if err != nil {
		return RemovedProject{}, err
	}
	res := RemovedProject{ProjectPath: p, Nodes: removed.Nodes, Edges: removed.Edges, Stored: removed.Stored}
	s.log.Info("project removed", "project", p, "nodes", res.Nodes, "edges", res.Edges, "stored", res.Stored)
	return res, nil
}
