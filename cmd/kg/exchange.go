package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/adapters/http/portable"
	"github.com/kg-memory/kg/adapters/namedfile"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/cmd/kg/internal/apiclient"
	"github.com/kg-memory/kg/cmd/kg/internal/atomicfile"
	"github.com/kg-memory/kg/cmd/kg/internal/config"
	"github.com/kg-memory/kg/cmd/kg/internal/project"
	"github.com/kg-memory/kg/cmd/kg/internal/report"
	"github.com/kg-memory/kg/cmd/kg/internal/store"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/importing"
)

// newExportCommand is `kg export`.
func newExportCommand(e env) *cobra.Command {
	var graph graphFlags
	var output string
	c := &cobra.Command{
		Use:   "export",
		Short: "write one graph as a portable JSON document",
		Long: "Writes one graph (nodes with their tiers and times, edges, progress) as a portable JSON document,\n" +
			"to stdout or to -o FILE, which `kg import` reads back here or on another machine. Through the\n" +
			"running server when one holds the root (GET /api/export), else from the files.",
		Args: noArgs,
	}
	graph.bind(c)
	c.Flags().StringVarP(&output, "output", "o", "", "write to `file` (replaced whole, atomically) instead of stdout")
	settings := bindSettings(c.Flags(), e.home)
	c.RunE = func(c *cobra.Command, _ []string) error {
		key, err := graph.key()
		if err != nil {
			return err
		}
		cfg, err := commandConfig(e, settings)
		if err != nil {
			return err
		}
		ctx := c.Context()
		var doc bytes.Buffer
		srv, _, err := apiclient.RootServer(ctx, cfg.Root, cfg.AuthToken)
		switch {
		case err != nil:
			return err
		case srv != nil:
			var known []string
			if known, err = project.OfServer(ctx, srv); err == nil {
				err = project.RequireKnown(key, cfg.Root, known)
			}
			if err == nil {
				err = srv.Call(ctx, "GET", "/api/export", scopeQuery(key), nil, &doc)
			}
		default:
			err = exportOffline(ctx, e, cfg, key, &doc)
		}
		if err != nil {
			return err
		}
		if output == "" || output == "-" {
			_, err = doc.WriteTo(c.OutOrStdout())
			return err
		}
		return atomicfile.Write(output, doc.Bytes())
	}
	return c
}

// exportOffline writes the export document of the stored graph, changing
// nothing in the root (store.OpenReadOnly).
func exportOffline(ctx context.Context, e env, cfg config.Config, key domain.GraphKey, w io.Writer) error {
	if err := store.RequireRoot(cfg.Root); err != nil {
		return err
	}
	st, closeStorage, err := store.OpenReadOnly(ctx, cfg, commandLogger(e, cfg))
	if err != nil {
		return err
	}
	defer closeStorage()
	if err := project.RequireStored(ctx, st, key, cfg.Root); err != nil {
		return err
	}
	g, _, err := loadGraph(ctx, st, key)
	if err != nil {
		return err
	}
	return portable.Encode(w, key, clock.System{}.Now(), g.Data())
}

// newImportCommand is `kg import`.
func newImportCommand(e env) *cobra.Command {
	var graph graphFlags
	var merge, replace, verbose bool
	c := &cobra.Command{
		Use:   "import FILE",
		Short: "write a document of kg export into a graph: validated whole, then applied",
		Long: "Reads a document written by `kg export` (FILE, or - for stdin) and writes it into a graph: the one\n" +
			"--level/--project name, else the one the document came from. The whole document is validated\n" +
			"before anything changes; then it is applied as one write. --merge (the default) keeps the items the\n" +
			"document does not hold; --replace deletes them. Through the running server when one holds the root\n" +
			"(POST /api/import), else on the files, under the root's lock. What the compaction run of the write\n" +
			"moved is summed up in one line; --verbose lists every move with its reason.",
		Args: exactArgs("FILE"),
	}
	graph.bind(c)
	c.Flags().BoolVar(&merge, "merge", false, "keep the items the document does not hold (the default)")
	c.Flags().BoolVar(&replace, "replace", false, "delete the items the document does not hold")
	c.Flags().BoolVarP(&verbose, "verbose", "v", false, "list every compaction move with its reason, not only their counts")
	settings := bindSettings(c.Flags(), e.home)
	c.RunE = func(c *cobra.Command, args []string) error {
		if merge && replace {
			return config.Usagef("--merge and --replace exclude each other")
		}
		in := importInput{file: args[0], mode: importing.Merge, verbose: verbose}
		if replace {
			in.mode = importing.Replace
		}
		if graph.level != "" || graph.project != "" {
			k, err := graph.key()
			if err != nil {
				return err
			}
			in.key = k
		}
		cfg, err := commandConfig(e, settings)
		if err != nil {
			return err
		}
		// On a terminal a bar shows the work: the bytes read, then each
		// step; piped, nothing (docs/design/operations.md#through-the-running-server).
		bar := newProgress(e, "kg import: reading "+in.file)
		defer bar.finish()
		if err := in.read(c.Context(), e, bar); err != nil {
			return err
		}
		res, err := in.apply(c.Context(), e, cfg, settings, bar)
		bar.finish()
		var ae *apiclient.Error
		if domain.KindOf(err) == domain.KindInvalid || (errors.As(err, &ae) && ae.Status/100 == 4) {
			return fmt.Errorf("%w (nothing was changed)", err)
		}
		if err != nil {
			return err
		}
		report.Import(c.OutOrStdout(), in.file, in.key, in.mode, in.verbose, res)
		return nil
	}
	return c
}

// importInput is what kg import writes, and where.
type importInput struct {
	file    string          // as given: a path, or - for stdin
	key     domain.GraphKey // the graph written; from the document when not given
	mode    importing.Mode
	verbose bool // list every compaction move
	raw     []byte
	doc     portable.Document
}

