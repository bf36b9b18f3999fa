package app

import (
	"context"
	"errors"

	"github.com/kg-memory/kg/domain"
)

// Close shuts the app down: it refuses new writes, makes the pending
// writes and read stamps durable, saves the sessions and folds the
// repositories' journals into their files. Reads keep working. Calling it
// again only saves the sessions again if they changed.
func (s *Service) Close(ctx context.Context) error {
	var errs []error
	if err := s.store.Close(ctx); err != nil {
		errs = append(errs, err)
	}
	if err := s.maint.Guard("saving sessions at shutdown", func() error { return s.sessions.Save(ctx) }); err != nil {
		errs = append(errs, domain.WrapError(err, "save sessions at shutdown"))
	}
	if err := s.maint.Checkpoint(ctx); err != nil {
		errs = append(errs, domain.WrapError(err, "checkpoint at shutdown"))
	}
	if err := s.maint.Guard("saving tool-event counts at shutdown", func() error { return saveToolEvents(ctx, s.tools) }); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
