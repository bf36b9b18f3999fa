package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kg-memory/kg/adapters/storage/postgres"
	"github.com/kg-memory/kg/cmd/kg/internal/config"
)

// teamReport is `kg status` and `kg doctor` in team mode (--storage
// postgres): the database KG_DATABASE_URL names — whether it answers, its
// schema, the servers listening on it, what it holds. It changes nothing,
// not even the schema. It returns the problems found, one line each.
func teamReport(c *cobra.Command, e env, cfg config.Config) ([]string, error) {
	s, err := postgres.Open(c.Context(), cfg.DatabaseURL, postgres.Options{Logger: commandLogger(e, config.Config{LogLevel: slog.LevelWarn}), NoMigrate: true})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	r, err := s.Report(context.WithoutCancel(c.Context()))
	if err != nil {
		return []string{err.Error() + ": check KG_DATABASE_URL and that the database runs"}, nil
	}
	printf(c, "team database: answers in %s, schema version %d (this kg knows %d)\n", r.RoundTrip.Round(10e3), r.Schema.Version, r.Schema.Known)
	servers := "none"
	if len(r.Servers) > 0 {
		servers = strings.Join(r.Servers, ", ")
	}
	printf(c, "servers listening: %d (%s)\n", len(r.Servers), servers)
	last := "never"
	if !r.LastCommit.IsZero() {
		last = r.LastCommit.UTC().Format("2006-01-02 15:04:05Z")
	}
	printf(c, "graphs: %d, sessions: %d, people: %d, live tokens: %d, last commit: %s\n", r.Graphs, r.Sessions, r.Principals, r.LiveTokens, last)
	var problems []string
	switch {
	case r.Schema.Version < r.Schema.Known:
		problems = append(problems, fmt.Sprintf("the schema is at version %d, this kg's is %d: starting `kg serve --storage postgres` migrates it", r.Schema.Version, r.Schema.Known))
	case r.Schema.Version > r.Schema.Known:
		problems = append(problems, fmt.Sprintf("the schema is at version %d, newer than this kg knows (%d): upgrade kg", r.Schema.Version, r.Schema.Known))
	}
	if r.LiveTokens == 0 {
		problems = append(problems, "no live token: nobody can use the team servers; make one with `kg token create --name NAME`")
	}
	return problems, nil
}
