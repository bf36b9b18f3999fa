package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var _ ports.SharedToolEventRepository = (*Store)(nil)

// CountToolEvent counts one tool event in one statement, so that servers
// counting the same target at once all count (ports.SharedToolEventRepository;
// docs/design/team.md#tool-event-counts). A target counted for the first
// time may push the project past its limit: the least recently used go, in
// the same transaction.
func (s *Store) CountToolEvent(ctx context.Context, c ports.ToolEventCount) (ports.ToolTargetCounts, error) {
	var out ports.ToolTargetCounts
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var count, seen, nudge int64
		var inserted bool
		err := tx.QueryRow(ctx, `INSERT INTO tool_events AS t (project, target, count, sessions, last_seen)
			VALUES ($1, $2, 1, CASE WHEN $3 = '' THEN '{}'::text[] ELSE ARRAY[$3] END, $4)
			ON CONFLICT (project, target) DO UPDATE SET
				count = t.count + 1,
				last_seen = GREATEST(t.last_seen, EXCLUDED.last_seen),
				sessions = CASE WHEN $3 = '' OR $3 = ANY(t.sessions) OR cardinality(t.sessions) >= $5
					THEN t.sessions ELSE t.sessions || $3 END
			RETURNING count, sessions, last_seen, last_nudge, xmax = 0`,
			c.Project, c.Target, c.Session, int64(c.Now), c.MaxSessions).Scan(&count, &out.Sessions, &seen, &nudge, &inserted)
		if err != nil {
			return err
		}
		out.Count, out.LastSeen, out.LastNudge = int(count), domain.Micros(seen), domain.Micros(nudge)
		if inserted && c.MaxTargets > 0 {
			_, err = tx.Exec(ctx, `DELETE FROM tool_events WHERE project = $1 AND target IN (
				SELECT target FROM tool_events WHERE project = $1 ORDER BY last_seen DESC, target OFFSET $2)`,
				c.Project, c.MaxTargets)
		}
		if err == nil {
			err = s.injected()
		}
		return err
	})
	if err != nil {
		return ports.ToolTargetCounts{}, unavailable(err, "count a tool event in the database")
	}
	return out, nil
}

// ClaimToolNudge records a nudge in one conditional update: of servers
// claiming at once, the first to update the row does, and the others find
// it claimed.
func (s *Store) ClaimToolNudge(ctx context.Context, project, target string, now, gap domain.Micros) (bool, error) {
	if err := s.injected(); err != nil {
		return false, unavailable(err, "record a tool-event nudge in the database")
	}
	tag, err := s.pool.Exec(ctx, `UPDATE tool_events SET last_nudge = $3
		WHERE project = $1 AND target = $2 AND (last_nudge = 0 OR $3 - last_nudge >= $4)`,
		project, target, int64(now), int64(gap))
	if err != nil {
		return false, unavailable(err, "record a tool-event nudge in the database")
	}
	return tag.RowsAffected() == 1, nil
}
