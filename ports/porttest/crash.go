package porttest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Environment of a crash child: the directory it writes to and the round
// number, which keeps its node ids apart from earlier rounds'.
const (
	crashDirEnv   = "KG_PORTTEST_CRASH_DIR"
	crashRoundEnv = "KG_PORTTEST_CRASH_ROUND"
)

// crashKeys are the graphs a crash child writes, one goroutine each, so
// commits of different graphs overlap.
var crashKeys = []domain.GraphKey{
	domain.UserGraph,
	domain.ProjectGraph("/crash/one/app"),
	domain.ProjectGraph("/crash/two/app"),
	domain.ProjectGraph("/crash/three"),
}

// crashChildDeadline ends a child its parent forgot to kill (a parent that
// died); it is a guard, not a measurement.
const crashChildDeadline = 2 * time.Minute

// RunCrash kills a writing child process rounds times (a fifth of that,
// at least 3, under -short) and checks after each kill that every stored
// graph loads and every acknowledged write is present.
//
// The child is this same test binary, re-executed to run only the calling
// test with an environment variable set; in the child, RunCrash writes to the
// directory it was given until it is killed, through b's GraphRepository and
// SessionRepository, printing a line to stdout after each acknowledged
// write. Call it from a top-level test, never in parallel with another
// RunCrash of the same binary.
func RunCrash(t *testing.T, b Backend, rounds int) {
	if dir := os.Getenv(crashDirEnv); dir != "" {
		round, _ := strconv.Atoi(os.Getenv(crashRoundEnv))
		crashChild(t, b, dir, round)
		return
	}
	crashParent(t, b, rounds)
}

// CrashProblems runs the same check as RunCrash but returns the problems it
// finds instead of failing t: every error the check reports, then the fatal
// one that stopped it, if any; nil when every acknowledged write survived.
// It exists to show that the check can fail: a store whose save is broken
// on purpose must yield problems. Call it like RunCrash, from a test the
// child re-runs.
func CrashProblems(t *testing.T, b Backend, rounds int) (problems []string) {
	if dir := os.Getenv(crashDirEnv); dir != "" {
		round, _ := strconv.Atoi(os.Getenv(crashRoundEnv))
		crashChild(t, b, dir, round)
		return nil
	}
	r := &problemRecorder{TB: t}
	defer func() {
		if v := recover(); v != nil && v != errCrashStopped {
			panic(v)
		}
		problems = r.taken()
	}()
	crashParent(r, b, rounds)
	return nil
}

// errCrashStopped is what a problemRecorder panics with on a fatal report,
// to stop the check where t.Fatal would.
var errCrashStopped = errors.New("porttest: crash check stopped")

// problemRecorder is a testing.TB that records failures instead of
// failing the test; Fatal stops the caller by panicking with
// errCrashStopped. Everything else (TempDir, Logf, Name) is the real test's.
type problemRecorder struct {
	testing.TB
	mu       sync.Mutex
	problems []string
}

func (r *problemRecorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.problems = append(r.problems, s)
}

func (r *problemRecorder) taken() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.problems
}

func (r *problemRecorder) Helper()                           {}
func (r *problemRecorder) Error(args ...any)                 { r.add(fmt.Sprint(args...)) }
func (r *problemRecorder) Errorf(format string, args ...any) { r.add(fmt.Sprintf(format, args...)) }
func (r *problemRecorder) Fail()                             { r.add("failed") }
func (r *problemRecorder) Failed() bool                      { return len(r.taken()) > 0 }
func (r *problemRecorder) FailNow()                          { r.add("failed"); panic(errCrashStopped) }
func (r *problemRecorder) Fatal(args ...any)                 { r.Error(args...); panic(errCrashStopped) }
func (r *problemRecorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	panic(errCrashStopped)
}

