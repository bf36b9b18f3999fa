package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command line.
type options struct {
	url     string
	nodes   int
	clients int
	ops     int
	seed    uint64
	cwd     string
	inproc  string
	// printWorkload: print the workload as JSON and exit (bench/peers
	// replays it through the TypeScript client).
	printWorkload bool
	// cpuProfileDir: write one CPU profile per phase there.
	cpuProfileDir string
	// recall: the LoCoMo file of the search-quality benchmark; floor its
	// least figures.
	recall, floor string
	// promptRecall: the LoCoMo file of the sweep behind recall's relevance
	// threshold (docs/design/hooks.md#the-relevance-threshold).
	promptRecall string
}

func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("kgbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.url, "url", "http://127.0.0.1:8765/", "MCP endpoint of the server to drive (ignored with --inproc)")
	fs.IntVar(&o.nodes, "nodes", 1000, "nodes to create (and nodes-1 edges)")
	fs.IntVar(&o.clients, "clients", 4, "concurrent clients, each with its own MCP client and session")
	fs.IntVar(&o.ops, "ops", 200, "searches, and as many full reads")
	fs.Uint64Var(&o.seed, "seed", DefaultSeed, "seed of the workload texts and queries")
	fs.StringVar(&o.cwd, "cwd", "", "project path the sessions are bound to (default: a fresh /tmp/kgbench-<time>, so the check sees only this run)")
	fs.StringVar(&o.inproc, "inproc", "", "json or bolt: start an in-process kg server on a temporary root instead of using --url")
	fs.BoolVar(&o.printWorkload, "print-workload", false, "print the workload of --nodes, --ops and --seed as JSON and exit (what bench/peers replays)")
	fs.StringVar(&o.cpuProfileDir, "cpuprofile", "", "folder to write one CPU profile per phase into (<phase>.pprof); with --inproc the profile holds the server's side of every call")
	fs.StringVar(&o.recall, "recall", "", "LoCoMo's JSON file: run the search-quality benchmark (docs/design/benchmarks.md#search-quality) instead of the workload; with --inproc json by default")
	fs.StringVar(&o.promptRecall, "prompt-recall", "", "LoCoMo's JSON file: print the sweep behind recall's relevance threshold (docs/design/hooks.md#the-relevance-threshold), in process, and exit")
	fs.StringVar(&o.floor, "floor", "", "with --recall: the least recall, e.g. r5=61,r20=73,typo-r5=58; exit 1 under any")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: kgbench [flags]\n\nDrives a kg server through MCP with the workload of docs/design/benchmarks.md#workload.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.nodes < 1:
		return o, errors.New("--nodes: want at least 1")
	case o.clients < 1:
		return o, errors.New("--clients: want at least 1")
	case o.ops < 0:
		return o, errors.New("--ops: want 0 or more")
	case o.inproc != "" && o.inproc != "json" && o.inproc != "bolt":
		return o, fmt.Errorf("--inproc %q: want json or bolt", o.inproc)
	case o.cwd != "" && !filepath.IsAbs(o.cwd):
		return o, fmt.Errorf("--cwd %q: want an absolute path", o.cwd)
	case o.floor != "" && o.recall == "":
		return o, errors.New("--floor: only with --recall")
	}
	if _, err := parseFloors(o.floor); err != nil {
		return o, err
	}
	if o.recall != "" && o.inproc == "" && !setFlags(fs)["url"] {
		o.inproc = "json"
	}
	if o.cwd == "" {
		o.cwd = filepath.Join(os.TempDir(), "kgbench-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	}
	return o, nil
}

// run is the whole program; it returns the exit status: 0, 1 when the run
// failed or a write went missing, 2 for a bad command line.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "kgbench: %v\n", err)
		return 2
	}
	if o.promptRecall != "" {
		convs, err := loadLoCoMo(o.promptRecall)
		if err == nil {
			err = runPromptRecall(stdout, convs)
		}
		if err != nil {
			fmt.Fprintf(stderr, "kgbench: --prompt-recall: %v\n", err)
			return 1
		}
		return 0
	}
	if o.printWorkload {
		if err := writeWorkload(stdout, NewWorkload(o.nodes, o.ops, o.seed), o.seed); err != nil {
			fmt.Fprintf(stderr, "kgbench: %v\n", err)
			return 1
		}
		return 0
	}
	if o.cpuProfileDir != "" {
		if err := os.MkdirAll(o.cpuProfileDir, 0o755); err != nil {
			fmt.Fprintf(stderr, "kgbench: --cpuprofile: %v\n", err)
			return 1
		}
	}
	url, where := o.url, o.url
	if o.inproc != "" {
		root, err := os.MkdirTemp("", "kgbench-root-")
		if err != nil {
			fmt.Fprintf(stderr, "kgbench: %v\n", err)
			return 1
		}
		defer os.RemoveAll(root)
		srv, err := startServer(ctx, o.inproc, root, nil)
		if err != nil {
			fmt.Fprintf(stderr, "kgbench: start the in-process server: %v\n", err)
			return 1
		}
		defer func() {
			if err := srv.Close(); err != nil {
				fmt.Fprintf(stderr, "kgbench: close the in-process server: %v\n", err)
			}
		}()
		url, where = srv.URL, "in-process "+o.inproc+" server at "+srv.URL
	}
	if o.recall != "" {
		return runRecallCommand(ctx, o, url, where, stdout, stderr)
	}
	w := NewWorkload(o.nodes, o.ops, o.seed)
	d := newKGDriver(url, o.cwd, o.clients)
	fmt.Fprintf(stdout, "kgbench: %s, %s; %d nodes, %d edges, %d clients, %d searches and full reads, seed %d, cwd %s\n",
		d.Name(), where, len(w.Nodes), len(w.Edges), o.clients, o.ops, o.seed, o.cwd)
	stats, chk, err := Run(ctx, d, w, RunOptions{Clients: o.clients, Ops: o.ops, ProfileDir: o.cpuProfileDir})
	if err != nil {
		fmt.Fprintf(stderr, "kgbench: %v\n", err)
		return 1
	}
	report(stdout, stats, chk)
	if !chk.OK() {
		return 1
	}
	return 0
}

// setFlags returns the names of the flags given on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// runRecallCommand is kgbench --recall: load LoCoMo into the server at url,
// ask its questions, print recall@k and check the floors.
func runRecallCommand(ctx context.Context, o options, url, where string, stdout, stderr io.Writer) int {
	convs, err := loadLoCoMo(o.recall)
	if err != nil {
		fmt.Fprintf(stderr, "kgbench: --recall: %v\n", err)
		return 1
	}
	floors, _ := parseFloors(o.floor) // checked by parse
	start := time.Now()
	res, err := runRecall(ctx, url, o.cwd, convs)
	if err != nil {
		fmt.Fprintf(stderr, "kgbench: --recall: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "kgbench --recall %s: %d conversations as %d projects, %d turns as nodes (POST /api/import), each question through kg_search (MCP, limit 20), %s, %.1f s\n",
		filepath.Base(o.recall), res.conversations, res.conversations, res.turns, where, time.Since(start).Seconds())
	if !reportRecall(stdout, res, floors) {
		return 1
	}
	return 0
}
