// Package porttest holds the contract suites every storage adapter runs:
// Run checks the GraphRepository and SessionRepository behaviour the app
// relies on (persistence across reopen, isolation of graphs, incremental
// commits, concurrency, failure without ghosts), and RunCrash kills a child
// process that writes continuously and checks that every acknowledged write
// survived.
//
// An adapter registers itself with a 5-line test:
//
//	func TestContract(t *testing.T) {
//		porttest.Run(t, porttest.Backend{Name: "json", Open: openForTest})
//	}
package porttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Backend is a storage adapter under test.
type Backend struct {
	// Name names the backend in test output.
	Name string
	// Open opens the repositories on dir; the suite closes and reopens the
	// same dir to check persistence. Open fails the test itself when the
	// adapter cannot be opened.
	Open func(t testing.TB, dir string) Opened
	// Parallel runs the cases of Run beside each other: for a backend whose
	// instances on different dirs share nothing (a database per dir), whose
	// cases spend their time waiting on another process.
	Parallel bool
	// Summaries says the backend keeps a summary of every graph it lists
	// (ports.StoredGraph.Summary), so that listing reads no graph.
	Summaries bool
	// SetAside, when set, lists the files under dir the backend set aside
	// as damaged (a .corrupt copy, a quarantine): RunStepCrash checks that
	// a kill leaves none, since a crash is no damage.
	SetAside func(t testing.TB, dir string) []string
}

// Opened is one open instance of a backend.
type Opened struct {
	Graphs   ports.GraphRepository
	Sessions ports.SessionRepository
	// Close releases the instance; the suite calls it before reopening.
	Close func() error
	// InjectFault makes following commits and session saves fail with err
	// (nil clears it), through a real failure path of the adapter (a
	// file-system layer for json, a failing transaction for bolt).
	InjectFault func(err error)
	// KillAt, when set, makes the instance's file layer die at the n-th
	// mutating file operation from now (1: the next): that operation keeps
	// only part of its data (a write) or does not happen, and every later
	// one fails, as when the process is killed there. RunStepCrash uses it.
	KillAt func(n int)
	// Steps, set with KillAt, returns how many mutating file operations the
	// instance has made.
	Steps func() int
}

// harness is the state of one contract case: its directory and the open
// instance, which reopen replaces.
type harness struct {
	t   *testing.T
	b   Backend
	dir string
	o   Opened
	ctx context.Context
}

func (h *harness) reopen() {
	h.t.Helper()
	if err := h.o.Close(); err != nil {
		h.t.Fatalf("close: %v", err)
	}
	h.o = h.b.Open(h.t, h.dir)
}

// Run runs the contract suite against b, each case on a fresh directory, with
// an integrity check of the directory after each case.
func Run(t *testing.T, b Backend) {
	cases := []struct {
		name string
		fn   func(h *harness)
	}{
		{"MissingGraphIsEmpty", testMissingGraphIsEmpty},
		{"RoundTrip", testRoundTrip},
		{"ReopenGivesIdenticalGraphs", testReopen},
		{"ProjectsWithSameFolderNameStayApart", testSameFolderName},
		{"List", testList},
		{"ListSummariesAreTheGraphs", testListSummaries},
		{"IncrementalCommitsMatchFullSave", testIncremental},
		{"ConcurrentWritersLoseNothing", testConcurrent},
		{"SerialCommitsOnOneGraph", testSerial},
		{"FailedSaveLeavesNoGhost", testFailedSave},
		{"FailedSaveAfterAnUpgradeLeavesNoGhost", testFailedSaveAfterAnUpgrade},
		{"UseCountsSurviveAReopen", testUseCounts},
		{"FileStampsSurviveAReopen", testFileStamps},
		{"SessionsRoundTrip", testSessions},
		{"SessionUpdatesChangeOnlyWhatTheyName", testSessionUpdates},
		{"CheckpointsKeepEverything", testCheckpoints},
		{"ReleaseForgetsNothingStored", testRelease},
		{"ToolEventsRoundTrip", testToolEvents},
		{"SharedToolEventsCountEveryEvent", testSharedToolEvents},
		{"SharedSessionsFoundByConversation", testFindSession},
		{"HistoryRoundTrip", testHistoryRoundTrip},
		{"HistoryQuery", testHistoryQuery},
		{"HistoryArchive", testHistoryArchive},
		{"HistoryFailedCommitLogsNothing", testHistoryFailedCommit},
		{"HistoryPrune", testHistoryPrune},
		{"UndoRestoresWhatNobodyChangedSince", testUndoProperty},
	}
	for _, c := range cases {
		t.Run(b.Name+"/"+c.name, func(t *testing.T) {
			if b.Parallel {
				t.Parallel()
			}
			dir := t.TempDir()
			h := &harness{t: t, b: b, dir: dir, ctx: t.Context()}
			h.o = b.Open(t, dir)
			defer func() {
				if err := h.o.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
				if !t.Failed() {
					CheckIntegrity(t, b, dir)
				}
			}()
			c.fn(h)
		})
	}
}

// CheckIntegrity opens dir and checks that every stored graph and the
// sessions load, and that each graph is consistent: no item both live and
// tombstoned, no duplicate ids, and a seq at least every item's seq.
func CheckIntegrity(t testing.TB, b Backend, dir string) {
	t.Helper()
	o := b.Open(t, dir)
	defer func() {
		if err := o.Close(); err != nil {
			t.Errorf("integrity: close: %v", err)
		}
	}()
	ctx := context.Background()
	list, err := o.Graphs.List(ctx)
	if err != nil {
		t.Fatalf("integrity: list: %v", err)
	}
	keys := []domain.GraphKey{domain.UserGraph}
	for _, sg := range list {
		if sg.Key.Level != domain.LevelProject || sg.Key.Project == "" || sg.Slug == "" {
			t.Errorf("integrity: listed graph %+v lacks a project key or slug", sg)
		}
		keys = append(keys, sg.Key)
	}
	for _, k := range keys {
		d, err := o.Graphs.Load(ctx, k)
		if err != nil {
			t.Errorf("integrity: load %s: %v", k, err)
			continue
		}
		checkData(t, k, d)
	}
	if _, err := o.Sessions.LoadSessions(ctx); err != nil {
		t.Errorf("integrity: load sessions: %v", err)
	}
}

