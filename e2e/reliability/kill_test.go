package reliability

// The kill -9 test at the server level ("on restart every acknowledged write is
// present", docs/design/storage.md#crashes). The built binary serves 8
// concurrent MCP clients — puts with changing content, edges, node and edge
// deletes, reads by id that promote archived nodes, full reads — with
// compaction active (a small token budget, no grace) and a maintenance tick
// every second, so that ticks and json checkpoints run under the load. At a
// random moment it is killed with SIGKILL; then every file must parse, and the
// server restarted on the same root must hold, for every client, exactly the
// state its acknowledged calls made — the call in flight at the kill may have
// landed or not — and must serve: /health ok, the sessions still known, the
// next writes acknowledged.
//
// Each client owns its node ids (w<n>-…) and its edges (from its own
// nodes), in the user graph and in its project's graph, and calls one at a
// time, so what it was acknowledged is an exact model of its share of the
// graphs. The test is the same code at every length: -kill.cycles sets the
// number of kills per backend (make test: a few; make e2e: 100), and
// -kill.seed replays the choices of a run (printed at the start).

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
)

var (
	killCycles = flag.Int("kill.cycles", 3, "kill -9 cycles per backend of TestKillServer (make e2e runs 100)")
	killSeed   = flag.Uint64("kill.seed", 0, "seed of TestKillServer's choices; 0: one from the clock, printed to replay a failure")
)

const (
	killWorkers = 8
	killIDs     = 10 // node ids per client and graph, so puts overwrite and graphs stay small
)

// killFlags make compaction move nodes under the load, and the
// maintenance tick (stamps, compaction, json checkpoints, session saves)
// run every second.
var killFlags = []string{"--max-tokens", "300", "--grace-days", "0", "--maintenance-interval", "1"}

func TestKillServer(t *testing.T) {
	t.Parallel()
	seed := *killSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("kill test: %d cycles per backend, seed %d (replay with -kill.seed=%d)", *killCycles, seed, seed)
	for i, backend := range []string{"json", "bolt"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			runKill(t, backend, seed+uint64(i), *killCycles)
		})
	}
}

// ---- the model of what a client was acknowledged ----

type edgeKey struct{ from, to, rel string }

type content struct {
	gist  string
	notes []string
}

// graphModel is one client's share of one graph: its nodes and its edges.
type graphModel struct {
	nodes map[string]content
	edges map[edgeKey][]string // notes
}

func newGraphModel() graphModel {
	return graphModel{nodes: map[string]content{}, edges: map[edgeKey][]string{}}
}

func (m graphModel) clone() graphModel {
	return graphModel{nodes: maps.Clone(m.nodes), edges: maps.Clone(m.edges)}
}

func (m graphModel) equal(o graphModel) bool {
	return maps.EqualFunc(m.nodes, o.nodes, func(a, b content) bool {
		return a.gist == b.gist && slices.Equal(a.notes, b.notes)
	}) && maps.EqualFunc(m.edges, o.edges, slices.Equal)
}

