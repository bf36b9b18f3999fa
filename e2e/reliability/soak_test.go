package reliability

// The soak (issue 8): 32 sessions, each its own MCP client, make mixed
// calls for a while against a -race build of the server, on each backend,
// with two WebSocket listeners and REST readers alongside. It passes when
//
//   - no call failed except as provoked (conflicts on shared nodes written
//     with expected_version, and reading a shared node not yet created),
//     every read by id returned what its session last wrote, and the server
//     logged no error, no panic and no data race;
//   - the files equal the served state: every graph exported through the
//     API after the load, the server stopped (exit 0), and the same graphs
//     exported from the files by `kg export` with no server running, give
//     the same documents;
//   - memory, goroutines and open files stay flat: measured with the
//     server idle after a warm-up and again idle after the load, the end
//     stays within a generous bound of the start.
//
// Goroutines are counted from the Go runtime's scheduler trace
// (GODEBUG=schedtrace,scheddetail: one line per goroutine), which needs no
// change to the server; RSS and threads come from /proc/<pid>/status, open
// files from /proc/<pid>/fd.
//
// It runs only when -soak gives its length (make soak: 60s).

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
)

var (
	soakFor  = flag.Duration("soak", 0, "length of TestSoak's load on each backend; 0 skips it (make soak: 60s)")
	soakSeed = flag.Uint64("soak.seed", 0, "seed of TestSoak's choices; 0: one from the clock")
)

const (
	soakSessions = 32
	soakProjects = 4
	soakIDs      = 20 // own node ids per session and graph
	soakShared   = 3  // shared nodes per project, written with expected_version
	soakTick     = 2  // seconds between maintenance ticks
	soakWarmUp   = 10 * time.Second
)

// Bounds of growth between the idle server after the warm-up and the idle
// server after the load. They are generous: the race detector's memory
// grows with what the program allocates, and the graphs grow during the
// load; a leak per request or per connection exceeds them many times over.
const (
	maxRSSGrowth       = 2.0 // times the start
	maxRSSSlackMiB     = 128
	maxGoroutineGrowth = 24
	maxFDGrowth        = 8
)

func TestSoak(t *testing.T) {
	if *soakFor <= 0 {
		t.Skip("the soak runs with -soak=DURATION (make soak)")
	}
	seed := *soakSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("soak: %d sessions for %v per backend, seed %d", soakSessions, *soakFor, seed)
	for _, backend := range []string{"json", "bolt"} {
		t.Run(backend, func(t *testing.T) { runSoak(t, backend, seed) })
	}
}

// ---- process figures ----

// usage is what the soak measures of the server process.
type usage struct {
	rssKiB     int
	threads    int
	fds        int
	goroutines int
}

func (u usage) String() string {
	return fmt.Sprintf("RSS %.1f MiB, %d goroutines, %d open files, %d threads",
		float64(u.rssKiB)/1024, u.goroutines, u.fds, u.threads)
}

// measure reads the server's RSS and threads from /proc/<pid>/status, its
// open files from /proc/<pid>/fd, and its goroutines from the first
// scheduler trace that begins after the call.
func (s *server) measure(t testing.TB) usage {
	t.Helper()
	var u usage
	dumps := s.log.schedDumps()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.pid()))
	if err != nil {
		t.Fatalf("read the server's status: %v", err)
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		k, v, _ := strings.Cut(line, ":")
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		switch k {
		case "VmRSS":
			u.rssKiB, _ = strconv.Atoi(f[0])
		case "Threads":
			u.threads, _ = strconv.Atoi(f[0])
		}
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", s.pid()))
	if err != nil {
		t.Fatalf("list the server's open files: %v", err)
	}
	u.fds = len(fds)
	guard := time.Now().Add(time.Minute)
	for s.log.schedDumps() < dumps+2 { // the next dump whole
		if time.Now().After(guard) {
			t.Fatalf("no scheduler trace from the server; was it started with GODEBUG=schedtrace?")
		}
		time.Sleep(50 * time.Millisecond)
	}
	u.goroutines = s.log.goroutines()
	return u
}

// ---- the load ----

// soakCounts are the figures of a soak's load.
type soakCounts struct {
	calls, rest, wsFrames             atomic.Int64
	conflicts, notFound               atomic.Int64 // provoked on purpose
	mu                                sync.Mutex
	unexpected                        []string
	writes, reads, searches, progress atomic.Int64
}

func (c *soakCounts) fail(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.unexpected) < 50 {
		c.unexpected = append(c.unexpected, fmt.Sprintf(format, args...))
	}
}

// soaker is one session of the soak.
type soaker struct {
	n       int
	project string
	session string
	rng     *rand.Rand
	own     [2]map[string]content // the session's own nodes, per graph
}

