package porttest

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// RunStepCrash stops a backend's file layer at every step of a commit, of
// the first save of a graph, of a checkpoint, of a session save and of a
// session checkpoint, as a kill -9 would there, and checks after each stop
// that the reopened store holds the state from before the interrupted
// operation or the state after it: never a mix, never a loss, never a
// store that does not load. A write interrupted at its step keeps only part
// of its data, as a torn write does.
//
// Each operation runs once to completion first, to count its steps (the
// mutating file operations it makes, Opened.Steps); then, for each step k,
// on a fresh directory, the same setup, Opened.KillAt(k), the operation,
// and a reopen. A backend whose Opened has no KillAt is skipped.
func RunStepCrash(t *testing.T, b Backend) {
	probe := b.Open(t, t.TempDir())
	armed := probe.KillAt != nil && probe.Steps != nil
	if err := probe.Close(); err != nil {
		t.Fatal(err)
	}
	if !armed {
		t.Skipf("%s: the backend cannot stop its file layer at a step (Opened.KillAt)", b.Name)
	}
	for _, sc := range stepScenarios {
		t.Run(b.Name+"/"+sc.name, func(t *testing.T) {
			dir := t.TempDir()
			o := b.Open(t, dir)
			op, ok := sc.setup(t, o)
			if !ok {
				_ = o.Close()
				t.Skipf("%s does not implement what %s needs", b.Name, sc.name)
			}
			before := snapshot(t, o)
			s0 := o.Steps()
			if err := op(context.Background()); err != nil {
				t.Fatalf("%s: %v", sc.name, err)
			}
			steps := o.Steps() - s0
			after := snapshot(t, o)
			if err := o.Close(); err != nil {
				t.Fatal(err)
			}
			if steps == 0 {
				t.Fatalf("%s made no file operation", sc.name)
			}
			if cmp.Equal(before, after, dataOpts) && !sc.same {
				t.Fatalf("%s changed nothing stored; the check would prove nothing", sc.name)
			}
			for k := 1; k <= steps; k++ {
				dir := t.TempDir()
				o := b.Open(t, dir)
				op, _ := sc.setup(t, o)
				o.KillAt(k)
				opErr := op(context.Background())
				_ = o.Close()
				r := b.Open(t, dir)
				got := snapshot(t, r)
				if err := r.Close(); err != nil {
					t.Fatal(err)
				}
				if !cmp.Equal(got, before, dataOpts) && !cmp.Equal(got, after, dataOpts) {
					t.Errorf("killed at step %d of %d (operation returned %v): the stored state is neither the one before nor the one after:\n%s",
						k, steps, opErr, cmp.Diff(after, got, dataOpts))
				}
				if opErr == nil && !cmp.Equal(got, after, dataOpts) {
					t.Errorf("killed at step %d of %d after the operation was acknowledged: it was lost:\n%s", k, steps, cmp.Diff(after, got, dataOpts))
				}
				CheckIntegrity(t, b, dir)
				checkNothingSetAside(t, b, dir, k, steps)
			}
			t.Logf("%s: killed at each of %d steps", sc.name, steps)
		})
	}
}

// checkNothingSetAside fails when the reopened store set a file aside as
// damaged: a kill at any step leaves a state the next load takes as it is
// (or cuts back to the state before), never one it keeps a copy of for a
// person to look at.
func checkNothingSetAside(t *testing.T, b Backend, dir string, k, steps int) {
	t.Helper()
	if b.SetAside == nil {
		return
	}
	if kept := b.SetAside(t, dir); len(kept) > 0 {
		t.Errorf("killed at step %d of %d: the reopened store set aside %q as damaged; a kill is no damage", k, steps, kept)
	}
}

// stored is what a store holds, as compared by RunStepCrash.
type stored struct {
	Graphs   map[string]domain.GraphData
	Sessions map[string]ports.Session
	// History lists each graph's change log, newest first, one line an
	// entry, when the backend keeps one: it must be before or after with
	// the graph (no change without its entry, no entry without its change).
	History map[string][]string
}

// stepKeys are the graphs the step-crash scenarios write.
var stepKeys = []domain.GraphKey{domain.UserGraph, domain.ProjectGraph("/step/crash/app")}

