package app

import (
	"context"
	"slices"

	"github.com/kg-memory/kg/app/graphstore"
	"github.com/kg-memory/kg/domain"
)

// everyGraph returns the graphs a search with All spans: the user graph,
// then every project graph — stored, or loaded and not saved yet — by path.
// A search over every graph names no session, project or level.
func (gr *graphReader) everyGraph(ctx context.Context, t target, req SearchRequest) ([]domain.GraphKey, error) {
	switch {
	case req.Level != "":
		return nil, domain.Invalidf("scope", "all searches every graph; drop level, or drop scope to search one")
	case req.SessionID != "" || req.ProjectPath != "":
		return nil, domain.Invalidf("scope", "all searches every graph; drop session_id and project_path, or drop scope")
	}
	stored, err := gr.store.Graphs.List(ctx)
	if err != nil {
		return nil, wrapErr(err, "list projects")
	}
	seen := map[domain.GraphKey]bool{}
	var projects []domain.GraphKey
	add := func(k domain.GraphKey) {
		if k.Level == domain.LevelProject && !seen[k] && t.mayRead(k) {
			seen[k] = true
			projects = append(projects, k)
		}
	}
	for _, sg := range stored {
		add(sg.Key)
	}
	for _, e := range gr.store.Loaded() {
		add(e.Key())
	}
	slices.SortFunc(projects, graphstore.CompareKeys)
	return append([]domain.GraphKey{domain.UserGraphOf(t.owner)}, projects...), nil
}
