package app

import (
	"context"

	"github.com/kg-memory/kg/domain"
)

// Search is kg_search. With a session (or a project path) it searches the
// user graph and that project's graph, loading it if needed; without
// either, the user graph and every loaded project graph. Level narrows it
// to one graph. It has no side effects on the graphs.
func (s *Service) Search(ctx context.Context, req SearchRequest) ([]Hit, error) {
	if err := domain.ValidateQuery("query", req.Query); err != nil {
		return nil, err
	}
	t, err := s.resolve(Scope{SessionID: req.SessionID, ProjectPath: req.ProjectPath})
	if err != nil {
		return nil, err
	}
	var entries []*graphEntry
	switch {
	case req.Level != "":
		k, err := t.key(req.Level)
		if err != nil {
			return nil, err
		}
		e, err := s.store.get(ctx, k)
		if err != nil {
			return nil, err
		}
		entries = []*graphEntry{e}
	case t.session != "" || t.project != "":
		for _, k := range t.keys() {
			e, err := s.store.get(ctx, k)
			if err != nil {
				return nil, err
			}
			entries = append(entries, e)
		}
	default:
		if _, err := s.store.get(ctx, domain.UserGraph); err != nil {
			return nil, err
		}
		entries = s.store.loaded()
	}
	// Read locks in the store's one order (user graph first, then projects
	// by path), so several readers and the committers can never deadlock.
	graphs := make([]*domain.Graph, len(entries))
	for i, e := range entries {
		e.mu.RLock()
		graphs[i] = e.g
	}
	found, err := domain.Search(graphs, req.Query, req.Limit)
	for _, e := range entries {
		e.mu.RUnlock()
	}
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, len(found))
	for i, h := range found {
		hits[i] = Hit{Level: h.Key.Level, Project: h.Key.Project, Node: h.Node, Score: h.Score}
	}
	return hits, nil
}