func snapshot(t *testing.T, o Opened) stored {
	t.Helper()
	ctx := context.Background()
	s := stored{Graphs: map[string]domain.GraphData{}}
	for _, k := range stepKeys {
		d, err := o.Graphs.Load(ctx, k)
		if err != nil {
			t.Fatalf("load %s: %v", k, err)
		}
		s.Graphs[k.String()] = restore(t, k, d).Data()
		if hr, ok := o.Graphs.(ports.HistoryRepository); ok {
			es, err := hr.History(ctx, k, ports.HistoryQuery{})
			if err != nil {
				t.Fatalf("history of %s: %v", k, err)
			}
			if s.History == nil {
				s.History = map[string][]string{}
			}
			for _, e := range es {
				s.History[k.String()] = append(s.History[k.String()], fmt.Sprintf("%d %s %s by %s", e.Seq, e.Op, e.Name(), e.Session))
			}
		}
	}
	ss, err := o.Sessions.LoadSessions(ctx)
	if err != nil {
		t.Fatalf("load sessions: %v", err)
	}
	s.Sessions = ss
	return s
}

// A stepScenario prepares a store and returns the operation to interrupt;
// ok is false when the backend lacks what the operation needs.
type stepScenario struct {
	name  string
	setup func(t *testing.T, o Opened) (op func(context.Context) error, ok bool)
	// same: the operation leaves the stored state as it was (a checkpoint
	// moves data between files, not in or out of the store).
	same bool
}

// commitAll commits every pending change of g, with the change log of
// what changed since the last commit, and checkpoints it in memory.
func commitAll(t *testing.T, o Opened, g *domain.Graph) {
	t.Helper()
	if err := commitLogged(context.Background(), o, g, g.Pending()); err != nil {
		t.Fatalf("commit %s: %v", g.Key(), err)
	}
	g.Checkpoint()
	g.StartChangeLog()
}

// commitLogged commits cs with the change log g recorded since its last
// commit (StartChangeLog), through CommitLogged when the backend keeps a
// log.
func commitLogged(ctx context.Context, o Opened, g *domain.Graph, cs domain.ChangeSet) error {
	hr, ok := o.Graphs.(ports.HistoryRepository)
	es := g.TakeChangeLog(domain.Stamp{Now: t0 + domain.Micros(g.Seq())*domain.Second, Session: "step"}, domain.HistoryPut)
	if !ok {
		return o.Graphs.Commit(ctx, g.Key(), g, cs)
	}
	return hr.CommitLogged(ctx, g.Key(), g, cs, domain.HistoryBatch{SeqBefore: g.DurableSeq(), SeqAfter: g.Seq(), Entries: es})
}

// batch changes g the way a batch of writes does: a put, an edge, a
// deletion and a read stamp.
func batch(t *testing.T, g *domain.Graph, i int) {
	t.Helper()
	at := domain.Stamp{Now: t0 + domain.Micros(i)*domain.Second, Session: fmt.Sprintf("s%d", i)}
	id := fmt.Sprintf("step-%d", i)
	if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: "written in batch " + id, Notes: []string{"a note"}}, at); err != nil {
		t.Fatal(err)
	}
	if _, err := g.PutEdge(domain.EdgeInput{From: "alpha", To: id, Rel: "leads-to"}, at); err != nil {
		t.Fatal(err)
	}
	if n, ok := g.Node("Zed.9_x"); ok {
		g.StampRead(n.ID, at.Now)
	}
	if _, ok := g.Node("beta"); ok {
		if _, err := g.DeleteNode("beta", at); err != nil {
			t.Fatal(err)
		}
	}
}

