package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kg-memory/kg/adapters/http/portable"
	"github.com/kg-memory/kg/adapters/rootdir"
	"github.com/kg-memory/kg/cmd/kg/internal/apiclient"
	"github.com/kg-memory/kg/cmd/kg/internal/config"
	"github.com/kg-memory/kg/cmd/kg/internal/doctor"
	"github.com/kg-memory/kg/cmd/kg/internal/project"
	"github.com/kg-memory/kg/cmd/kg/internal/store"
	"github.com/kg-memory/kg/domain"
)

// kg doctor (docs/design/operations.md#kg-doctor): the command finds the
// root's server and lock; the checks and their findings are
// internal/doctor's.

func newDoctorCommand(e env) *cobra.Command {
	var asJSON bool
	var content doctor.ContentChecks
	c := &cobra.Command{
		Use:   "doctor",
		Short: "check the storage root and say how to fix each finding",
		Long: "Checks the storage root without changing anything in it: the backend marker, the lock and the server\n" +
			"that holds it, that every graph and the sessions load (and from which file), damaged journals (the\n" +
			"line and byte where), damaged pages of kg.db, schema versions, stray temporary files, damaged files\n" +
			"kept aside, pending alias moves, projects that hold nothing and projects whose folder is gone. Each\n" +
			"finding says how to fix it. Exits 1 when a finding is an error. While no server runs, it holds a shared\n" +
			"lock on the root, so none starts meanwhile. --secrets scans what every graph holds for credentials,\n" +
			"--duplicates lists the nodes that may say one thing, --stale the nodes whose recorded project files changed\n" +
			"or vanished (docs/design/trust.md).",
		Args: noArgs,
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the findings as JSON")
	content.Bind(c)
	settings := bindSettings(c.Flags(), e.home)
	c.RunE = func(c *cobra.Command, _ []string) error {
		cfg, err := commandConfig(e, settings)
		if err != nil {
			return err
		}
		if cfg.Storage == "postgres" {
			problems, err := teamReport(c, e, cfg)
			if err != nil {
				return err
			}
			for _, p := range problems {
				printf(c, "problem: %s\n", p)
			}
			if len(problems) > 0 {
				return &exitError{code: exitFailure}
			}
			printf(c, "no problem found\n")
			return nil
		}
		ck := &doctor.Checkup{Root: cfg.Root, Content: content}
		if err := runCheckup(c.Context(), ck, e, cfg); err != nil {
			return err
		}
		errs := 0
		for _, f := range ck.Findings {
			if f.Level == doctor.LevelError {
				errs++
			}
		}
		if asJSON {
			enc := json.NewEncoder(c.OutOrStdout())
			enc.SetIndent("", "  ")
			if err := enc.Encode(struct {
				Root     string           `json:"storage_root"`
				Findings []doctor.Finding `json:"findings"`
			}{cfg.Root, ck.Findings}); err != nil {
				return err
			}
		} else {
			printf(c, "kg doctor: %s\n", cfg.Root)
			for _, f := range ck.Findings {
				printf(c, "%-5s  %s: %s\n", f.Level, f.Subject, f.Problem)
				if f.Fix != "" {
					printf(c, "       fix: %s\n", f.Fix)
				}
			}
		}
		if errs > 0 {
			return &exitError{code: exitFailure}
		}
		return nil
	}
	return c
}

// runCheckup makes every check.
func runCheckup(ctx context.Context, c *doctor.Checkup, e env, cfg config.Config) error {
	if err := store.RequireRoot(cfg.Root); err != nil {
		return err
	}
	backend := checkBackendMarker(c, cfg)

	// Who holds the root decides what may be read: while a server runs,
	// the json files can be read (they are replaced atomically) but the
	// bolt file is the server's.
	served := false
	h := rootdir.ReadHolder(cfg.Root)
	srv, hl, err := apiclient.RootServer(ctx, cfg.Root, cfg.AuthToken)
	switch {
	case err != nil:
		c.Add(doctor.LevelWarn, rootdir.LockName, fmt.Sprintf("the server of pid %d at %s answers with an error: %v", h.PID, h.Addr, err),
			"give the server's token with --auth-token or KG_AUTH_TOKEN")
		served = true
	case srv != nil:
		served = true
		c.Add(doctor.LevelOK, rootdir.LockName, fmt.Sprintf("held by the server of pid %d at %s (kg %s, %s)", h.PID, srv.URL(), hl.Version, hl.Status), "")
		for _, p := range hl.Problems {
			c.Add(doctor.LevelError, "server", p, "stop the server and run kg doctor again: it then checks the files themselves and says how to fix each")
		}
	case h.Running() && h.Addr != "":
		served = true
		c.Add(doctor.LevelWarn, rootdir.LockName, fmt.Sprintf("pid %d holds the lock but nothing answers at %s", h.PID, h.Addr),
			fmt.Sprintf("if that kg hangs, stop it (kill %d); a kill -9 loses no acknowledged write", h.PID))
	default:
		// A shared lock: nothing is created or written, and no server
		// starts while the files are read.
		l, err := rootdir.Share(cfg.Root)
		if err != nil && strings.Contains(err.Error(), "symbolic link") {
			c.Add(doctor.LevelError, rootdir.LockName, err.Error(), "remove the link: `rm "+filepath.Join(cfg.Root, rootdir.LockName)+"`; kg creates the file at its next start")
			served = true
			break
		}
		if err != nil {
			c.Add(doctor.LevelWarn, rootdir.LockName, err.Error(), "run kg doctor again when it is done")
			served = true
			break
		}
		defer l.Release()
		c.Add(doctor.LevelOK, rootdir.LockName, "no server runs on the root", "")
	}

	bar := newProgress(e, "kg doctor")
	defer bar.finish()
	switch backend {
	case "bolt":
		if served {
			c.Add(doctor.LevelInfo, "kg.db", "not opened: the server holds it", "stop the server to check the file itself; its /health lists graphs that do not load")
			if c.Content.Any() && srv != nil {
				checkContentThroughServer(ctx, c, srv)
			}
		} else {
			c.CheckBolt(ctx, bar.set)
		}
	case "json", "":
		c.CheckJSON(ctx, bar.set, served)
	}
	c.CheckRemoved()
	return nil
}

// checkBackendMarker checks <root>/.backend and returns the backend the root
// holds ("" when it holds nothing yet).
func checkBackendMarker(c *doctor.Checkup, cfg config.Config) string {
	have, err := store.RootBackend(cfg.Root)
	if err != nil && strings.Contains(err.Error(), "symbolic link") {
		c.Add(doctor.LevelError, rootdir.BackendName, err.Error(),
			"remove the link: `rm "+filepath.Join(cfg.Root, rootdir.BackendName)+"`; kg writes the marker again at its next start")
		return ""
	}
	if err != nil {
		c.Add(doctor.LevelError, rootdir.BackendName, err.Error(),
			fmt.Sprintf("write the backend the root holds into it: `echo json > %s` (or bolt, when the root holds kg.db)", filepath.Join(cfg.Root, rootdir.BackendName)))
		return ""
	}
	marked, _ := rootdir.Backend(cfg.Root)
	switch {
	case have == "":
		c.Add(doctor.LevelInfo, rootdir.BackendName, "the root holds no memory yet", "nothing to do: the server records its backend at its first start")
	case marked == "":
		c.Add(doctor.LevelInfo, rootdir.BackendName, "missing; the files say "+have,
			"nothing to do: the server writes it at its next start (or `kg migrate --to "+have+"` now)")
	default:
		c.Add(doctor.LevelOK, rootdir.BackendName, have, "")
	}
	for _, b := range backends() {
		if b.InRoot && b.Name != have && b.Holds != nil && b.Holds(cfg.Root) {
			c.Add(doctor.LevelInfo, cfg.Root, "also holds "+b.Name+" data, not in use (a copy kg migrate kept)",
				"keep it as a backup, or delete it once the "+have+" data has served you well")
		}
	}
	return have
}

// checkContentThroughServer makes the content checks through the server
// that holds the root's bolt file: each graph as its export reads it.
func checkContentThroughServer(ctx context.Context, c *doctor.Checkup, srv *apiclient.Client) {
	keys := []domain.GraphKey{domain.UserGraph}
	projects, err := project.OfServer(ctx, srv)
	if err != nil {
		c.Add(doctor.LevelWarn, "server", "the list of projects cannot be read: "+err.Error(), "run kg doctor again")
	}
	for _, p := range projects {
		keys = append(keys, domain.ProjectGraph(p))
	}
	for _, k := range keys {
		var doc bytes.Buffer
		if err := srv.Call(ctx, "GET", "/api/export", scopeQuery(k), nil, &doc); err != nil {
			c.Add(doctor.LevelWarn, doctor.GraphSubject(k), "cannot be read through the server: "+err.Error(), "run kg doctor again")
			continue
		}
		d, err := portable.Decode(&doc)
		if err != nil {
			c.Add(doctor.LevelWarn, doctor.GraphSubject(k), "the server's export does not decode: "+err.Error(), "run kg doctor again")
			continue
		}
		c.CheckContent(ctx, k, d.Data)
	}
}
