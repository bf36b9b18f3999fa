package main

import (
	"context"
	"fmt"
	"log/slog"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kg-memory/kg/adapters/storage/postgres"
	"github.com/kg-memory/kg/cmd/kg/internal/config"
	"github.com/kg-memory/kg/ports"
)

// newTokenCommand is `kg token create|list|revoke`: the per-person tokens of
// team mode (docs/design/team.md#people-and-tokens). It works on the
// database KG_DATABASE_URL names, directly: no server needs to run.
func newTokenCommand(e env) *cobra.Command {
	c := &cobra.Command{
		Use:   "token create|list|revoke",
		Short: "team mode: create, list or revoke a person's token (on KG_DATABASE_URL)",
		Long: "Team mode's tokens: each person (a principal) gets their own, and every request to a team server\n" +
			"carries one. Only a SHA-256 of each token is stored, so a token is shown once, when it is created.\n" +
			"A revoked token stops working on every server within 5 s. The database is KG_DATABASE_URL's.",
		Args: noArgs,
	}
	var name, scope string
	create := &cobra.Command{
		Use:   "create --name NAME [--scope read|write|admin]",
		Short: "make a token for a person and print it, once",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if name == "" {
				return config.Usagef("want --name, the person the token is for")
			}
			return withTeamStore(c, e, func(ctx context.Context, s *postgres.Store) error {
				token, id, err := s.CreateToken(ctx, name, scope)
				if err != nil {
					return err
				}
				printf(c, "%s\n", token)
				fmt.Fprintf(c.ErrOrStderr(), "token %s for %s (scope %s); it is shown this once: give it to %s now\n", id, name, scope, name)
				return nil
			})
		},
	}
	create.Flags().StringVar(&name, "name", "", "the `person` (principal) the token is for")
	create.Flags().StringVar(&scope, "scope", ports.ScopeWrite, "`scope`: read (read and sync only), write, or admin (also /metrics, which names every graph)")
	list := &cobra.Command{
		Use:   "list",
		Short: "list the tokens (ids, people, scopes, when made and revoked; never the tokens)",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return withTeamStore(c, e, func(ctx context.Context, s *postgres.Store) error {
				tokens, err := s.ListTokens(ctx)
				if err != nil {
					return err
				}
				w := tabwriter.NewWriter(c.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, "ID\tPRINCIPAL\tSCOPE\tCREATED\tREVOKED")
				for _, t := range tokens {
					revoked := "-"
					if t.Revoked != nil {
						revoked = t.Revoked.UTC().Format("2006-01-02 15:04:05Z")
					}
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", t.ID, t.Principal, t.Scope, t.Created.UTC().Format("2006-01-02 15:04:05Z"), revoked)
				}
				return w.Flush()
			})
		},
	}
	revoke := &cobra.Command{
		Use:   "revoke ID|NAME",
		Short: "revoke a token by its id, or every token of a person",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return config.Usagef("want one token id or person's name")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return withTeamStore(c, e, func(ctx context.Context, s *postgres.Store) error {
				n, err := s.RevokeToken(ctx, args[0])
				if err != nil {
					return err
				}
				if n == 0 {
					return fmt.Errorf("no token %q and no person of that name with a live token (kg token list shows them)", args[0])
				}
				printf(c, "revoked %d token(s); every server refuses them within 5 s\n", n)
				return nil
			})
		},
	}
	c.AddCommand(create, list, revoke)
	return c
}

// withTeamStore opens the team database KG_DATABASE_URL names (migrating
// its schema) for fn.
func withTeamStore(c *cobra.Command, e env, fn func(context.Context, *postgres.Store) error) error {
	url := e.getenv(config.EnvDatabaseURL)
	if url == "" {
		return config.Usagef("%s is not set: it names the team's database (a libpq URL, e.g. postgres://kg@db.internal/kg)", config.EnvDatabaseURL)
	}
	log := commandLogger(e, config.Config{LogLevel: slog.LevelWarn})
	s, err := postgres.Open(c.Context(), url, postgres.Options{Logger: log})
	if err != nil {
		return err
	}
	defer s.Close()
	return fn(c.Context(), s)
}
