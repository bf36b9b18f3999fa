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

// SharedToolEventRepository is implemented by a repository several kg
// servers share (team mode, docs/design/team.md#tool-event-counts): it
// keeps the tool-event counts one row per target and counts each event as
// it comes, atomically, so that a file read through one server and then
// through another counts two conversations. The app uses it in place of
// ToolEventRepository when the repository has it.
type SharedToolEventRepository interface {
	// CountToolEvent counts one use of c.Target in c.Project and returns
	// what is now known of the target: the count, the distinct Claude
	// sessions (the first c.MaxSessions; an empty c.Session adds none),
	// the latest use and the last nudge. A project keeps at most
	// c.MaxTargets targets; a new one past that makes the least recently
	// used go. On error nothing is counted and the error's kind is
	// domain.KindUnavailable.
	CountToolEvent(ctx context.Context, c ToolEventCount) (ToolTargetCounts, error)
	// ClaimToolNudge records a nudge about target at now, unless one was
	// recorded less than gap before now (or the target is not counted);
	// it reports whether this call recorded it. Of two servers claiming
	// at once, one does.
	ClaimToolNudge(ctx context.Context, project, target string, now, gap domain.Micros) (bool, error)
}

// ToolEventCount is one tool event to count.
type ToolEventCount struct {
	Project, Target, Session string
	Now                      domain.Micros
	MaxSessions, MaxTargets  int
}

// ToolTargetCounts is what is known of one target of a project.
type ToolTargetCounts struct {
	Count     int
	Sessions  []string
	LastSeen  domain.Micros
	LastNudge domain.Micros // 0: never
}
