package ports

import (
	"context"

	"github.com/kg-memory/kg/domain"
)

// ToolEventRepository is implemented by a GraphRepository that keeps the
// counts of the hook route POST /api/tool_event
// (docs/design/hooks.md#tool-events) beside the graphs. They are the app's
// JSON document, stored whole: the app saves them with the maintenance tick
// and at shutdown, never per event. A repository without it keeps none; the
// counts then last while the server runs.
type ToolEventRepository interface {
	// LoadToolEvents returns the stored document; nil and no error when
	// none is stored.
	LoadToolEvents(ctx context.Context) (domain.RawJSON, error)
	// SaveToolEvents durably replaces the stored document. On error the
	// one stored before is kept, and the error's kind is
	// domain.KindUnavailable.
	SaveToolEvents(ctx context.Context, doc domain.RawJSON) error
}