// read reads the document and checks it whole, before a server or the
// files are touched; without a graph named, it names the document's own.
func (in *importInput) read(ctx context.Context, e env, bar *progress) error {
	raw, err := readDocument(ctx, e, in.file, bar)
	if err != nil {
		return err
	}
	bar.describe("kg import: checking the document")
	doc, err := portable.Decode(bytes.NewReader(raw))
	if err == nil {
		_, err = importing.Validate(doc.Data) // the import checks it again; this spares the root a bad one
	}
	if err != nil {
		return fmt.Errorf("%s: %w (nothing was changed)", in.file, err)
	}
	in.raw, in.doc = raw, doc
	if in.key.Level == "" {
		in.key = domain.GraphKey{Level: doc.Level, Project: doc.ProjectPath}
	}
	return nil
}

// apply writes the document through the running server when one holds the
// root, else on the files.
func (in *importInput) apply(ctx context.Context, e env, cfg config.Config, settings *config.Flags, bar *progress) (apijson.ImportResult, error) {
	srv, h, err := apiclient.RootServer(ctx, cfg.Root, cfg.AuthToken)
	if err == nil && srv != nil {
		// The import compacts, and is screened for secrets.
		err = settings.CheckServerRunsWith(srv, h, cfg, e.getenv, append(slices.Clone(compactionSettings), "secrets-mode"))
	}
	switch {
	case err != nil:
		return apijson.ImportResult{}, err
	case srv != nil:
		return in.send(ctx, srv, bar)
	default:
		opt := app.ImportOptions{}
		if in.verbose {
			opt.ListMoves = -1
		}
		return importOffline(ctx, e, cfg, in.key, in.mode, in.doc.Data, opt, bar)
	}
}

// send posts the document to the server, the bar counting the bytes sent.
func (in *importInput) send(ctx context.Context, srv *apiclient.Client, bar *progress) (apijson.ImportResult, error) {
	q := scopeQuery(in.key)
	q.Set("mode", string(in.mode))
	// The moves are printed with --verbose only; else their counts, which
	// the id lists give.
	q.Set("moves", "0")
	if in.verbose {
		q.Set("moves", "all")
	}
	bar.describe("kg import: sending to " + srv.URL())
	body := io.Reader(bytes.NewReader(in.raw))
	if bar.bar != nil {
		bar.set(0, len(in.raw))
		r := progressbar.NewReader(body, bar.bar)
		body = &r
	}
	var res apijson.ImportResult
	err := srv.Send(ctx, "POST", "/api/import", q, "application/json", body, &res)
	return res, err
}

// readDocument reads the file to import; "-" is stdin. bar counts the
// bytes of a file.
func readDocument(ctx context.Context, e env, name string, bar *progress) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(io.LimitReader(e.stdin, domain.MaxImportBodySize+1))
	}
	// A named pipe, a device, a folder is refused before it is opened
	// for read: opening a pipe waits for a writer for ever, and a pipe
	// comes in through stdin (docs/design/trust.md#files-named-by-a-request).
	f, fi, err := namedfile.Open(name, true)
	if errors.Is(err, namedfile.ErrNotRegular) {
		return nil, fmt.Errorf("%w; to import from a pipe, give - and send the document to stdin", err)
	}
	if err != nil {
		return nil, err
	}
	var r io.Reader = io.LimitReader(f, domain.MaxImportBodySize+1)
	if bar.bar != nil {
		bar.set(0, int(min(fi.Size(), domain.MaxImportBodySize)))
		pr := progressbar.NewReader(r, bar.bar)
		r = &pr
	}
	var b []byte
	// A minute: up to domain.MaxImportBodySize bytes from a slow disk.
	reads := &namedfile.Reader{Timeout: time.Minute}
	err = reads.Do(ctx, func() error {
		defer f.Close()
		var err error
		b, err = io.ReadAll(r)
		return err
	})
	if err == nil && len(b) > domain.MaxImportBodySize {
		err = fmt.Errorf("%s is larger than an import may be (%d bytes)", name, domain.MaxImportBodySize)
	}
	return b, err
}

// importOffline writes the document through the app, as the server's
// import does (validated whole, applied as one write and compacted, saved
// once), on the files under the root's lock.
func importOffline(ctx context.Context, e env, cfg config.Config, key domain.GraphKey, mode importing.Mode, data domain.GraphData, opt app.ImportOptions, bar *progress) (apijson.ImportResult, error) {
	const steps = 3 // open, write, save
	bar.describe("kg import: opening " + cfg.Root)
	bar.set(0, steps)
	log := commandLogger(e, cfg)
	st, closeStorage, err := openOffline(ctx, cfg, log)
	if err != nil {
		return apijson.ImportResult{}, err
	}
	defer closeStorage()
	svc, closeApp, err := initApp(ctx, cfg, st, log)
	if err != nil {
		return apijson.ImportResult{}, err
	}
	defer closeApp()
	bar.describe(fmt.Sprintf("kg import: writing %d node(s), %d edge(s) into the %s", len(data.Nodes), len(data.Edges), report.GraphName(key)))
	bar.set(1, steps)
	r, err := svc.Import(ctx, app.Scope{Level: key.Level, ProjectPath: key.Project}, mode, data, opt)
	if err != nil {
		return apijson.ImportResult{}, err
	}
	bar.describe("kg import: saving")
	bar.set(2, steps)
	closeCtx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	if err := svc.Close(closeCtx); err != nil {
		return apijson.ImportResult{}, errors.Join(errors.New("the import was applied but may not be saved"), err)
	}
	return apijson.ImportResultOf(r), nil
}