func checkData(t testing.TB, k domain.GraphKey, d domain.GraphData) {
	t.Helper()
	seen := map[string]bool{}
	for _, n := range d.Nodes {
		if seen[n.ID] {
			t.Errorf("integrity: %s: node %q stored twice", k, n.ID)
		}
		seen[n.ID] = true
		if _, ok := d.NodeTombstones[n.ID]; ok {
			t.Errorf("integrity: %s: node %q is both live and tombstoned", k, n.ID)
		}
		if n.Version.Seq > d.Seq || n.TierSeq > d.Seq {
			t.Errorf("integrity: %s: node %q has seq %d/%d above the graph's %d", k, n.ID, n.Version.Seq, n.TierSeq, d.Seq)
		}
	}
	edges := map[domain.EdgeKey]bool{}
	for _, e := range d.Edges {
		if edges[e.Key()] {
			t.Errorf("integrity: %s: edge %s stored twice", k, e.Key())
		}
		edges[e.Key()] = true
		if _, ok := d.EdgeTombstones[e.Key()]; ok {
			t.Errorf("integrity: %s: edge %s is both live and tombstoned", k, e.Key())
		}
		if e.Version.Seq > d.Seq {
			t.Errorf("integrity: %s: edge %s has seq %d above the graph's %d", k, e.Key(), e.Version.Seq, d.Seq)
		}
	}
	g, notes := domain.Restore(k, d, domain.RestoreOptions{})
	if len(notes) > 0 {
		t.Errorf("integrity: %s: restore notes: %q", k, notes)
	}
	if g.Seq() != d.Seq {
		t.Errorf("integrity: %s: stored seq %d, restored %d", k, d.Seq, g.Seq())
	}
}

// ---- fixtures ----

// t0 is a fixed time with microsecond digits, so a backend that loses
// precision is caught.
const t0 = domain.Micros(1716400000_123456)

func raw(s string) domain.RawJSON { return domain.RawJSON(s) }

// RichData returns graph data that exercises every stored feature: all
// tiers, orphaned times, tier seqs, use counts (the largest, and nodes
// stored without one, which restore gives the default), unknown fields of nodes, edges and
// metadata, edges whose ends are file paths or unknown ids, edges whose
// "<from>-><to>:<rel>" strings collide, tombstones (one pruned, two edge
// tombstones with colliding strings) and progress. project is the project
// path recorded in it (empty for the user graph).
func RichData(project string) domain.GraphData {
	v := func(n, seq uint64, sess string) domain.Version {
		return domain.Version{V: n, TS: t0 + domain.Micros(seq)*domain.Second + 7, Session: sess, Seq: seq}
	}
	return domain.GraphData{
		Schema:      domain.SchemaVersion,
		Seq:         40,
		ProjectPath: project,
		Nodes: []domain.Node{
			{ID: "alpha", Gist: "naïve — 日本語 \"quoted\" <tag> & \\ back\tslash", Notes: []string{"why one", "line\nbreak"},
				Touches: []string{"src/a.go:1-20", "docs/b.md"}, Created: t0, LastRead: t0 + 999_999,
				Use:     domain.Use{Count: 98303, Day: 19865, Known: true},
				Version: v(3, 5, "s1"), Extra: map[string]domain.RawJSON{"_useful_ts": raw(`[1716400000.5,2]`), "zeta": raw(`{"a":null}`)}},
			{ID: "beta", Gist: "archived one", Tier: domain.Archived, Created: t0 - domain.Day, TierSeq: 31,
				Use: domain.Use{Count: domain.UseMax, Day: domain.MaxUseDay, Known: true}, Version: v(1, 2, "")},
			{ID: "gamma", Gist: "orphaned one", Tier: domain.Orphaned, OrphanedAt: t0 + 1, TierSeq: 32, Created: 0, Version: v(2, 6, "s2")},
			{ID: "orphan-zero", Gist: "orphaned at time zero", Tier: domain.Orphaned, Version: v(1, 7, "")},
			{ID: "Zed.9_x", Gist: "sorts before lower case", Notes: []string{}, Version: v(1, 8, "s1")},
		},
		Edges: []domain.Edge{
			{From: "alpha", To: "beta", Rel: "uses", Notes: []string{"because"}, Version: v(1, 9, "s1")},
			{From: "src/main.go", To: "alpha", Rel: "touches", Version: v(2, 10, ""), Extra: map[string]domain.RawJSON{"weight": raw(`0.5`)}},
			{From: "alpha", To: "not-created-yet", Rel: "plans", Version: v(1, 11, "s2")},
			{From: "https://example.com/x?a=b", To: "gamma", Rel: "cites", Version: v(1, 12, "")},
			// These two render to the same "a->b->c:r".
			{From: "a->b", To: "c", Rel: "r", Version: v(1, 13, "")},
			{From: "a", To: "b->c", Rel: "r", Version: v(4, 14, "s1")},
		},
		NodeTombstones: map[string]domain.Tombstone{
			"old":        {V: 4, TS: t0 + 5, Session: "s2", Seq: 33},
			"pruned-one": {V: 1, TS: t0 + 6, Seq: 34, Pruned: true},
		},
		EdgeTombstones: map[domain.EdgeKey]domain.Tombstone{
			{From: "alpha", To: "old", Rel: "uses"}: {V: 2, TS: t0 + 8, Session: "s2", Seq: 35},
			{From: "x->y", To: "z", Rel: "r"}:       {V: 1, TS: t0 + 9, Seq: 36, Pruned: true},
			{From: "x", To: "y->z", Rel: "r"}:       {V: 3, TS: t0 + 10, Seq: 37},
		},
		Progress: map[string]domain.RawJSON{"task-1": raw(`{"done":[1,2],"step":"two"}`)},
		Meta:     map[string]domain.RawJSON{"future_key": raw(`{"a":[1,2]}`), "z_other": raw(`"x"`)},
	}
}

