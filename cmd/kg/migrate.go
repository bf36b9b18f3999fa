package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kg-memory/kg/adapters/paths"
	"github.com/kg-memory/kg/adapters/rootdir"
	"github.com/kg-memory/kg/adapters/storage/postgres"
	"github.com/kg-memory/kg/cmd/kg/internal/apiclient"
	"github.com/kg-memory/kg/cmd/kg/internal/config"
	"github.com/kg-memory/kg/cmd/kg/internal/report"
	"github.com/kg-memory/kg/cmd/kg/internal/store"
	"github.com/kg-memory/kg/migrations"
	"github.com/kg-memory/kg/ports"
)

// newMigrateCommand is `kg migrate --to BACKEND` and `kg migrate legacy`.
func newMigrateCommand(e env) *cobra.Command {
	var to string
	c := &cobra.Command{
		Use:   "migrate --to " + strings.ReplaceAll(backendNames(), " or ", "|"),
		Short: "copy the root into another backend (--to), or import the oldest layout (legacy)",
		Long: "kg migrate --to BACKEND copies every graph and session of the storage root into BACKEND, losslessly,\n" +
			"never deleting the source, then records BACKEND in <root>/.backend; start the server with\n" +
			"--storage BACKEND afterwards. It salvages: what the source holds damaged (a graph on damaged pages\n" +
			"of kg.db) is named and left behind, the rest is copied. On a root that already holds BACKEND it\n" +
			"writes every graph still in the replaced server's schema 1 as schema 2. It refuses while a server\n" +
			"runs on the root.",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return config.Usagef("unknown command %q; want --to %s, or legacy", args[0], backendNames())
			}
			return nil
		},
	}
	c.Flags().StringVar(&to, "to", "", "`backend` to copy the root into: "+backendNames())
	var principal string
	c.Flags().StringVar(&principal, "principal", "", "with --to postgres: the `person` whose user graph the root's becomes")
	settings := bindSettings(c.Flags(), e.home)
	c.RunE = func(c *cobra.Command, _ []string) error {
		if to == "" {
			return config.Usagef("want --to %s, or the legacy command", backendNames())
		}
		dst, ok := backendNamed(strings.ToLower(to))
		if !ok {
			return config.Usagef("invalid --to %q: want %s", to, backendNames())
		}
		cfg, err := commandConfig(e, settings)
		if err != nil {
			return err
		}
		if !dst.InRoot {
			return migrateToTeam(c, e, cfg, principal)
		}
		if principal != "" {
			return config.Usagef("--principal is for --to postgres: a root has one user graph")
		}
		return migrateTo(c, e, cfg, dst)
	}
	c.AddCommand(newMigrateLegacyCommand(e))
	return c
}

// migrateTo copies the root's backend into dst and records dst as the
// root's backend.
func migrateTo(c *cobra.Command, e env, cfg config.Config, dst backend) error {
	ctx := c.Context()
	release, err := lockToMigrate(c, cfg)
	if err != nil {
		return err
	}
	defer release()
	log := commandLogger(e, cfg)

	have, err := store.RootBackend(cfg.Root)
	if err != nil {
		return err
	}
	if have == "" {
		if err := rootdir.WriteBackend(cfg.Root, dst.Name); err != nil {
			return err
		}
		printf(c, "%s holds no memory yet; its backend is now %s\n", cfg.Root, dst.Name)
		return nil
	}
	src, _ := backendNamed(have)
	open := src.OpenSource
	if have == dst.Name {
		open = src.Open // the schema upgrade writes the source itself
	}
	from, closeFrom, err := open(ctx, store.LockedRoot(cfg.Root), log)
	if err != nil {
		return err
	}
	defer closeFrom()
	bar := newProgress(e, "kg migrate")
	if have == dst.Name {
		if marked, err := rootdir.Backend(cfg.Root); err == nil && marked == "" {
			if err := rootdir.WriteBackend(cfg.Root, have); err != nil {
				return err
			}
		}
		res, err := migrations.UpgradeSchema(ctx, both(from), migrations.Options{Log: log, Progress: bar.set})
		bar.finish()
		if err != nil {
			return fmt.Errorf("upgrade the schema: %w", err)
		}
		printf(c, "%s already holds %s", cfg.Root, have)
		if len(res.Changed) == 0 {
			printf(c, "; every graph is at the current schema: nothing to do\n")
		} else {
			printf(c, "; written at the current schema: %s\n", strings.Join(res.Changed, ", "))
		}
		report.Notes(c.OutOrStdout(), res)
		return nil
	}

	to, closeTo, err := dst.Open(ctx, store.LockedRoot(cfg.Root), log)
	if err != nil {
		return err
	}
	defer closeTo()
	bar.describe("kg migrate " + have + " → " + dst.Name)
	res, err := migrations.Copy(ctx, both(from), both(to), migrations.Options{Log: log, Progress: bar.set})
	bar.finish()
	if err != nil {
		return fmt.Errorf("copy %s → %s: %w (%s still says %s; the %s data is as it was)",
			have, dst.Name, err, rootdir.BackendName, have, have)
	}
	if err := rootdir.WriteBackend(cfg.Root, dst.Name); err != nil {
		return fmt.Errorf("the copy is complete, but recording it failed: %w", err)
	}
	printf(c, "copied %s → %s in %s: %s\n", have, dst.Name, cfg.Root, report.Migration(res))
	report.Notes(c.OutOrStdout(), res)
	for _, n := range res.NotCopied {
		printf(c, "not copied, damaged in the %s data (kept as it was; restore it from a backup to get it back): %s\n", have, n)
	}
	printf(c, "%s now says %s; the %s data is kept. kg serve serves %s from now on; drop a --storage %s or KG_STORAGE=%s from how you start it.\n",
		filepath.Join(cfg.Root, rootdir.BackendName), dst.Name, have, dst.Name, have, have)
	return nil
}