var stepScenarios = []stepScenario{
	{name: "FirstCommitAfterASave", setup: func(t *testing.T, o Opened) (func(context.Context) error, bool) {
		g := restore(t, domain.UserGraph, RichData(""))
		commitAll(t, o, g)
		batch(t, g, 1)
		return func(ctx context.Context) error { return commitLogged(ctx, o, g, g.Pending()) }, true
	}},
	{name: "CommitAppend", setup: func(t *testing.T, o Opened) (func(context.Context) error, bool) {
		g := restore(t, domain.UserGraph, RichData(""))
		commitAll(t, o, g)
		batch(t, g, 1)
		commitAll(t, o, g)
		batch(t, g, 2)
		return func(ctx context.Context) error { return commitLogged(ctx, o, g, g.Pending()) }, true
	}},
	{name: "CommitOfTheWholeGraph", setup: func(t *testing.T, o Opened) (func(context.Context) error, bool) {
		g := restore(t, domain.UserGraph, RichData(""))
		commitAll(t, o, g)
		batch(t, g, 1)
		commitAll(t, o, g)
		batch(t, g, 2)
		return func(ctx context.Context) error { return commitLogged(ctx, o, g, g.Everything()) }, true
	}},
	{name: "FirstSaveOfAProject", setup: func(t *testing.T, o Opened) (func(context.Context) error, bool) {
		k := stepKeys[1]
		g := restore(t, k, RichData(k.Project))
		g.StartChangeLog()
		batch(t, g, 1)
		return func(ctx context.Context) error { return commitLogged(ctx, o, g, g.Pending()) }, true
	}},
	{name: "Checkpoint", same: true, setup: func(t *testing.T, o Opened) (func(context.Context) error, bool) {
		cp, ok := o.Graphs.(ports.GraphCheckpointer)
		if !ok {
			return nil, false
		}
		g := restore(t, domain.UserGraph, RichData(""))
		commitAll(t, o, g)
		for i := range 3 {
			batch(t, g, i+1)
			commitAll(t, o, g)
		}
		// A batch that takes no seq (a read stamp only) comes last.
		g.StampRead("alpha", t0+domain.Day)
		commitAll(t, o, g)
		return func(ctx context.Context) error { return cp.Checkpoint(ctx, g.Key(), g) }, true
	}},
	{name: "FirstSessionSave", setup: func(t *testing.T, o Opened) (func(context.Context) error, bool) {
		a := ports.Session{ID: "aaaa0000aaaa0000", ProjectPath: "/step/crash/app", Start: t0, LastActivity: t0, OpCount: 1}
		return func(ctx context.Context) error {
			return o.Sessions.UpdateSessions(ctx, ports.PutSessions(map[string]ports.Session{a.ID: a}))
		}, true
	}},
	{name: "SessionSave", setup: func(t *testing.T, o Opened) (func(context.Context) error, bool) {
		a := ports.Session{ID: "aaaa0000aaaa0000", Start: t0, LastActivity: t0, OpCount: 1}
		if err := o.Sessions.UpdateSessions(context.Background(), ports.PutSessions(map[string]ports.Session{a.ID: a})); err != nil {
			t.Fatal(err)
		}
		a.OpCount, a.LastActivity = 2, t0+domain.Second
		b := ports.Session{ID: "bbbb0000bbbb0000", ProjectPath: "/step/crash/app", Start: t0, LastActivity: t0,
			Synced: map[domain.GraphKey]uint64{domain.UserGraph: 3}}
		next := map[string]ports.Session{a.ID: a, b.ID: b}
		return func(ctx context.Context) error { return o.Sessions.UpdateSessions(ctx, ports.PutSessions(next)) }, true
	}},
	{name: "SessionCheckpoint", same: true, setup: func(t *testing.T, o Opened) (func(context.Context) error, bool) {
		cp, ok := o.Sessions.(ports.SessionCheckpointer)
		if !ok {
			return nil, false
		}
		ctx := context.Background()
		a := ports.Session{ID: "aaaa0000aaaa0000", Start: t0, LastActivity: t0, OpCount: 1}
		b := ports.Session{ID: "bbbb0000bbbb0000", Start: t0, LastActivity: t0}
		for _, ch := range []ports.SessionChanges{{Put: []ports.Session{a}}, {Put: []ports.Session{a, b}}, {Put: []ports.Session{b}, Delete: []string{a.ID}}} {
			if err := o.Sessions.UpdateSessions(ctx, ch); err != nil {
				t.Fatal(err)
			}
		}
		return cp.CheckpointSessions, true
	}},
}