// crashParent is RunCrash in the parent process.
func crashParent(t testing.TB, b Backend, rounds int) {
	if testing.Short() {
		rounds = max(rounds/5, 3)
	}
	dir := t.TempDir()
	led := newLedger()
	kills := 0
	for round := range rounds {
		acked := runChild(t, dir, round, 1+rand.IntN(40))
		for _, line := range acked {
			if err := led.apply(line); err != nil {
				t.Fatalf("round %d: child printed %q: %v", round, line, err)
			}
		}
		kills++
		led.check(t, b, dir, round)
		if t.Failed() {
			t.Fatalf("round %d: acknowledged writes lost after kill -9 (%d acks so far)", round, led.acks)
		}
	}
	CheckIntegrity(t, b, dir)
	t.Logf("%s: %d kills, %d acknowledged writes, all present", b.Name, kills, led.acks)
}

// runChild starts the child on dir, lets it acknowledge after writes, kills
// it with SIGKILL, and returns every complete line it printed.
func runChild(t testing.TB, dir string, round, after int) []string {
	t.Helper()
	var parts []string
	for p := range strings.SplitSeq(t.Name(), "/") {
		parts = append(parts, "^"+regexp.QuoteMeta(p)+"$")
	}
	cmd := exec.Command(os.Args[0], "-test.run="+strings.Join(parts, "/"), "-test.count=1")
	cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, crashRoundEnv+"="+strconv.Itoa(round))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start crash child: %v", err)
	}
	sc := bufio.NewScanner(out)
	var lines []string
	killed := false
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "ack ") {
			continue // test framework output
		}
		lines = append(lines, line)
		if !killed && len(lines) >= after {
			// A random extra delay moves the kill off the ack boundary,
			// into the middle of the next write.
			if d := rand.IntN(3); d > 0 {
				time.Sleep(time.Duration(rand.IntN(1500)) * time.Microsecond)
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatalf("kill child: %v", err)
			}
			killed = true
		}
	}
	// Lines already in the pipe when the child died were acknowledged:
	// the scanner drains them; a torn last line is dropped by the prefix
	// check in apply.
	_ = cmd.Wait()
	if !killed {
		t.Fatalf("crash child exited by itself after %d acks; see its stderr above", len(lines))
	}
	return lines
}

// crashChild writes to dir until killed: one goroutine per crash key, each
// committing one change at a time, and one saving sessions.
func crashChild(t *testing.T, b Backend, dir string, round int) {
	go func() {
		time.Sleep(crashChildDeadline)
		os.Exit(3)
	}()
	c := &crashWriter{o: b.Open(t, dir), round: round}
	var wg sync.WaitGroup
	for gi, k := range crashKeys {
		wg.Go(func() { c.writeGraph(gi, k) })
	}
	wg.Go(c.writeSessions)
	wg.Wait()
}

// crashWriter is the child of a crash round: it writes until it is killed,
// acknowledging each durable write on stdout.
type crashWriter struct {
	o     Opened
	round int
	mu    sync.Mutex // one ack at a time
}

// ack reports a durable write. One write per line: a line in the pipe is
// whole or absent.
func (c *crashWriter) ack(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := fmt.Fprintf(os.Stdout, "ack "+format+"\n", args...); err != nil {
		os.Exit(4)
	}
}

func crashFail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "crash child: "+format+"\n", args...)
	os.Exit(2)
}

// writeGraph commits change after change to the graph k, the gi-th of
// crashKeys, acknowledging each.
func (c *crashWriter) writeGraph(gi int, k domain.GraphKey) {
	ctx := context.Background()
	d, err := c.o.Graphs.Load(ctx, k)
	if err != nil {
		crashFail("load %s: %v", k, err)
	}
	g, _ := domain.Restore(k, d, domain.RestoreOptions{})
	hr, logs := c.o.Graphs.(ports.HistoryRepository)
	for i := 0; ; i++ {
		at := domain.Stamp{Now: t0 + domain.Micros(c.round*100000+i), Session: "crash"}
		g.StartChangeLog()
		op, id := c.change(g, i, at)
		es := g.TakeChangeLog(at, domain.HistoryPut)
		if logs {
			err = hr.CommitLogged(ctx, k, g, g.Pending(), domain.HistoryBatch{SeqBefore: g.DurableSeq(), SeqAfter: g.Seq(), Entries: es})
		} else {
			err = c.o.Graphs.Commit(ctx, k, g, g.Pending())
		}
		if err != nil {
			crashFail("commit %s: %v", k, err)
		}
		g.Checkpoint()
		c.ack("%d %d %s %s", gi, i, op, id)
		// A backend that journals its commits folds the journal now and
		// then, as the maintenance tick does, so that kills land in
		// checkpoints too.
		if cp, ok := c.o.Graphs.(ports.GraphCheckpointer); ok && i%7 == 6 {
			if err := cp.Checkpoint(ctx, k, g); err != nil {
				crashFail("checkpoint %s: %v", k, err)
			}
		}
	}
}

