package postgres

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Report is what kg status and kg doctor say of a team database.
type Report struct {
	RoundTrip  time.Duration
	Schema     SchemaInfo
	Servers    []string // the servers whose listener is connected, by instance name
	Graphs     int
	Sessions   int
	Principals int
	LiveTokens int
	LastCommit time.Time // zero: none yet
}

// Report reads the state of the database in a few round trips, changing
// nothing.
func (s *Store) Report(ctx context.Context) (Report, error) {
	var r Report
	var err error
	if r.RoundTrip, err = s.Ping(ctx); err != nil {
		return r, unavailable(err, "reach the database")
	}
	if r.Schema, err = s.Schema(ctx); err != nil {
		return r, unavailable(err, "read the schema version")
	}
	if r.Schema.Version == 0 {
		return r, nil // no kg has used it yet: nothing else to read
	}
	rows, err := s.pool.Query(ctx, `SELECT application_name FROM pg_stat_activity
		WHERE datname = current_database() AND application_name LIKE 'kg % listener' ORDER BY application_name`)
	if err != nil {
		return r, unavailable(err, "list the servers")
	}
	var name string
	if _, err := pgx.ForEachRow(rows, []any{&name}, func() error {
		r.Servers = append(r.Servers, strings.TrimSuffix(strings.TrimPrefix(name, "kg "), " listener"))
		return nil
	}); err != nil {
		return r, unavailable(err, "list the servers")
	}
	var last *time.Time
	err = s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM graphs), (SELECT count(*) FROM sessions),
		(SELECT count(*) FROM principals), (SELECT count(*) FROM tokens WHERE revoked_at IS NULL),
		(SELECT max(committed_at) FROM changes)`).Scan(&r.Graphs, &r.Sessions, &r.Principals, &r.LiveTokens, &last)
	if err != nil {
		return r, unavailable(err, "count what the database holds")
	}
	if last != nil {
		r.LastCommit = *last
	}
	return r, nil
}