// step makes one call, chosen at random, and checks its answer.
func (s *soaker) step(ctx context.Context, c *client.Client, srv *server, cnt *soakCounts) {
	g := s.rng.IntN(2)
	level := levels[g]
	own := s.own[g]
	id := fmt.Sprintf("s%d-n%d", s.n, s.rng.IntN(soakIDs))
	tool := func(name string, args map[string]any, provoked ...string) (result, bool) {
		cnt.calls.Add(1)
		r, err := callTool(ctx, c, name, args)
		if err != nil {
			cnt.fail("session %d: %s %v: %v", s.n, name, args, err)
			return r, false
		}
		if r.isError {
			for _, p := range provoked {
				if strings.Contains(r.text, p) {
					return r, false
				}
			}
			cnt.fail("session %d: %s %v: %s", s.n, name, args, r.text)
			return r, false
		}
		return r, true
	}
	base := map[string]any{"session_id": s.session, "level": level}
	with := func(kv ...any) map[string]any {
		a := maps.Clone(base)
		for i := 0; i < len(kv); i += 2 {
			a[kv[i].(string)] = kv[i+1]
		}
		return a
	}
	switch p := s.rng.IntN(100); {
	case p < 22:
		gist := fmt.Sprintf("%s: soak content %d of session %d", id, s.rng.IntN(1_000_000), s.n)
		if _, ok := tool("kg_put_node", with("id", id, "gist", gist, "notes", []any{"why " + gist})); ok {
			own[id] = content{gist: gist, notes: []string{"why " + gist}}
			cnt.writes.Add(1)
		}
	case p < 32:
		to := fmt.Sprintf("s%d-n%d", s.n, s.rng.IntN(soakIDs))
		if s.rng.IntN(2) == 0 {
			to = fmt.Sprintf("src/s%d/f%d.go", s.n, s.rng.IntN(5))
		}
		if _, ok := tool("kg_put_edge", with("from", id, "to", to, "rel", "relates", "notes", []any{"soak"})); ok {
			cnt.writes.Add(1)
		}
	case p < 36 && len(own) > 0:
		del := slices.Sorted(maps.Keys(own))[s.rng.IntN(len(own))]
		if _, ok := tool("kg_delete_node", with("id", del)); ok {
			delete(own, del)
			cnt.writes.Add(1)
		}
	case p < 39:
		// A missing edge is answered "Edge not found", not an error.
		to := fmt.Sprintf("s%d-n%d", s.n, s.rng.IntN(soakIDs))
		if _, ok := tool("kg_delete_edge", with("from", id, "to", to, "rel", "relates")); ok {
			cnt.writes.Add(1)
		}
	case p < 50 && len(own) > 0:
		read := slices.Sorted(maps.Keys(own))[s.rng.IntN(len(own))]
		if r, ok := tool("kg_read", with("id", read)); ok {
			n := nodeOf(r.text)
			if n.gist != own[read].gist || !slices.Equal(n.notes, own[read].notes) {
				cnt.fail("session %d: read %s: %v, want %q", s.n, read, n, own[read].gist)
			}
			cnt.reads.Add(1)
		}
	case p < 57:
		if _, ok := tool("kg_read", map[string]any{"session_id": s.session}); ok {
			cnt.reads.Add(1)
		}
	case p < 64:
		if _, ok := tool("kg_search", map[string]any{"session_id": s.session, "query": fmt.Sprintf("soak content session %d", s.rng.IntN(soakSessions))}); ok {
			cnt.searches.Add(1)
		}
	case p < 69:
		tool("kg_sync", map[string]any{"session_id": s.session})
	case p < 74:
		task := fmt.Sprintf("task-%d", s.n)
		if s.rng.IntN(2) == 0 {
			tool("kg_progress", with("task_id", task, "state", map[string]any{"step": s.rng.IntN(100)}))
		} else {
			tool("kg_progress", with("task_id", task))
		}
		cnt.progress.Add(1)
	case p < 86:
		// A shared node, written with the version just read: sessions of
		// one project race for it, and the losers get a conflict.
		shared := fmt.Sprintf("shared-%d", s.rng.IntN(soakShared))
		args := map[string]any{"session_id": s.session, "level": "project", "id": shared}
		r, ok := tool("kg_read", args, "not found")
		version := 0
		if !ok {
			if !strings.Contains(r.text, "not found") {
				return
			}
			cnt.notFound.Add(1)
		} else {
			version = nodeOf(r.text).version
		}
		args = maps.Clone(args)
		args["gist"] = fmt.Sprintf("shared, written by session %d over version %d", s.n, version)
		args["expected_version"] = version
		if _, ok := tool("kg_put_node", args, "expected_version"); ok {
			cnt.writes.Add(1)
		} else {
			cnt.conflicts.Add(1)
		}
	default:
		paths := []string{
			"/api/graph/read?session_id=" + s.session,
			"/api/search?q=soak&limit=20&session_id=" + s.session,
			"/api/sessions/" + s.session + "/stats",
			"/api/projects",
			"/api/export?level=project&session_id=" + s.session,
		}
		path := paths[s.rng.IntN(len(paths))]
		cnt.rest.Add(1)
		var body any
		if code, err := srv.get(path, &body); err != nil || code != http.StatusOK {
			cnt.fail("session %d: GET %s: %d %v", s.n, path, code, err)
		}
	}
}

