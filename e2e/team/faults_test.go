package team

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/adapters/events"
	khttp "github.com/kg-memory/kg/adapters/http"
	"github.com/kg-memory/kg/adapters/paths"
	"github.com/kg-memory/kg/adapters/storage/postgres"
	"github.com/kg-memory/kg/adapters/storage/postgres/pgtest"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/app/hooks"
)

// TestListenerKilled: B's listener connection is killed
// (pg_terminate_backend), and kept from coming back while A writes, so that
// B hears nothing of those writes; once it is back, B's /ws subscriber has
// every write once, in order — the listener listens, then catches up what it
// missed. The poll is set to a minute, so only the catch-up after the
// reconnection can bring them.
func TestListenerKilled(t *testing.T) {
	dbURL, ins := team(t, 2, options{poll: time.Minute})
	a, b := ins[0], ins[1]
	const project, n = "example.com/team/listener-killed", 40
	b.graph(project)
	s := b.dial("project_path=" + url.QueryEscape(project))
	put := func(i int) {
		t.Helper()
		if code, _ := a.putNode(map[string]any{"level": "project", "project_path": project, "id": fmt.Sprintf("k-%02d", i), "gist": "k"}); code != 200 {
			t.Fatalf("put %d: %d", i, code)
		}
	}
	for i := range n / 2 {
		put(i)
	}
	conn := db(t, dbURL)
	kill := func() int {
		var killed int
		err := conn.QueryRow(context.Background(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE application_name = $1`, "kg "+b.name+" listener").Scan(&killed)
		if err != nil {
			t.Errorf("kill the listener of %s: %v", b.name, err)
		}
		return killed
	}
	if kill() != 1 {
		t.Fatalf("%s has no listener connection to kill", b.name)
	}
	// Kill it again whenever it is back, until A is done.
	done := make(chan struct{})
	killer := make(chan int)
	go func() {
		kills := 1
		for {
			select {
			case <-done:
				killer <- kills
				return
			case <-time.After(2 * time.Millisecond):
				kills += kill()
			}
		}
	}()
	for i := n / 2; i < n; i++ {
		put(i)
	}
	close(done)
	t.Logf("the listener was killed %d times", <-killer)
	if !s.waitFor(15*time.Second, func(fs []map[string]any) bool { return len(eventFrames(fs)) >= n }) {
		t.Fatalf("b's socket heard %d of %d events after its listener was killed", len(s.events()), n)
	}
	time.Sleep(300 * time.Millisecond)
	checkEvents(t, s.events(), n)
	if !b.store.Listener().Up {
		t.Error("b's listener is not up")
	}
}

// TestLockHeldPastTimeout: a server that holds a graph's lock longer than
// lock_timeout (a pause mid-batch) makes other servers' writes fail as
// unavailable within about the timeout — never hang — and lose nothing;
// once it lets go, writes go through.
func TestLockHeldPastTimeout(t *testing.T) {
	dbURL, ins := team(t, 2, options{lockTimeout: 300 * time.Millisecond})
	a, b := ins[0], ins[1]
	const project = "example.com/team/lock-timeout"
	if code, _ := a.putNode(map[string]any{"level": "project", "project_path": project, "id": "before", "gist": "x"}); code != 200 {
		t.Fatal("first put")
	}
	ctx := context.Background()
	holder := db(t, dbURL)
	tx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "SELECT 1 FROM graphs WHERE project_key = $1 FOR UPDATE", project); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	code, _ := b.putNode(map[string]any{"level": "project", "project_path": project, "id": "blocked", "gist": "x"})
	took := time.Since(start)
	if code != http.StatusServiceUnavailable {
		t.Errorf("a write while another holds the lock: %d, want 503", code)
	}
	if took > 5*time.Second {
		t.Errorf("the refused write took %v; the lock timeout is 300ms", took)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	for _, in := range ins {
		if code, _ := in.putNode(map[string]any{"level": "project", "project_path": project, "id": "after-" + in.name, "gist": "x"}); code != 200 {
			t.Errorf("write on %s after the lock was let go: %d", in.name, code)
		}
	}
	got := a.graph(project)
	for _, id := range []string{"before", "after-i0", "after-i1"} {
		if _, ok := got[id]; !ok {
			t.Errorf("node %s missing", id)
		}
	}
	if _, ok := got["blocked"]; ok {
		t.Error("the refused write was stored")
	}
}

// writers runs n goroutines that write nodes to project through ins, round
// robin, each retrying a refused write, until stop is closed; it returns
// the ids acknowledged.
func writers(t *testing.T, ins []*instance, project string, n int, stop <-chan struct{}, acks *atomic.Int64) func() []string {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var acked []string
	for w := range n {
		wg.Go(func() {
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				in := ins[(w+k)%len(ins)]
				id := fmt.Sprintf("w%d-%d", w, k)
				code, _ := in.putNode(map[string]any{"level": "project", "project_path": project, "id": id, "gist": "written under faults"})
				if code == 200 {
					mu.Lock()
					acked = append(acked, id)
					mu.Unlock()
					acks.Add(1)
				} else {
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
	return func() []string {
		wg.Wait()
		return acked
	}
}

// waitAcks waits until acks reaches n, failing the test after d.
func waitAcks(t *testing.T, acks *atomic.Int64, n int64, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for acks.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d writes acknowledged within %v", acks.Load(), n, d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestDatabaseRestartMidBatch: the database crashes (an immediate stop,
// without a checkpoint) and comes back while two servers write; no
// acknowledged write is lost, and writes resume on both.
func TestDatabaseRestartMidBatch(t *testing.T) {
	c := pgtest.Get(t)
	if !c.Managed() {
		t.Skip("skipped: the database is not started by the tests (KG_TEST_DATABASE_URL), so it cannot be restarted")
	}
	_, ins := team(t, 2, options{})
	const project = "example.com/team/db-restart"
	stop := make(chan struct{})
	var acks atomic.Int64
	wait := writers(t, ins, project, 8, stop, &acks)
	waitAcks(t, &acks, 40, 20*time.Second)
	if err := c.Kill(); err != nil {
		t.Fatal(err)
	}
	var health struct {
		Status   string   `json:"status"`
		Problems []string `json:"problems"`
	}
	// The token was checked within the last 2 s, so /health answers.
	if code, err := ins[0].do("GET", "/health", nil, &health); err != nil || code != 200 || health.Status != "degraded" || len(health.Problems) == 0 ||
		!strings.Contains(health.Problems[0], "database cannot be reached") {
		t.Errorf("/health with the database down: %d %v %+v, want degraded naming the database", code, err, health)
	}
	time.Sleep(200 * time.Millisecond)
	if err := c.Restart(context.Background()); err != nil {
		t.Fatalf("restart the database: %v", err)
	}
	after := acks.Load()
	waitAcks(t, &acks, after+40, 30*time.Second) // writes resume
	close(stop)
	acked := wait()
	for _, in := range ins {
		if missing := missingOf(in.graph(project), acked); missing > 0 {
			t.Errorf("%s: %d of %d acknowledged writes missing after the database restarted", in.name, missing, len(acked))
		}
	}
}

// childEnv names the database a child server of TestServerKilledMidBatch
// serves.
const childEnv = "KG_TEAM_CHILD_DATABASE"

// TestChildServer is a server in a child process: it serves the database
// childEnv names until it is killed, after printing its address.
func TestChildServer(t *testing.T) {
	dbURL := os.Getenv(childEnv)
	if dbURL == "" {
		t.Skip("skipped: runs only as the child of TestServerKilledMidBatch")
	}
	ctx := context.Background()
	store, err := postgres.Open(ctx, dbURL, postgres.Options{Logger: quiet, Instance: "child"})
	if err != nil {
		t.Fatal(err)
	}
	hub := events.New()
	svc, err := app.Open(ctx, app.DefaultConfig(), app.Deps{Graphs: store, Sessions: store, Clock: clock.System{}, Events: hub, Paths: paths.OS{}})
	if err != nil {
		t.Fatal(err)
	}
	go svc.Run(ctx)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("addr http://%s\n", ln.Addr())
	c := clock.System{}
	_ = http.Serve(ln, khttp.NewServer(khttp.Config{Version: "child", Storage: "postgres", Clock: c, Started: c.Now(), Principals: store}, svc, hooks.New(svc), hub, quiet))
}

// TestServerKilledMidBatch: a server is killed with SIGKILL while eight
// writers keep it busy. Every write it acknowledged is in the database, the
// graph is not left locked, and another server reads it all and writes on.
func TestServerKilledMidBatch(t *testing.T) {
	dbURL := pgtest.Database(t)
	setup, err := postgres.Open(context.Background(), dbURL, postgres.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := setup.CreateToken(context.Background(), "tester", "write")
	setup.Close()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildServer$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+dbURL)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "addr "); ok {
				addr <- a
			}
		}
	}()
	var base string
	select {
	case base = <-addr:
	case <-time.After(30 * time.Second):
		t.Fatal("the child server did not start")
	}
	child := &instance{t: t, name: "child", url: base, token: token}
	const project = "example.com/team/killed"
	stop := make(chan struct{})
	var acks atomic.Int64
	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("c%d-%d", w, k)
				code, _ := child.putNodeQuiet(map[string]any{"level": "project", "project_path": project, "id": id, "gist": "x"})
				if code != 200 {
					return // the child is dead
				}
				mu.Lock()
				acked = append(acked, id)
				mu.Unlock()
				acks.Add(1)
			}
		})
	}
	waitAcks(t, &acks, 60, 30*time.Second)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	b := start(t, dbURL, "survivor", options{lockTimeout: 2 * time.Second})
	b.token = token
	got := b.graph(project)
	for _, id := range acked {
		if _, ok := got[id]; !ok {
			t.Errorf("write %s acknowledged by the killed server is missing", id)
		}
	}
	if code, _ := b.putNode(map[string]any{"level": "project", "project_path": project, "id": "after-kill", "gist": "x"}); code != 200 {
		t.Errorf("write after the kill: %d (the graph is still locked?)", code)
	}
	t.Logf("%d writes acknowledged before the kill, all present", len(acked))
}

// TestDatabaseAway: the database is stopped (pg_ctl stop -m fast) and started
// again while two servers take writes (docs/design/team.md#when-the-database-is-away).
// Meanwhile writes fail fast as unavailable; reads, search and the hook
// routes are served from memory to tokens verified before, not to one never
// seen; /health answers without a token with the status alone, degraded
// within 5 s of the stop and ok within 5 s of the start; and no acknowledged
// write is lost.
func TestDatabaseAway(t *testing.T) {
	c := pgtest.Get(t)
	if !c.Managed() {
		t.Skip("skipped: the database is not started by the tests (KG_TEST_DATABASE_URL), so it cannot be stopped")
	}
	_, ins := team(t, 2, options{})
	const project = "example.com/team/db-away"
	unseen := ins[0].as(ins[0].newToken("late", "write")) // never shown to a server before the stop
	stop := make(chan struct{})
	var stopOnce sync.Once
	halt := func() { stopOnce.Do(func() { close(stop) }) }
	var acks atomic.Int64
	wait := writers(t, ins, project, 4, stop, &acks)
	t.Cleanup(func() { halt(); wait() }) // a test that stops early stops its writers first
	waitAcks(t, &acks, 40, 20*time.Second)
	conversation := map[string]any{"session_id": "conv-away", "cwd": project, "prompt": "what was written under faults"}
	for _, in := range ins {
		in.graph(project) // the token is verified and the graph loaded on both
		in.call("POST", "/api/prompt_context", conversation, nil)
	}

	status := func(in *instance) (map[string]any, int) {
		var body map[string]any
		code, err := in.as("").do("GET", "/health", nil, &body)
		if err != nil {
			t.Fatalf("/health without a token on %s: %v", in.name, err)
		}
		return body, code
	}
	untilStatus := func(want string, within time.Duration) {
		t.Helper()
		start := time.Now()
		for _, in := range ins {
			for {
				body, code := status(in)
				if code == 200 && body["status"] == want {
					if len(body) != 1 {
						t.Errorf("/health without a token on %s: %v, want the status alone", in.name, body)
					}
					break
				}
				if time.Since(start) > within {
					t.Fatalf("/health without a token on %s: %d %v, want %s within %v", in.name, code, body, want, within)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
	}
	untilStatus("ok", 5*time.Second)

	if err := c.StopFast(); err != nil {
		t.Fatal(err)
	}
	untilStatus("degraded", 5*time.Second)
	before := acks.Load()
	for _, in := range ins {
		started := time.Now()
		code, _ := in.putNodeQuiet(map[string]any{"level": "project", "project_path": project, "id": "while-away", "gist": "must be refused"})
		if took := time.Since(started); code != 503 || took > 2*time.Second {
			t.Errorf("a write on %s with the database away: %d after %v, want 503 at once", in.name, code, took)
		}
		if got := in.graph(project); len(got) < 40 {
			t.Errorf("a read on %s with the database away: %d nodes, want the %d acknowledged before", in.name, len(got), before)
		}
		var marked struct {
			Stale bool `json:"stale"`
		}
		if code := in.call("GET", "/api/graph/read?project_path="+project, nil, &marked); code != 200 || !marked.Stale {
			t.Errorf("a read on %s with the database away: %d, stale %v; want 200 marked stale", in.name, code, marked.Stale)
		}
		marked.Stale = false
		if code := in.call("GET", "/api/search?q=faults&project_path="+project, nil, &marked); code != 200 || !marked.Stale {
			t.Errorf("a search on %s with the database away: %d, stale %v; want 200 from memory, marked stale", in.name, code, marked.Stale)
		}
		if code := in.call("POST", "/api/prompt_context", conversation, nil); code != 200 {
			t.Errorf("the prompt hook on %s with the database away: %d, want 200 from memory", in.name, code)
		}
		var health struct {
			Status   string   `json:"status"`
			Problems []string `json:"problems"`
		}
		if code := in.call("GET", "/health", nil, &health); code != 200 || health.Status != "degraded" || len(health.Problems) == 0 {
			t.Errorf("/health with a token on %s: %d %+v, want degraded with the problem named", in.name, code, health)
		}
	}
	if code, _ := unseen.do("GET", "/api/graph/read?project_path="+project, nil, nil); code != 503 {
		t.Errorf("a read with a token never verified, the database away: %d, want 503", code)
	}

	if err := c.Restart(context.Background()); err != nil {
		t.Fatalf("start the database again: %v", err)
	}
	untilStatus("ok", 5*time.Second)
	for _, in := range ins {
		var marked map[string]any
		if code := in.call("GET", "/api/graph/read?project_path="+project, nil, &marked); code != 200 || marked["stale"] != nil {
			t.Errorf("a read on %s with the database back: %d, stale %v; want no mark", in.name, code, marked["stale"])
		}
	}
	after := acks.Load()
	waitAcks(t, &acks, after+40, 30*time.Second) // writes resume
	halt()
	acked := wait()
	for _, in := range ins {
		got := in.graph(project)
		if missing := missingOf(got, acked); missing > 0 {
			t.Errorf("%s: %d of %d acknowledged writes missing after the database came back", in.name, missing, len(acked))
		}
		if _, ok := got["while-away"]; ok {
			t.Errorf("%s: the write refused while the database was away is stored", in.name)
		}
	}
}

// missingOf counts the acknowledged ids the graph read does not hold.
func missingOf(got map[string]map[string]any, acked []string) int {
	missing := 0
	for _, id := range acked {
		if _, ok := got[id]; !ok {
			missing++
		}
	}
	return missing
}
