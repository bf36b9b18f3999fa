package ports

import "context"

// ProjectRemover is implemented by a graph repository that can remove a
// project's stored memory (`kg project rm`,
// docs/design/operations.md#kg-project-rm).
type ProjectRemover interface {
	// RemoveProject removes everything stored for the project at path,
	// durably and at once as far as later loads can tell: afterwards Load
	// returns an empty graph and List does not name it. It fails with a
	// not_found error when nothing is stored for the project. Storage
	// found damaged is set aside unread rather than read. The caller makes
	// sure nothing writes the graph meanwhile.
	RemoveProject(ctx context.Context, path string) error
}