// soakLoad runs every session for d, with two WebSocket listeners, each
// session on a client of its own, closed at the end.
func soakLoad(t *testing.T, srv *server, sessions []*soaker, d time.Duration, cnt *soakCounts) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d+2*time.Minute)
	defer cancel()
	stop := time.Now().Add(d)
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Go(func() {
			c, err := dialMCP(ctx, srv.addr, "kg-soak")
			if err != nil {
				cnt.fail("session %d: connect: %v", i, err)
				return
			}
			defer c.Close()
			if s.session == "" {
				r, err := callTool(ctx, c, "kg_read", map[string]any{"cwd": s.project})
				if err != nil || r.isError {
					cnt.fail("session %d: start: %v %s", i, err, r.text)
					return
				}
				s.session = sessionOf(r.text)
			}
			for time.Now().Before(stop) {
				s.step(ctx, c, srv, cnt)
			}
		})
	}
	wsCtx, wsCancel := context.WithCancel(ctx)
	var wsWG sync.WaitGroup
	for i := range 2 {
		q := ""
		if i == 1 {
			q = "?project_path=" + url.QueryEscape(sessions[0].project)
		}
		conn, _, err := websocket.Dial(ctx, "ws://"+srv.addr+"/ws"+q, nil)
		if err != nil {
			cnt.fail("websocket %s: %v", q, err)
			continue
		}
		conn.SetReadLimit(1 << 20)
		wsWG.Go(func() {
			defer conn.CloseNow()
			for {
				if _, _, err := conn.Read(wsCtx); err != nil {
					if wsCtx.Err() == nil {
						cnt.fail("websocket %s: %v", q, err)
					}
					return
				}
				cnt.wsFrames.Add(1)
			}
		})
	}
	wg.Wait()
	wsCancel()
	wsWG.Wait()
}

func runSoak(t *testing.T, backend string, seed uint64) {
	root := filepath.Join(t.TempDir(), "root")
	var projects []string
	for i := range soakProjects {
		projects = append(projects, projectDir(t, fmt.Sprintf("soak-%d", i)))
	}
	sessions := make([]*soaker, soakSessions)
	for i := range sessions {
		sessions[i] = &soaker{n: i, project: projects[i%soakProjects], rng: rand.New(rand.NewPCG(seed, uint64(i))),
			own: [2]map[string]content{{}, {}}}
	}
	flags := []string{"--max-tokens", "2000", "--grace-days", "0", "--maintenance-interval", strconv.Itoa(soakTick), "--log-level", "debug"}
	cmd := exec.Command(kgBinary(t), serveArgs(backend, root, flags...)...)
	srv := startServerCmd(t, backend, root, cmd, "GODEBUG=schedtrace=2000,scheddetail=1")

	// Warm up, then measure the idle server: the start.
	var warm soakCounts
	soakLoad(t, srv, sessions, soakWarmUp, &warm)
	srv.waitTicks(2)
	start := srv.measure(t)

	var cnt soakCounts
	began := time.Now()
	soakLoad(t, srv, sessions, *soakFor, &cnt)
	took := time.Since(began)
	srv.waitTicks(2) // read stamps and compaction settled and saved
	end := srv.measure(t)

	// The served state, then the files.
	served := map[string][]byte{"": srv.exportRaw("")}
	for _, p := range projects {
		served[p] = srv.exportRaw(p)
	}
	srv.stop()
	for key, doc := range served {
		if diff := cmp.Diff(exportDoc(t, doc), exportDoc(t, exportOffline(t, backend, root, key))); diff != "" {
			t.Errorf("%s graph %q: the files differ from what the server served (-served +files):\n%s", backend, key, diff)
		}
	}

	if problems := append(warm.unexpected, cnt.unexpected...); len(problems) > 0 {
		t.Errorf("%d unexpected failures, the first:\n%s", len(problems), strings.Join(problems, "\n"))
	}
	if n := srv.log.level("ERROR"); n > 0 {
		t.Errorf("the server logged %d errors:\n%s", n, strings.Join(srv.log.warnings(), "\n"))
	}
	for _, line := range srv.log.rawLines() {
		if strings.Contains(line, "DATA RACE") || strings.HasPrefix(line, "panic:") || strings.HasPrefix(line, "fatal error:") {
			t.Errorf("the server's output holds %q:\n%s", line, strings.Join(srv.log.rawLines(), "\n"))
			break
		}
	}
	t.Logf("soak (%s): %d sessions for %v: %d tool calls (%d writes, %d reads, %d searches, %d progress), %d REST reads, "+
		"%d WebSocket frames; %d errors other than the %d conflicts and %d reads of shared nodes not yet created that were provoked",
		backend, soakSessions, took.Round(time.Second), cnt.calls.Load(), cnt.writes.Load(), cnt.reads.Load(), cnt.searches.Load(),
		cnt.progress.Load(), cnt.rest.Load(), cnt.wsFrames.Load(), len(cnt.unexpected), cnt.conflicts.Load(), cnt.notFound.Load())
	t.Logf("soak (%s): start (idle after a %v warm-up): %v", backend, soakWarmUp, start)
	t.Logf("soak (%s): end (idle after the load):           %v", backend, end)
	if float64(end.rssKiB) > maxRSSGrowth*float64(start.rssKiB)+maxRSSSlackMiB*1024 {
		t.Errorf("RSS grew from %d KiB to %d KiB: beyond %.1f× + %d MiB", start.rssKiB, end.rssKiB, maxRSSGrowth, maxRSSSlackMiB)
	}
	if end.goroutines > start.goroutines+maxGoroutineGrowth {
		t.Errorf("goroutines grew from %d to %d: beyond +%d", start.goroutines, end.goroutines, maxGoroutineGrowth)
	}
	if end.fds > start.fds+maxFDGrowth {
		t.Errorf("open files grew from %d to %d: beyond +%d", start.fds, end.fds, maxFDGrowth)
	}
}