// change makes the i-th change of the round to g: a delete of an earlier
// node, or a put of a node linked to the one put before it. It returns the
// op ("put" or "del") and the node's id.
func (c *crashWriter) change(g *domain.Graph, i int, at domain.Stamp) (op, id string) {
	if isDeleteOp(i) {
		id = crashID(c.round, i-3)
		if _, err := g.DeleteNode(id, at); err != nil {
			crashFail("delete %s: %v", id, err)
		}
		return "del", id
	}
	id = crashID(c.round, i)
	if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: strings.Repeat("crash test payload ", 1+i%5)}, at); err != nil {
		crashFail("put %s: %v", id, err)
	}
	if i > 0 && !isDeleteOp(i-1) {
		if _, err := g.PutEdge(domain.EdgeInput{From: crashID(c.round, i-1), To: id, Rel: "next"}, at); err != nil {
			crashFail("edge: %v", err)
		}
	}
	return "put", id
}

// writeSessions saves one session over and over, acknowledging each save.
func (c *crashWriter) writeSessions() {
	ctx := context.Background()
	for i := 1; ; i++ {
		s := ports.Session{ID: "c0ffee00c0ffee00", Start: t0, LastActivity: t0 + domain.Micros(i),
			OpCount: int64(c.round*1_000_000 + i), Synced: map[domain.GraphKey]uint64{domain.UserGraph: uint64(i)}}
		if err := c.o.Sessions.UpdateSessions(ctx, ports.PutSessions(map[string]ports.Session{s.ID: s})); err != nil {
			crashFail("save sessions: %v", err)
		}
		c.ack("s %d", s.OpCount)
		if cp, ok := c.o.Sessions.(ports.SessionCheckpointer); ok && i%5 == 0 {
			if err := cp.CheckpointSessions(ctx); err != nil {
				crashFail("checkpoint sessions: %v", err)
			}
		}
	}
}

func crashID(round, i int) string { return fmt.Sprintf("r%d-n%d", round, i) }

// isDeleteOp says which steps of a child delete a node (the one put three
// steps earlier) instead of putting one, so the parent knows what the step
// after the last acknowledged one may have done.
func isDeleteOp(i int) bool { return i%4 == 3 }

// ledger is what the parent knows was acknowledged.
type ledger struct {
	acks     int
	present  []map[string]bool // per crash key: acknowledged live nodes
	deleted  []map[string]bool
	lastStep []int // per crash key: last acknowledged step in the current round; -1 none
	sessOps  int64
}

func newLedger() *ledger {
	l := &ledger{}
	for range crashKeys {
		l.present = append(l.present, map[string]bool{})
		l.deleted = append(l.deleted, map[string]bool{})
		l.lastStep = append(l.lastStep, -1)
	}
	return l
}

func (l *ledger) apply(line string) error {
	f := strings.Fields(line)
	l.acks++
	if len(f) == 3 && f[1] == "s" {
		n, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return err
		}
		l.sessOps = max(l.sessOps, n)
		return nil
	}
	if len(f) != 5 {
		return fmt.Errorf("malformed ack")
	}
	gi, err := strconv.Atoi(f[1])
	if err != nil || gi < 0 || gi >= len(crashKeys) {
		return fmt.Errorf("bad graph index")
	}
	step, err := strconv.Atoi(f[2])
	if err != nil {
		return err
	}
	l.lastStep[gi] = step
	switch f[3] {
	case "put":
		l.present[gi][f[4]] = true
	case "del":
		delete(l.present[gi], f[4])
		l.deleted[gi][f[4]] = true
	default:
		return fmt.Errorf("bad op")
	}
	return nil
}

