package app

import (
	"context"

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
	projects, err := readableProjects(ctx, gr.store, t)
	if err != nil {
		return nil, err
	}
	return append([]domain.GraphKey{domain.UserGraphOf(t.owner)}, projects...), nil
}