// waitTicks waits until n more maintenance ticks have run (the server logs
// each at debug level).
func (s *server) waitTicks(n int) {
	s.t.Helper()
	s.waitLog("maintenance tick done", s.log.count("maintenance tick done")+n)
}

// exportRaw returns the body of GET /api/export for the user graph
// (project "") or a project's graph.
func (s *server) exportRaw(project string) []byte {
	s.t.Helper()
	resp, err := httpClient.Get("http://" + s.addr + "/api/export?" + exportQuery(project))
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil || resp.StatusCode != http.StatusOK {
		s.t.Fatalf("GET /api/export?%s: %s %v %s", exportQuery(project), resp.Status, err, b.Bytes())
	}
	return b.Bytes()
}

// exportOffline runs `kg export` on root with no server running: the
// graph as the files hold it.
func exportOffline(t *testing.T, backend, root, project string) []byte {
	t.Helper()
	args := []string{"export", "--storage", backend, "--storage-root", root, "--level", "user"}
	if project != "" {
		args = []string{"export", "--storage", backend, "--storage-root", root, "--level", "project", "--project", project}
	}
	cmd := exec.Command(kgBinary(t), args...)
	cmd.Env = childEnv(t)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("kg %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.Bytes()
}

// exportDoc decodes an export document for comparison, without the time
// it was taken.
func exportDoc(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("export document: %v: %.200s", err, raw)
	}
	delete(doc, "exported_ts")
	return doc
}

// ---- the scheduler trace ----

var schedG = regexp.MustCompile(`^\s+G\d+: status=(\d+)`)

// gDead is the runtime's status of a goroutine that has ended (runtime2.go).
const gDead = 6

// sched counts the goroutines of each scheduler trace a server writes
// with GODEBUG=schedtrace=…,scheddetail=1: a "SCHED" line, then one line
// per goroutine.
type sched struct {
	dumps   int // begun
	counted int // live goroutines in the dump being read
	last    int // live goroutines in the last whole dump
}

// schedLine takes a line of the trace; it reports whether the line was
// one.
func (s *sched) schedLine(line string) bool {
	if strings.HasPrefix(line, "SCHED ") {
		if s.dumps > 0 {
			s.last = s.counted
		}
		s.dumps++
		s.counted = 0
		return true
	}
	if m := schedG.FindStringSubmatch(line); m != nil {
		if st, _ := strconv.Atoi(m[1]); st != gDead {
			s.counted++
		}
		return true
	}
	// The P and M lines of the trace.
	return strings.HasPrefix(line, "  P") || strings.HasPrefix(line, "  M")
}

// schedDumps is how many scheduler traces the server began.
func (l *logSink) schedDumps() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sched.dumps
}

// goroutines is the number of live goroutines in the last whole trace.
func (l *logSink) goroutines() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sched.last
}