// restore builds a graph from data, failing on notes.
func restore(t testing.TB, k domain.GraphKey, d domain.GraphData) *domain.Graph {
	t.Helper()
	g, notes := domain.Restore(k, d, domain.RestoreOptions{})
	if len(notes) > 0 {
		t.Fatalf("restore %s: %q", k, notes)
	}
	return g
}

// commit commits g's pending changes and checkpoints it.
func (h *harness) commit(k domain.GraphKey, g *domain.Graph, cs domain.ChangeSet) {
	h.t.Helper()
	if err := h.o.Graphs.Commit(h.ctx, k, g, cs); err != nil {
		h.t.Fatalf("commit %s: %v", k, err)
	}
	g.Checkpoint()
}

func (h *harness) load(k domain.GraphKey) domain.GraphData {
	h.t.Helper()
	d, err := h.o.Graphs.Load(h.ctx, k)
	if err != nil {
		h.t.Fatalf("load %s: %v", k, err)
	}
	return d
}

// compactJSON makes raw values comparable whatever whitespace a backend
// keeps.
func compactJSON(r domain.RawJSON) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, r); err != nil {
		return "invalid:" + string(r)
	}
	return buf.String()
}

var dataOpts = cmp.Options{
	cmpopts.EquateEmpty(),
	cmp.Transformer("compactJSON", compactJSON),
}

// sameGraph fails unless the stored data, restored, is the graph want.
func (h *harness) sameGraph(k domain.GraphKey, want *domain.Graph) {
	h.t.Helper()
	h.sameData(k, want.Data())
}

// sameData fails unless the stored data, restored, is want.
func (h *harness) sameData(k domain.GraphKey, want domain.GraphData) {
	h.t.Helper()
	got := restore(h.t, k, h.load(k)).Data()
	if diff := cmp.Diff(want, got, dataOpts); diff != "" {
		h.t.Errorf("%s: stored graph differs (-want +got):\n%s", k, diff)
	}
}

// ---- cases ----

func testMissingGraphIsEmpty(h *harness) {
	for _, k := range []domain.GraphKey{domain.UserGraph, domain.ProjectGraph("/nowhere/proj")} {
		d := h.load(k)
		if len(d.Nodes) != 0 || len(d.Edges) != 0 || d.Seq != 0 || len(d.NodeTombstones) != 0 || len(d.Progress) != 0 {
			h.t.Errorf("%s: missing graph loaded as %+v, want empty", k, d)
		}
	}
	list, err := h.o.Graphs.List(h.ctx)
	if err != nil || len(list) != 0 {
		h.t.Errorf("List on an empty store = %v, %v; want none", list, err)
	}
}

func testRoundTrip(h *harness) {
	for _, k := range []domain.GraphKey{domain.UserGraph, domain.ProjectGraph("/home/dev/src/kg")} {
		g := restore(h.t, k, RichData(k.Project))
		h.commit(k, g, g.Everything())
		h.sameGraph(k, g)
	}
}

func testReopen(h *harness) {
	keys := []domain.GraphKey{domain.UserGraph, domain.ProjectGraph("/home/dev/src/kg"), domain.ProjectGraph("/srv/odd name ü/x y")}
	var gs []*domain.Graph
	for _, k := range keys {
		g := restore(h.t, k, RichData(k.Project))
		h.commit(k, g, g.Everything())
		gs = append(gs, g)
	}
	h.reopen()
	for i, k := range keys {
		h.sameGraph(k, gs[i])
	}
	// A reopened graph, changed and saved again, is still exact.
	g := restore(h.t, keys[0], h.load(keys[0]))
	at := domain.Stamp{Now: t0 + 100*domain.Second, Session: "s3"}
	if _, err := g.PutNode(domain.NodeInput{ID: "delta", Gist: "added after reopen"}, at); err != nil {
		h.t.Fatal(err)
	}
	h.commit(keys[0], g, g.Pending())
	h.reopen()
	h.sameGraph(keys[0], g)
}

// testUseCounts: a use count is saved by an incremental commit like a read
// stamp, without a version or a seq, and comes back exactly after a reopen;
// the default given to a node stored without one is saved too, so that a
// later read stamp does not move it (docs/design/compaction.md#the-use-count).
func testUseCounts(h *harness) {
	k := domain.ProjectGraph("/home/dev/src/kg")
	g := restore(h.t, k, RichData(k.Project))
	h.commit(k, g, g.Everything())
	h.reopen()

	g = restore(h.t, k, h.load(k))
	zed, _ := g.Node("Zed.9_x") // stored without a count: the default from its times
	if want := domain.DefaultUse(zed.Recency()); zed.Use != want {
		h.t.Fatalf("Zed.9_x restored with use %+v, want the default %+v", zed.Use, want)
	}
	seq := g.Seq()
	alpha, _ := g.Node("alpha")
	later := t0 + 7*domain.Day
	if _, ok := g.CountUse("alpha", later); !ok {
		h.t.Fatal("CountUse(alpha) found no node")
	}
	g.StampRead("Zed.9_x", later)
	h.commit(k, g, g.Pending())
	if g.Seq() != seq {
		h.t.Errorf("a count took a seq: %d, then %d", seq, g.Seq())
	}
	h.reopen()

	h.sameGraph(k, g)
	got := restore(h.t, k, h.load(k))
	a, _ := got.Node("alpha")
	if want := alpha.Use.Add(later); a.Use != want || a.Version != alpha.Version {
		h.t.Errorf("alpha after a count and a reopen: use %+v version %+v; want use %+v version %+v", a.Use, a.Version, want, alpha.Version)
	}
	if z, _ := got.Node("Zed.9_x"); z.Use != zed.Use || z.LastRead != later {
		h.t.Errorf("Zed.9_x after a read stamp and a reopen: use %+v read %d; want use %+v (the default as first given) read %d", z.Use, z.LastRead, zed.Use, later)
	}
}