// lockToMigrate takes the lock of a root that must exist, refusing while
// a server runs on it. The cleanup releases it.
func lockToMigrate(c *cobra.Command, cfg config.Config) (func(), error) {
	if err := store.RequireRoot(cfg.Root); err != nil {
		return nil, err
	}
	return lockOffline(c.Context(), cfg, "kg migrate")
}

// migrateToTeam is `kg migrate --to postgres --principal NAME`: it copies the
// root into the team database KG_DATABASE_URL names, the root's user graph
// and sessions to the principal, checks the copy (counts and checksums) and
// changes nothing in the root (docs/design/team.md#moving-in).
func migrateToTeam(c *cobra.Command, e env, cfg config.Config, principal string) error {
	if principal == "" {
		return config.Usagef("--to postgres needs --principal, the person whose user graph the root's becomes")
	}
	if err := postgres.ValidPrincipal(principal); err != nil {
		return config.Usagef("invalid --principal: %v", err)
	}
	ctx := c.Context()
	release, err := lockToMigrate(c, cfg)
	if err != nil {
		return err
	}
	defer release()
	have, err := store.RootBackend(cfg.Root)
	if err != nil {
		return err
	}
	if have == "" {
		return fmt.Errorf("%s holds no memory: nothing to copy", cfg.Root)
	}
	log := commandLogger(e, cfg)
	src, _ := backendNamed(have)
	from, closeFrom, err := src.OpenSource(ctx, store.LockedRoot(cfg.Root), log) // read-only where the backend can: the root stays as it is
	if err != nil {
		return err
	}
	defer closeFrom()
	url := e.getenv(config.EnvDatabaseURL)
	if url == "" {
		return config.Usagef("%s is not set: it names the team's database", config.EnvDatabaseURL)
	}
	to, err := postgres.Open(ctx, url, postgres.Options{Logger: log})
	if err != nil {
		return err
	}
	defer to.Close()
	bar := newProgress(e, "kg migrate "+have+" → postgres")
	res, err := migrations.ToTeam(ctx, both(from), to, principal, paths.OS{}, migrations.Options{Log: log, Progress: bar.set})
	bar.finish()
	if err != nil {
		return fmt.Errorf("copy %s → postgres: %w (the root is as it was)", have, err)
	}
	printf(c, "copied %s → postgres (user graph and sessions to %s), checked: %s\n", cfg.Root, principal, report.Migration(res))
	report.Notes(c.OutOrStdout(), res)
	printf(c, "the root is unchanged. Start team servers with --storage postgres and KG_DATABASE_URL, and give %s a token: kg token create --name %s\n", principal, principal)
	return nil
}

// newMigrateLegacyCommand is `kg migrate legacy`.
func newMigrateLegacyCommand(e env) *cobra.Command {
	var projects []string
	c := &cobra.Command{
		Use:   "legacy",
		Short: "import the oldest layout (~/.claude/knowledge and <project>/.claude/knowledge) into the root",
		Long: "Imports ~/.claude/knowledge/user.json and sessions.json, and <project>/.claude/knowledge/graph.json of\n" +
			"each project named by --project or by a legacy session, into the storage root. It copies and never\n" +
			"deletes; an item the root already has at the same or a higher version is kept. A second run changes\n" +
			"nothing. It refuses while a server runs on the root.",
		Args: noArgs,
	}
	c.Flags().StringArrayVar(&projects, "project", nil, "project `folder` whose .claude/knowledge/graph.json to import (repeatable)")
	settings := bindSettings(c.Flags(), e.home)
	c.RunE = func(c *cobra.Command, _ []string) error {
		cfg, err := commandConfig(e, settings)
		if err != nil {
			return err
		}
		for i, p := range projects {
			abs, err := filepath.Abs(p)
			if err != nil {
				return config.Usagef("invalid --project %q: %v", p, err)
			}
			projects[i] = abs
		}
		home, err := e.home()
		if err != nil {
			return fmt.Errorf("the home folder is unknown (%v): the legacy layout lives under it", err)
		}
		ctx := c.Context()
		if srv, _, err := apiclient.RootServer(ctx, cfg.Root, cfg.AuthToken); err != nil {
			return err
		} else if srv != nil {
			return errServerRuns(srv, cfg.Root, "kg migrate legacy")
		}
		log := commandLogger(e, cfg)
		st, closeStorage, err := openOffline(ctx, cfg, log)
		if err != nil {
			return err
		}
		defer closeStorage()
		bar := newProgress(e, "kg migrate legacy")
		src := migrations.LegacySource{Home: home, Projects: projects, Paths: paths.OS{}}
		res, err := migrations.ImportLegacy(ctx, src, both(st), migrations.Options{Log: log, Progress: bar.set})
		bar.finish()
		if err != nil {
			return err
		}
		from := filepath.Join(home, ".claude", "knowledge")
		if len(res.Changed) == 0 {
			printf(c, "nothing to import from %s (and the projects named): the root has it all\n", from)
		} else {
			printf(c, "imported from %s into %s (%s): %s\n", from, cfg.Root, cfg.Storage, report.Migration(res))
		}
		report.Notes(c.OutOrStdout(), res)
		return nil
	}
	return c
}

// both is a storage seen as one migrations.Backend.
func both(st store.Storage) migrations.Backend {
	return struct {
		ports.GraphRepository
		ports.SessionRepository
	}{st.Graphs, st.Sessions}
}