// diff describes how got differs from want, item by item.
func (m graphModel) diff(got graphModel) string {
	var out []string
	for _, id := range slices.Sorted(maps.Keys(m.nodes)) {
		w, g := m.nodes[id], got.nodes[id]
		if _, ok := got.nodes[id]; !ok {
			out = append(out, fmt.Sprintf("node %s missing (want %q)", id, w.gist))
		} else if w.gist != g.gist || !slices.Equal(w.notes, g.notes) {
			out = append(out, fmt.Sprintf("node %s is %q %q, want %q %q", id, g.gist, g.notes, w.gist, w.notes))
		}
	}
	for _, id := range slices.Sorted(maps.Keys(got.nodes)) {
		if _, ok := m.nodes[id]; !ok {
			out = append(out, fmt.Sprintf("node %s present (%q), want it absent", id, got.nodes[id].gist))
		}
	}
	for k, w := range m.edges {
		if g, ok := got.edges[k]; !ok {
			out = append(out, fmt.Sprintf("edge %v missing", k))
		} else if !slices.Equal(w, g) {
			out = append(out, fmt.Sprintf("edge %v has notes %q, want %q", k, g, w))
		}
	}
	for k := range got.edges {
		if _, ok := m.edges[k]; !ok {
			out = append(out, fmt.Sprintf("edge %v present, want it absent", k))
		}
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

// share is the part of an exported graph that belongs to the client whose
// ids start with prefix.
func share(doc exported, prefix string) graphModel {
	m := newGraphModel()
	for _, n := range doc.Nodes {
		if strings.HasPrefix(n.ID, prefix) {
			m.nodes[n.ID] = content{gist: n.Gist, notes: n.Notes}
		}
	}
	for _, e := range doc.Edges {
		if strings.HasPrefix(e.From, prefix) {
			m.edges[edgeKey{e.From, e.To, e.Rel}] = e.Notes
		}
	}
	return m
}

// ---- a client ----

// levels are the graphs a client writes, by index.
var levels = [2]string{"user", "project"}

// call is one tool call of a client.
type call struct {
	tool  string
	args  map[string]any
	graph int                 // index into levels of the graph it changes or reads
	apply func(m *graphModel) // what an acknowledgement does to the model; nil for a read
	check func(r result) error
}

// worker is one MCP client of the kill test.
type worker struct {
	n       int
	prefix  string // of its node ids
	project string
	session string
	rng     *rand.Rand
	graphs  [2]graphModel
	// inflight is the write whose call had not returned when the server
	// was killed: it may have landed or not.
	inflight *call
	version  int // numbers the contents it writes, so each put differs
	writes   int // writes acknowledged
	reads    int // reads answered and checked
}

func newWorker(n int, project string, seed uint64) *worker {
	return &worker{n: n, prefix: fmt.Sprintf("w%d-", n), project: project,
		rng: rand.New(rand.NewPCG(seed, uint64(n))), graphs: [2]graphModel{newGraphModel(), newGraphModel()}}
}

// someID is one of the client's node ids, existing or not.
func (w *worker) someID() string { return fmt.Sprintf("%sn%d", w.prefix, w.rng.IntN(killIDs)) }

// next chooses the client's next call.
func (w *worker) next() call {
	g := w.rng.IntN(2)
	m := w.graphs[g]
	base := map[string]any{"session_id": w.session, "level": levels[g]}
	args := func(kv ...any) map[string]any {
		a := maps.Clone(base)
		for i := 0; i < len(kv); i += 2 {
			a[kv[i].(string)] = kv[i+1]
		}
		return a
	}
	nodes := slices.Sorted(maps.Keys(m.nodes))
	edges := slices.SortedFunc(maps.Keys(m.edges), func(a, b edgeKey) int {
		return strings.Compare(a.from+"\x00"+a.to+"\x00"+a.rel, b.from+"\x00"+b.to+"\x00"+b.rel)
	})
	w.version++
	switch p := w.rng.IntN(100); {
	case p < 35 || len(nodes) == 0:
		id := w.someID()
		c := content{gist: fmt.Sprintf("%s written by client %d, version %d of its contents", id, w.n, w.version)}
		notes := []any{}
		for i := range w.rng.IntN(3) {
			c.notes = append(c.notes, fmt.Sprintf("note %d of version %d", i, w.version))
			notes = append(notes, c.notes[i])
		}
		return call{tool: "kg_put_node", graph: g, args: args("id", id, "gist", c.gist, "notes", notes),
			apply: func(m *graphModel) { m.nodes[id] = c }}
	case p < 55:
		k := edgeKey{from: w.someID(), rel: []string{"uses", "next"}[w.rng.IntN(2)]}
		if w.rng.IntN(3) == 0 {
			k.to = fmt.Sprintf("src/w%d/file%d.go", w.n, w.rng.IntN(3))
		} else {
			k.to = w.someID()
		}
		notes := []string{fmt.Sprintf("edge note of version %d", w.version)}
		return call{tool: "kg_put_edge", graph: g, args: args("from", k.from, "to", k.to, "rel", k.rel, "notes", []any{notes[0]}),
			apply: func(m *graphModel) { m.edges[k] = notes }}
	case p < 63:
		id := nodes[w.rng.IntN(len(nodes))]
		return call{tool: "kg_delete_node", graph: g, args: args("id", id), apply: func(m *graphModel) {
			delete(m.nodes, id)
			maps.DeleteFunc(m.edges, func(k edgeKey, _ []string) bool { return k.from == id || k.to == id })
		}}
	case p < 70 && len(edges) > 0:
		k := edges[w.rng.IntN(len(edges))]
		return call{tool: "kg_delete_edge", graph: g, args: args("from", k.from, "to", k.to, "rel", k.rel),
			apply: func(m *graphModel) { delete(m.edges, k) }}
	case p < 88:
		// A read by id: it promotes the node when compaction archived or
		// orphaned it, which is a write of its own.
		id := nodes[w.rng.IntN(len(nodes))]
		want := m.nodes[id]
		return call{tool: "kg_read", graph: g, args: args("id", id), check: func(r result) error {
			n := nodeOf(r.text)
			if n.gist != want.gist || !slices.Equal(n.notes, want.notes) {
				return fmt.Errorf("read %s: %v, want gist %q notes %q", id, n, want.gist, want.notes)
			}
			return nil
		}}
	default:
		return call{tool: "kg_read", graph: g, args: map[string]any{"session_id": w.session}, check: func(r result) error {
			if got := sessionOf(r.text); got != w.session {
				return fmt.Errorf("full read: session %q, want %s", got, w.session)
			}
			return nil
		}}
	}
}

// startSession starts the worker's session with a full read of its project,
// once: a worker whose every turn came before the first kg_read of a run (a
// kill right after the start) has none yet.
func (w *worker) startSession(ctx context.Context, c *client.Client) error {
	if w.session != "" {
		return nil
	}
	r, err := callTool(ctx, c, "kg_read", map[string]any{"cwd": w.project})
	if err != nil || r.isError {
		return fmt.Errorf("client %d: start a session: %v %s", w.n, err, r.text)
	}
	if w.session = sessionOf(r.text); w.session == "" {
		return fmt.Errorf("client %d: kg_read with cwd started no session: %s", w.n, r.text)
	}
	return nil
}

// run makes calls until stopped is set, which happens just before the
// server is killed. A call that fails after that was in flight at the
// kill; any other failure is an error of the test.
func (w *worker) run(ctx context.Context, c *client.Client, stopped *atomic.Bool) error {
	if err := w.startSession(ctx, c); err != nil {
		if stopped.Load() {
			return nil
		}
		return err
	}
	for !stopped.Load() {
		cl := w.next()
		if cl.apply != nil {
			w.inflight = &cl
		}
		r, err := callTool(ctx, c, cl.tool, cl.args)
		if err != nil {
			if stopped.Load() {
				return nil
			}
			return fmt.Errorf("client %d: %s %v: %v", w.n, cl.tool, cl.args, err)
		}
		if r.isError {
			if stopped.Load() && strings.Contains(r.text, "unavailable") {
				return nil // the server died while saving
			}
			return fmt.Errorf("client %d: %s %v: %s", w.n, cl.tool, cl.args, r.text)
		}
		w.inflight = nil
		if cl.apply != nil {
			cl.apply(&w.graphs[cl.graph])
			w.writes++
			continue
		}
		if err := cl.check(r); err != nil {
			return fmt.Errorf("client %d: %w", w.n, err)
		}
		w.reads++
	}
	return nil
}

// ---- the test ----

// killStats are the figures a run reports.
type killStats struct {
	cycles, checks, files int
	landed, notLanded     int // writes in flight at a kill found applied, or not
}

func runKill(t *testing.T, backend string, seed uint64, cycles int) {
	root := t.TempDir() + "/root"
	projects := []string{projectDir(t, "alpha"), projectDir(t, "beta")}
	workers := make([]*worker, killWorkers)
	for i := range workers {
		workers[i] = newWorker(i, projects[i%len(projects)], seed)
	}
	rng := rand.New(rand.NewPCG(seed, 1<<40))
	var st killStats
	var servers []*server
	start := func() *server {
		s := startServer(t, backend, root, killFlags...)
		servers = append(servers, s)
		return s
	}
	srv := start()
	for cycle := range cycles {
		if cycle > 0 {
			verifyKill(t, srv, workers, projects, &st, cycle)
		}
		load := time.Duration(50+rng.IntN(1500)) * time.Millisecond
		if err := killUnderLoad(srv, workers, load); err != nil {
			t.Fatalf("cycle %d (%s, seed %d): %v\n%s", cycle, backend, seed, err, srv.log.text())
		}
		st.cycles++
		st.files += checkFiles(t, backend, root)
		if t.Failed() {
			t.Fatalf("cycle %d (%s, seed %d): the files the kill left are damaged", cycle, backend, seed)
		}
		srv = start()
	}
	verifyKill(t, srv, workers, projects, &st, cycles)

	// The restarted server takes writes, and a clean stop keeps them.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, w := range workers {
		c, err := dialMCP(ctx, srv.addr, "kg-kill-test")
		if err != nil {
			t.Fatal(err)
		}
		if err := w.startSession(ctx, c); err != nil {
			t.Fatal(err)
		}
		args := map[string]any{"session_id": w.session, "level": "user",
			"id": w.prefix + "final", "gist": "written after the last restart", "notes": []any{}}
		if r, err := callTool(ctx, c, "kg_put_node", args); err != nil || r.isError {
			t.Fatalf("a write after the last restart: %v %s", err, r.text)
		}
		w.graphs[0].nodes[w.prefix+"final"] = content{gist: "written after the last restart"}
		w.writes++
		_ = c.Close()
	}
	srv.stop()
	st.files += checkFiles(t, backend, root)
	srv = start()
	verifyKill(t, srv, workers, projects, &st, cycles+1)
	srv.stop()
	// A kill is no reason for an error: a torn record dropped at the next
	// start is a warning, and nothing else may go wrong.
	for i, s := range servers {
		if n := s.log.level("ERROR"); n > 0 {
			t.Errorf("server %d of %d logged %d errors:\n%s", i+1, len(servers), n, strings.Join(s.log.warnings(), "\n"))
		}
	}

	writes, reads := 0, 0
	for _, w := range workers {
		writes, reads = writes+w.writes, reads+w.reads
	}
	t.Logf("kill test (%s): %d kills under %d clients; %d acknowledged writes and %d checked reads; "+
		"%d item checks after restarts, %d file checks; writes in flight at a kill: %d landed, %d not; seed %d",
		backend, st.cycles, killWorkers, writes, reads, st.checks, st.files, st.landed, st.notLanded, seed)
}

// killUnderLoad runs every client against srv for about load, then kills
// the server with SIGKILL while they call.
func killUnderLoad(srv *server, workers []*worker, load time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), load+2*time.Minute)
	defer cancel()
	clients := make([]*client.Client, len(workers))
	for i := range workers {
		c, err := dialMCP(ctx, srv.addr, "kg-kill-test")
		if err != nil {
			return fmt.Errorf("connect client %d: %w", i, err)
		}
		defer c.Close()
		clients[i] = c
	}
	var stopped atomic.Bool
	errs := make([]error, len(workers))
	var wg sync.WaitGroup
	for i, w := range workers {
		wg.Go(func() { errs[i] = w.run(ctx, clients[i], &stopped) })
	}
	time.Sleep(load)
	stopped.Store(true)
	srv.kill()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// verifyKill checks a restarted server against what each client was