// testFileStamps: a node's file stamps (docs/design/trust.md#staleness) are
// saved with its write and by an incremental commit of their own (an edge
// naming a file records one without a version or a seq), and come back
// exactly after a reopen; a stale mark is never stored.
func testFileStamps(h *harness) {
	k := domain.ProjectGraph("/home/dev/src/kg")
	g := restore(h.t, k, RichData(k.Project))
	stamps := []domain.FileStamp{
		{Path: "docs/b.md", Hash: "sha256:" + strings.Repeat("ab", 32)},
		{Path: "src/a.go:1-20", Hash: "git:" + strings.Repeat("0f", 20)},
	}
	if !g.RecordFiles("alpha", stamps) {
		h.t.Fatal("RecordFiles(alpha) found no node")
	}
	h.commit(k, g, g.Everything())
	h.reopen()
	h.sameGraph(k, g)

	g = restore(h.t, k, h.load(k))
	seq, alpha := g.Seq(), mustNode(h.t, g, "alpha")
	g.RecordFile("alpha", domain.FileStamp{Path: "src/main.go", Hash: "git:" + strings.Repeat("1e", 20)})
	g.SetStale("beta", []domain.StaleFile{{Path: "x.go", Change: domain.FileVanished}})
	h.commit(k, g, g.Pending())
	if g.Seq() != seq {
		h.t.Errorf("a file stamp took a seq: %d, then %d", seq, g.Seq())
	}
	h.reopen()
	got := restore(h.t, k, h.load(k))
	a := mustNode(h.t, got, "alpha")
	if len(a.Files) != 3 || a.Files[2].Path != "src/main.go" || a.Version != alpha.Version {
		h.t.Errorf("alpha after a file stamp and a reopen: files %+v version %+v; want 3 stamps, version %+v", a.Files, a.Version, alpha.Version)
	}
	if b := mustNode(h.t, got, "beta"); b.Stale != nil {
		h.t.Errorf("a stale mark was stored: %+v", b.Stale)
	}
}

func mustNode(t *testing.T, g *domain.Graph, id string) *domain.Node {
	t.Helper()
	n, ok := g.Node(id)
	if !ok {
		t.Fatalf("node %q not found", id)
	}
	return n
}