// check reopens dir and compares it with the ledger. The step after the
// last acknowledged one may or may not have reached the disk; when it is a
// deletion, its node may be gone.
func (l *ledger) check(t testing.TB, b Backend, dir string, round int) {
	t.Helper()
	o := b.Open(t, dir)
	defer func() {
		if err := o.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}()
	ctx := context.Background()
	for gi, k := range crashKeys {
		d, err := o.Graphs.Load(ctx, k)
		if err != nil {
			t.Errorf("round %d: load %s after kill: %v", round, k, err)
			continue
		}
		checkData(t, k, d)
		live := map[string]bool{}
		for _, n := range d.Nodes {
			live[n.ID] = true
		}
		mayGo := ""
		if next := l.lastStep[gi] + 1; isDeleteOp(next) {
			mayGo = crashID(round, next-3)
		}
		// An unacknowledged deletion that reached the disk is durable from
		// now on: later rounds must neither expect the node nor see it back.
		if mayGo != "" && !live[mayGo] && l.present[gi][mayGo] {
			delete(l.present[gi], mayGo)
			l.deleted[gi][mayGo] = true
		}
		for id := range l.present[gi] {
			if !live[id] {
				t.Errorf("round %d: %s: acknowledged node %q lost", round, k, id)
			}
		}
		for id := range l.deleted[gi] {
			if live[id] {
				t.Errorf("round %d: %s: acknowledged deletion of %q undone", round, k, id)
			}
		}
		checkLog(t, o, k, d, round)
		// The next round numbers its steps from 0 again.
		l.lastStep[gi] = -1
	}
	ss, err := o.Sessions.LoadSessions(ctx)
	if err != nil {
		t.Errorf("round %d: load sessions after kill: %v", round, err)
	} else if l.sessOps > 0 && ss["c0ffee00c0ffee00"].OpCount < l.sessOps {
		t.Errorf("round %d: sessions: op count %d, acknowledged %d", round, ss["c0ffee00c0ffee00"].OpCount, l.sessOps)
	}
}

// checkLog checks, for a backend that keeps a change log, that the log and
// the graph it survived a kill with agree: every node holds the version the
// log's last entry of it left, every node the log last saw deleted is gone,
// and every node has its entries (no change without its entry, no entry
// without its change).
func checkLog(t testing.TB, o Opened, k domain.GraphKey, d domain.GraphData, round int) {
	t.Helper()
	hr, ok := o.Graphs.(ports.HistoryRepository)
	if !ok {
		return
	}
	es, err := hr.History(context.Background(), k, ports.HistoryQuery{})
	if err != nil {
		t.Errorf("round %d: history of %s after kill: %v", round, k, err)
		return
	}
	last := map[string]domain.HistoryEntry{} // newest first: the first seen is the last
	for _, e := range es {
		if _, seen := last[e.ID]; !seen && !e.Edge && !e.Graph && e.Op != domain.HistoryMove {
			last[e.ID] = e
		}
	}
	live := map[string]domain.Node{}
	for _, n := range d.Nodes {
		live[n.ID] = n
	}
	for id, e := range last {
		n, ok := live[id]
		switch {
		case e.Op == domain.HistoryDelete && ok:
			t.Errorf("round %d: %s: the log's last entry of %q deletes it (seq %d), yet it is stored", round, k, id, e.Seq)
		case e.Op == domain.HistoryPut && !ok:
			t.Errorf("round %d: %s: the log's last entry of %q puts it (seq %d), yet it is not stored", round, k, id, e.Seq)
		case e.Op == domain.HistoryPut && n.Version.Seq != e.AfterNode.Version.Seq:
			t.Errorf("round %d: %s: %q is stored at seq %d, the log's last entry puts seq %d", round, k, id, n.Version.Seq, e.AfterNode.Version.Seq)
		}
	}
	for id := range live {
		if _, ok := last[id]; !ok && strings.HasPrefix(id, "r") {
			t.Errorf("round %d: %s: node %q is stored but the log holds no entry of it", round, k, id)
		}
	}
}