// acknowledged: health ok, and each client's share of the user graph and
// of its project's graph exactly as its acknowledged writes left it, or as
// the write in flight at the kill would have left it (which then counts
// as acknowledged from now on).
func verifyKill(t *testing.T, srv *server, workers []*worker, projects []string, st *killStats, cycle int) {
	t.Helper()
	if h := srv.health(); h.Status != "ok" {
		t.Fatalf("after kill %d: /health is %q: %q", cycle, h.Status, h.Problems)
	}
	docs := map[string]exported{"": srv.export("")}
	for _, p := range projects {
		docs[p] = srv.export(p)
	}
	for _, w := range workers {
		for g := range levels {
			doc := docs[""]
			if g == 1 {
				doc = docs[w.project]
			}
			got, want := share(doc, w.prefix), w.graphs[g]
			st.checks += len(want.nodes) + len(want.edges)
			if got.equal(want) {
				continue
			}
			if in := w.inflight; in != nil && in.graph == g {
				landed := want.clone()
				in.apply(&landed)
				if got.equal(landed) {
					w.graphs[g] = landed
					w.inflight = nil
					st.landed++
					continue
				}
			}
			t.Errorf("after kill %d: client %d's %s graph differs from what it was acknowledged (in flight: %v): %s",
				cycle, w.n, levels[g], inflightTool(w.inflight), want.diff(got))
		}
		if w.inflight != nil {
			st.notLanded++
			w.inflight = nil
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

func inflightTool(c *call) string {
	if c == nil {
		return "nothing"
	}
	return fmt.Sprintf("%s %v", c.tool, c.args)
}
