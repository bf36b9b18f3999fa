package memory

import (
	"context"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var _ ports.ProjectRemover = (*Store)(nil)

// RemoveProject forgets the stored graph of the project at path.
func (s *Store) RemoveProject(ctx context.Context, path string) error {
	if err := ctx.Err(); err != nil {
		return domain.Unavailable(err, "remove project %s", path)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := domain.ProjectGraph(path)
	if _, ok := s.graphs[k]; !ok {
		return &domain.Error{Kind: domain.KindNotFound, Field: "project", Msg: "no memory is stored for project " + path}
	}
	delete(s.graphs, k)
	delete(s.history, k)
	return nil
}