func testSameFolderName(h *harness) {
	a, b := domain.ProjectGraph("/work/one/api"), domain.ProjectGraph("/work/two/api")
	ga, gb := restore(h.t, a, RichData(a.Project)), domain.NewGraph(b)
	at := domain.Stamp{Now: t0}
	if _, err := gb.PutNode(domain.NodeInput{ID: "only-in-two", Gist: "second api"}, at); err != nil {
		h.t.Fatal(err)
	}
	h.commit(a, ga, ga.Everything())
	h.commit(b, gb, gb.Pending())
	h.reopen()
	h.sameGraph(a, ga)
	h.sameGraph(b, gb)
	list, err := h.o.Graphs.List(h.ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	if len(list) != 2 || list[0].Slug == list[1].Slug {
		h.t.Fatalf("List = %+v, want two graphs under different slugs", list)
	}
	got := []domain.GraphKey{list[0].Key, list[1].Key}
	slices.SortFunc(got, func(x, y domain.GraphKey) int { return strings.Compare(x.Project, y.Project) })
	if got[0] != a || got[1] != b {
		h.t.Errorf("listed keys %v, want %v and %v", got, a, b)
	}
}

func testList(h *harness) {
	paths := []string{"/p/zeta", "/p/alpha", "/q/mid dle"}
	at := domain.Stamp{Now: t0}
	user := domain.NewGraph(domain.UserGraph)
	if _, err := user.PutNode(domain.NodeInput{ID: "u", Gist: "user node"}, at); err != nil {
		h.t.Fatal(err)
	}
	h.commit(domain.UserGraph, user, user.Pending())
	for _, p := range paths {
		k := domain.ProjectGraph(p)
		g := domain.NewGraph(k)
		if _, err := g.PutNode(domain.NodeInput{ID: "n", Gist: "in " + p}, at); err != nil {
			h.t.Fatal(err)
		}
		h.commit(k, g, g.Pending())
	}
	for range 2 {
		list, err := h.o.Graphs.List(h.ctx)
		if err != nil {
			h.t.Fatal(err)
		}
		var got []string
		for i, sg := range list {
			got = append(got, sg.Key.Project)
			if i > 0 && list[i-1].Slug >= sg.Slug {
				h.t.Errorf("List not sorted by slug: %+v", list)
			}
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(paths))
		if !slices.Equal(got, want) {
			h.t.Errorf("List projects = %q, want %q", got, want)
		}
		h.reopen()
	}
}

// mutate applies a scripted series of changes to g, committing each with
// its pending change set, and returns g.
func (h *harness) mutate(k domain.GraphKey, g *domain.Graph, commit bool) {
	h.t.Helper()
	at := func(i int, s string) domain.Stamp {
		return domain.Stamp{Now: t0 + domain.Micros(i)*domain.Second + domain.Micros(i), Session: s}
	}
	must := func(err error) {
		h.t.Helper()
		if err != nil {
			h.t.Fatal(err)
		}
	}
	steps := []func(i int){
		func(i int) {
			_, err := g.PutNode(domain.NodeInput{ID: "alpha", Gist: "rewritten", Notes: []string{}}, at(i, "s9"))
			must(err)
		},
		func(i int) { _, err := g.DeleteNode("beta", at(i, "s9")); must(err) },
		func(i int) {
			_, err := g.PutEdge(domain.EdgeInput{From: "docs/new.md", To: "alpha", Rel: "describes"}, at(i, ""))
			must(err)
		},
		func(i int) { g.DeleteEdge(domain.EdgeKey{From: "a", To: "b->c", Rel: "r"}, at(i, "s1")) },
		func(i int) {
			_, err := g.PutNode(domain.NodeInput{ID: "old", Gist: "re-created"}, at(i, "s2"))
			must(err)
		},
		func(i int) { must(g.SetProgress("task-2", domain.RawJSON(`{"n":1}`))) },
		func(i int) { must(g.SetProgress("task-1", domain.RawJSON(`{"step":"three"}`))) },
		func(i int) { _, err := g.RecallNode("gamma", at(i, "s4")); must(err) },
		func(i int) { g.StampRead("Zed.9_x", t0+domain.Micros(i)*domain.Day) },
		func(i int) {
			_, err := g.PutEdge(domain.EdgeInput{From: "x", To: "y->z", Rel: "r", Notes: []string{"back"}}, at(i, "s5"))
			must(err)
		},
	}
	for i, step := range steps {
		step(i + 1)
		if commit {
			h.commit(k, g, g.Pending())
		}
	}
}

func testIncremental(h *harness) {
	k := domain.ProjectGraph("/home/dev/inc")
	g := restore(h.t, k, RichData(k.Project))
	h.commit(k, g, g.Everything())
	h.mutate(k, g, true)
	h.sameGraph(k, g)
	h.reopen()
	h.sameGraph(k, g)

	// The same changes saved at once, on another graph, store the same
	// state.
	k2 := domain.ProjectGraph("/home/dev/inc-full")
	g2 := restore(h.t, k2, RichData(k2.Project))
	h.mutate(k2, g2, false)
	h.commit(k2, g2, g2.Everything())
	a := restore(h.t, k, h.load(k)).Data()
	b := restore(h.t, k2, h.load(k2)).Data()
	a.ProjectPath, b.ProjectPath = "", ""
	if diff := cmp.Diff(a, b, dataOpts); diff != "" {
		h.t.Errorf("incremental and full saves differ (-incremental +full):\n%s", diff)
	}
}

func testConcurrent(h *harness) {
	const writers, perWriter = 32, 8
	var wg sync.WaitGroup
	graphs := make([]*domain.Graph, writers)
	errs := make(chan error, writers)
	for w := range writers {
		k := domain.ProjectGraph(fmt.Sprintf("/conc/w%02d/shared", w%4))
		if w >= 4 {
			k = domain.ProjectGraph(fmt.Sprintf("/conc/w%02d/proj", w))
		}
		if w == 0 {
			k = domain.UserGraph
		}
		g := domain.NewGraph(k)
		graphs[w] = g
		wg.Go(func() {
			for i := range perWriter {
				at := domain.Stamp{Now: t0 + domain.Micros(i), Session: fmt.Sprintf("w%d", w)}
				if _, err := g.PutNode(domain.NodeInput{ID: fmt.Sprintf("n%d", i), Gist: fmt.Sprintf("writer %d item %d", w, i)}, at); err != nil {
					errs <- err
					return
				}
				if err := h.o.Graphs.Commit(h.ctx, k, g, g.Pending()); err != nil {
					errs <- fmt.Errorf("commit %s: %w", k, err)
					return
				}
				g.Checkpoint()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		h.t.Fatal(err)
	}
	h.reopen()
	for _, g := range graphs {
		h.sameGraph(g.Key(), g)
	}
	list, err := h.o.Graphs.List(h.ctx)
	if err != nil || len(list) != writers-1 {
		h.t.Errorf("List = %d graphs, %v; want %d", len(list), err, writers-1)
	}
}

func testSerial(h *harness) {
	k := domain.ProjectGraph("/serial/one")
	g := domain.NewGraph(k)
	for i := range 60 {
		at := domain.Stamp{Now: t0 + domain.Micros(i)*domain.Second}
		id := fmt.Sprintf("n%03d", i)
		if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: "serial"}, at); err != nil {
			h.t.Fatal(err)
		}
		if i > 0 {
			if _, err := g.PutEdge(domain.EdgeInput{From: fmt.Sprintf("n%03d", i-1), To: id, Rel: "next"}, at); err != nil {
				h.t.Fatal(err)
			}
		}
		if i%7 == 6 {
			if _, err := g.DeleteNode(fmt.Sprintf("n%03d", i-3), at); err != nil {
				h.t.Fatal(err)
			}
		}
		h.commit(k, g, g.Pending())
	}
	h.reopen()
	h.sameGraph(k, g)
}

// errDiskFull is the injected fault: what a full disk returns.
var errDiskFull = fmt.Errorf("injected: %w", syscall.ENOSPC)

func testFailedSave(h *harness) {
	keys := []domain.GraphKey{domain.UserGraph, domain.ProjectGraph("/fail/existing"), domain.ProjectGraph("/fail/new")}
	gs := map[domain.GraphKey]*domain.Graph{}
	for _, k := range keys[:2] {
		g := restore(h.t, k, RichData(k.Project))
		h.commit(k, g, g.Everything())
		gs[k] = g
	}
	sessions := map[string]ports.Session{"aaaa0000bbbb1111": {ID: "aaaa0000bbbb1111", Start: t0, OpCount: 1}}
	if err := h.o.Sessions.UpdateSessions(h.ctx, ports.PutSessions(sessions)); err != nil {
		h.t.Fatal(err)
	}
	gs[keys[2]] = domain.NewGraph(keys[2])
	before := map[domain.GraphKey]domain.GraphData{}
	for k, g := range gs {
		before[k] = g.Data()
	}

	h.o.InjectFault(errDiskFull)
	at := domain.Stamp{Now: t0 + domain.Day, Session: "ghost"}
	for _, k := range keys {
		g := gs[k]
		if _, err := g.PutNode(domain.NodeInput{ID: "ghost", Gist: "must not survive"}, at); err != nil {
			h.t.Fatal(err)
		}
		if k != keys[2] {
			if _, err := g.DeleteNode("alpha", at); err != nil {
				h.t.Fatal(err)
			}
		}
		err := h.o.Graphs.Commit(h.ctx, k, g, g.Pending())
		if err == nil {
			h.t.Fatalf("commit %s under a full disk succeeded", k)
		}
		if kind := domain.KindOf(err); kind != domain.KindUnavailable {
			h.t.Errorf("commit %s: error kind %q (%v), want unavailable", k, kind, err)
		}
		g.Rollback()
	}
	bad := maps.Clone(sessions)
	bad["cccc"] = ports.Session{ID: "cccc", Start: t0}
	if err := h.o.Sessions.UpdateSessions(h.ctx, ports.PutSessions(bad)); domain.KindOf(err) != domain.KindUnavailable {
		h.t.Errorf("save sessions under a full disk: %v, want an unavailable error", err)
	}
	h.o.InjectFault(nil)

	// The store still serves the old state, before and after reopen. (The
	// graphs in memory keep their advanced seq counters: seqs are never
	// reused, so compare with the data as it was.)
	for range 2 {
		for _, k := range keys {
			h.sameData(k, before[k])
		}
		got, err := h.o.Sessions.LoadSessions(h.ctx)
		if err != nil || len(got) != 1 {
			h.t.Errorf("sessions after failed save = %v, %v; want the one saved before", got, err)
		}
		h.reopen()
	}

	// The next write tries again and succeeds.
	for _, k := range keys {
		g := gs[k]
		if _, err := g.PutNode(domain.NodeInput{ID: "after", Gist: "written after the disk recovered"}, at); err != nil {
			h.t.Fatal(err)
		}
		h.commit(k, g, g.Pending())
	}
	h.reopen()
	for _, k := range keys {
		h.sameGraph(k, gs[k])
		if _, ok := gs[k].Node("ghost"); ok {
			h.t.Errorf("%s: ghost node survived the rollback", k)
		}
	}
}

// longIDs is n ids, with the given prefix, in no sorted order, some with
// characters a file format may mangle.
func longIDs(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%sid-%d", prefix, (i*7919)%n)
		if i%50 == 0 {
			out[i] += ` "ü"/\`
		}
	}
	return out
}

func testSessions(h *harness) {
	got, err := h.o.Sessions.LoadSessions(h.ctx)
	if err != nil || len(got) != 0 {
		h.t.Fatalf("LoadSessions on an empty store = %v, %v; want none", got, err)
	}
	want := map[string]ports.Session{
		"0123456789abcdef": {ID: "0123456789abcdef", ProjectPath: "/home/dev/src/kg", Start: t0, LastActivity: t0 + 5*domain.Second + 1,
			OpCount: 42, Synced: map[domain.GraphKey]uint64{domain.UserGraph: 17, domain.ProjectGraph("/home/dev/src/kg"): 99},
			Counted: map[domain.GraphKey][]string{domain.UserGraph: {"zeta", "alpha", "naïve \"id\""}, domain.ProjectGraph("/home/dev/src/kg"): {"b"}}},
		"deadbeef": {ID: "deadbeef", Start: t0 - domain.Day, LastActivity: t0, LastSyncedTS: t0 - 3,
			Extra: map[string]domain.RawJSON{"client": raw(`"claude"`), "hooks": raw(`{"x":[1,true]}`)}},
		"fedcba9876543210": {ID: "fedcba9876543210", ProjectPath: "/srv/odd name ü", Start: t0, LastActivity: t0,
			Synced: map[domain.GraphKey]uint64{domain.ProjectGraph("/srv/odd name ü"): 3}},
		// The hook state of docs/design/hooks.md#sessions-and-the-seen-set,
		// every field set, with ids no file format may mangle.
		"0000aaaa0000bbbb": {ID: "0000aaaa0000bbbb", ProjectPath: "/home/dev/src/kg", Start: t0, LastActivity: t0 + 9,
			Hooks: ports.HookState{ClaudeSessionID: "2f1c9a7e-4b3d-4c1e-9f00-aa11bb22cc33", Agent: "codex",
				Seen: []string{"u:auth-refresh", "p:auth-refresh", `p:odd "id" ü/\`, "u:x"}, FullReadDone: true, PreloadedCount: 42,
				Useful: []string{"p:auth-refresh"}, Nudges: 2, LastNudge: t0 + 7, PromptNudges: 1}},
		// A session whose hooks told only the agent.
		"2222333344445555": {ID: "2222333344445555", Start: t0, LastActivity: t0, Hooks: ports.HookState{Agent: "gemini"}},
		// Lists long enough to be stored packed (ports.PackIDs), in order.
		"1111222233334444": {ID: "1111222233334444", Start: t0, LastActivity: t0,
			Hooks:   ports.HookState{Seen: longIDs("u:", 300)},
			Counted: map[domain.GraphKey][]string{domain.UserGraph: longIDs("", 300), domain.ProjectGraph("/srv/app"): longIDs("", ports.PackFrom)}},
	}
	if err := h.o.Sessions.UpdateSessions(h.ctx, ports.PutSessions(want)); err != nil {
		h.t.Fatal(err)
	}
	opts := cmp.Options{dataOpts}
	for range 2 {
		got, err := h.o.Sessions.LoadSessions(h.ctx)
		if err != nil {
			h.t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, opts); diff != "" {
			h.t.Errorf("sessions differ (-want +got):\n%s", diff)
		}
		h.reopen()
	}
	// A save touches only the sessions it names, even from a store that
	// loaded every session first (as kg migrate does while other servers
	// serve theirs): the others stay, and one goes only when named.
	if _, err := h.o.Sessions.LoadSessions(h.ctx); err != nil {
		h.t.Fatal(err)
	}
	moved := want["fedcba9876543210"]
	moved.OpCount, moved.LastActivity = 7, t0+domain.Second
	want[moved.ID] = moved
	if err := h.o.Sessions.UpdateSessions(h.ctx, ports.PutSessions(map[string]ports.Session{moved.ID: moved})); err != nil {
		h.t.Fatal(err)
	}
	if err := h.o.Sessions.UpdateSessions(h.ctx, ports.SessionChanges{Delete: []string{"deadbeef"}}); err != nil {
		h.t.Fatal(err)
	}
	delete(want, "deadbeef")
	h.reopen()
	got, err = h.o.Sessions.LoadSessions(h.ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, opts); diff != "" {
		h.t.Errorf("sessions after saving one and removing one differ (-want +got):\n%s", diff)
	}
}

// testSessionUpdates: UpdateSessions puts and removes exactly the sessions
// it names, leaving the others as stored; removing an id not stored is no
// change; an id both removed and put is put; a failed update changes
// nothing; and every result survives a reopen (and, for a journaling
// backend, a checkpoint).
func testSessionUpdates(h *harness) {
	ctx := h.ctx
	sess := func(id string, ops int64) ports.Session {
		return ports.Session{ID: id, ProjectPath: "/home/dev/" + id, Start: t0, LastActivity: t0 + domain.Micros(ops), OpCount: ops,
			Synced:  map[domain.GraphKey]uint64{domain.UserGraph: uint64(ops)},
			Counted: map[domain.GraphKey][]string{domain.ProjectGraph("/home/dev/" + id): {fmt.Sprintf("node-%d", ops), "first"}}}
	}
	want := map[string]ports.Session{}
	for i := range 50 {
		id := fmt.Sprintf("%016x", i)
		want[id] = sess(id, 1)
	}
	if err := h.o.Sessions.UpdateSessions(ctx, ports.PutSessions(maps.Clone(want))); err != nil {
		h.t.Fatal(err)
	}
	check := func(what string) {
		h.t.Helper()
		got, err := h.o.Sessions.LoadSessions(ctx)
		if err != nil {
			h.t.Fatalf("%s: %v", what, err)
		}
		if diff := cmp.Diff(want, got, dataOpts); diff != "" {
			h.t.Errorf("%s: sessions differ (-want +got):\n%s", what, diff)
		}
	}
	update := func(ch ports.SessionChanges) {
		h.t.Helper()
		if err := h.o.Sessions.UpdateSessions(ctx, ch); err != nil {
			h.t.Fatalf("UpdateSessions: %v", err)
		}
		for _, id := range ch.Delete {
			delete(want, id)
		}
		for _, s := range ch.Put {
			want[s.ID] = s
		}
	}
	a, b, c := fmt.Sprintf("%016x", 3), fmt.Sprintf("%016x", 7), "new0000000000001"
	update(ports.SessionChanges{Put: []ports.Session{sess(a, 5), sess(c, 1)}, Delete: []string{b, "never-stored"}})
	check("after one update")
	update(ports.SessionChanges{Put: []ports.Session{sess(a, 6)}, Delete: []string{a}})
	check("after removing and putting one id")
	update(ports.SessionChanges{})
	h.reopen()
	check("after a reopen")
	if cp, ok := h.o.Sessions.(ports.SessionCheckpointer); ok {
		update(ports.SessionChanges{Put: []ports.Session{sess(c, 2)}})
		if err := cp.CheckpointSessions(ctx); err != nil {
			h.t.Fatal(err)
		}
		update(ports.SessionChanges{Delete: []string{c}})
		h.reopen()
		check("after updates around a checkpoint")
	}
	if h.o.InjectFault != nil {
		h.o.InjectFault(errDiskFull)
		err := h.o.Sessions.UpdateSessions(ctx, ports.SessionChanges{Put: []ports.Session{sess("ghost00000000000", 1)}, Delete: []string{a}})
		h.o.InjectFault(nil)
		if domain.KindOf(err) != domain.KindUnavailable {
			h.t.Errorf("a failing update = %v, want unavailable", err)
		}
		check("after a failed update")
		h.reopen()
		check("after a failed update and a reopen")
	}
}

// testCheckpoints interleaves commits and session saves with the
// checkpoints of a backend that journals them (ports.GraphCheckpointer,
// ports.SessionCheckpointer): whatever the order, and across reopens,
// the stored state is what was committed and saved.
func testCheckpoints(h *harness) {
	gcp, gok := h.o.Graphs.(ports.GraphCheckpointer)
	_, sok := h.o.Sessions.(ports.SessionCheckpointer)
	if !gok || !sok {
		h.t.Skipf("%s keeps no journal to checkpoint", h.b.Name)
	}
	k := domain.ProjectGraph("/home/dev/cp")
	checkpointedGraphSurvives(h, k)

	// A graph never stored has nothing to checkpoint and stays unstored.
	// (gcp is the store first opened, closed by the reopens since.)
	never := domain.ProjectGraph("/home/dev/never-stored")
	if err := gcp.Checkpoint(h.ctx, never, domain.NewGraph(never)); err != nil {
		h.t.Errorf("checkpoint of a graph never stored: %v", err)
	}
	list, err := h.o.Graphs.List(h.ctx)
	if err != nil || len(list) != 1 || list[0].Key != k {
		h.t.Errorf("List after checkpoints = %+v, %v; want only %s", list, err, k)
	}

	checkpointedSessionsSurvive(h)
}

// checkpointedGraphSurvives commits to the graph of k with checkpoints
// between, after and twice after commits, and checks it after reopens.
func checkpointedGraphSurvives(h *harness, k domain.GraphKey) {
	g := restore(h.t, k, RichData(k.Project))
	h.commit(k, g, g.Everything())
	checkpoint := func(what string) {
		h.t.Helper()
		if err := h.o.Graphs.(ports.GraphCheckpointer).Checkpoint(h.ctx, k, g); err != nil {
			h.t.Fatalf("%s: %v", what, err)
		}
	}
	h.mutate(k, g, true)
	checkpoint("checkpoint")
	checkpoint("checkpoint")
	// A batch that takes no seq, right after a checkpoint, survives a
	// reopen.
	g.StampRead("alpha", t0+domain.Day+1)
	h.commit(k, g, g.Pending())
	h.reopen()
	h.sameGraph(k, g)
	at := domain.Stamp{Now: t0 + domain.Day, Session: "cp"}
	for i := range 5 {
		if _, err := g.PutNode(domain.NodeInput{ID: fmt.Sprintf("cp-%d", i), Gist: "after the checkpoint"}, at); err != nil {
			h.t.Fatal(err)
		}
		h.commit(k, g, g.Pending())
		if i == 2 {
			checkpoint("checkpoint")
		}
	}
	g.StampRead("cp-0", t0+2*domain.Day) // a batch that takes no seq
	h.commit(k, g, g.Pending())
	h.sameGraph(k, g)
	h.reopen()
	h.sameGraph(k, g)

	// A reopened store checkpoints the graph it loaded, then takes more.
	g = restore(h.t, k, h.load(k))
	checkpoint("checkpoint after reopen")
	if _, err := g.DeleteNode("cp-1", at); err != nil {
		h.t.Fatal(err)
	}
	h.commit(k, g, g.Pending())
	h.reopen()
	h.sameGraph(k, g)
}

// checkpointedSessionsSurvive interleaves saves and checkpoints of
// sessions, then checks them after a reopen.
func checkpointedSessionsSurvive(h *harness) {
	sessions := map[string]ports.Session{}
	for i := range 6 {
		id := fmt.Sprintf("%016x", i)
		sessions[id] = ports.Session{ID: id, Start: t0, LastActivity: t0 + domain.Micros(i), OpCount: int64(i)}
		ch := ports.PutSessions(sessions)
		if i == 4 {
			gone := fmt.Sprintf("%016x", 1)
			delete(sessions, gone)
			ch = ports.PutSessions(sessions)
			ch.Delete = []string{gone}
		}
		if err := h.o.Sessions.UpdateSessions(h.ctx, ch); err != nil {
			h.t.Fatal(err)
		}
		if i%2 == 1 {
			if err := h.o.Sessions.(ports.SessionCheckpointer).CheckpointSessions(h.ctx); err != nil {
				h.t.Fatalf("checkpoint sessions: %v", err)
			}
		}
	}
	h.reopen()
	got, err := h.o.Sessions.LoadSessions(h.ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	if diff := cmp.Diff(sessions, got, dataOpts); diff != "" {
		h.t.Errorf("sessions after saves and checkpoints differ (-want +got):\n%s", diff)
	}
}

// testRelease: a repository that keeps state per graph (ports.GraphReleaser)
// forgets it on Release and loses nothing stored: commits, checkpoints and
// loads after a release, or running beside releases of the same graph (the
// app releases an unloaded graph while a request may load it afresh), give
// the same graphs.
func testRelease(h *harness) {
	r, ok := h.o.Graphs.(ports.GraphReleaser)
	if !ok {
		h.t.Skipf("%s keeps no state per graph to release", h.b.Name)
	}
	ctx := h.ctx
	k := domain.ProjectGraph("/home/dev/released")
	g := restore(h.t, k, RichData(k.Project))
	h.commit(k, g, g.Everything())
	r.Release(k)
	r.Release(k) // twice is harmless
	h.sameGraph(k, g)
	h.mutate(k, g, true)
	if cp, ok := h.o.Graphs.(ports.GraphCheckpointer); ok {
		r.Release(k)
		if err := cp.Checkpoint(ctx, k, g); err != nil {
			h.t.Fatalf("checkpoint after a release: %v", err)
		}
	}
	r.Release(k)
	r.Release(domain.UserGraph)
	r.Release(domain.ProjectGraph("/home/dev/never-stored"))
	h.sameGraph(k, g)

	// Releases beside commits and loads of the same graph.
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				r.Release(k)
				if _, err := h.o.Graphs.Load(ctx, k); err != nil {
					h.t.Errorf("load beside releases: %v", err)
					return
				}
			}
		}
	}()
	at := domain.Stamp{Now: t0 + domain.Day, Session: "rel"}
	for i := range 20 {
		if _, err := g.PutNode(domain.NodeInput{ID: fmt.Sprintf("rel-%d", i), Gist: "beside releases"}, at); err != nil {
			h.t.Fatal(err)
		}
		h.commit(k, g, g.Pending())
	}
	close(stop)
	wg.Wait()
	h.sameGraph(k, g)
	h.reopen()
	h.sameGraph(k, g)
}

// testToolEvents: a graph repository that keeps the tool-event counts
// (docs/design/hooks.md#tool-events) has none at first, returns the document
// saved whole and unchanged across a reopen, replaces it on the next save,
// and keeps the one before when a save fails.
func testToolEvents(h *harness) {
	repo, ok := h.o.Graphs.(ports.ToolEventRepository)
	if !ok {
		if _, shared := h.o.Graphs.(ports.SharedToolEventRepository); shared {
			h.t.Skip("the backend counts each tool event itself (SharedToolEventsCountEveryEvent)")
		}
		h.t.Skip("the backend keeps no tool-event counts")
	}
	if doc, err := repo.LoadToolEvents(h.ctx); err != nil || doc != nil {
		h.t.Fatalf("LoadToolEvents on an empty store = %q, %v; want nil, nil", doc, err)
	}
	first := raw(`{"version":1,"projects":{"/srv/odd name ü":{"file:a/b.go":{"count":2,"last_seen_us":7}}}}`)
	second := raw(`{"version":1,"projects":{}}`)
	if err := repo.SaveToolEvents(h.ctx, first); err != nil {
		h.t.Fatal(err)
	}
	h.reopen()
	repo = h.o.Graphs.(ports.ToolEventRepository)
	if doc, err := repo.LoadToolEvents(h.ctx); err != nil || compactJSON(doc) != compactJSON(first) {
		h.t.Fatalf("after reopen LoadToolEvents = %s, %v; want %s", doc, err, first)
	}
	if h.o.InjectFault != nil {
		h.o.InjectFault(errDiskFull)
		err := repo.SaveToolEvents(h.ctx, second)
		h.o.InjectFault(nil)
		if domain.KindOf(err) != domain.KindUnavailable {
			h.t.Fatalf("SaveToolEvents on a full disk = %v; want an unavailable error", err)
		}
		if doc, err := repo.LoadToolEvents(h.ctx); err != nil || compactJSON(doc) != compactJSON(first) {
			h.t.Fatalf("after a failed save LoadToolEvents = %s, %v; want the document before, %s", doc, err, first)
		}
	}
	if err := repo.SaveToolEvents(h.ctx, second); err != nil {
		h.t.Fatal(err)
	}
	h.reopen()
	repo = h.o.Graphs.(ports.ToolEventRepository)
	if doc, err := repo.LoadToolEvents(h.ctx); err != nil || compactJSON(doc) != compactJSON(second) {
		h.t.Fatalf("after a second save LoadToolEvents = %s, %v; want %s", doc, err, second)
	}
}
