package reliability

// The harness every suite of the package shares: the kg binary, a server
// run as a child process on a free port, its log, its REST and MCP
// surfaces, and the offline checks of the files it leaves.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	bbolt "go.etcd.io/bbolt"
)

var kgFlag = flag.String("kg", "", "the kg binary to run; empty: build ./cmd/kg with -race once per run")

var (
	binOnce sync.Once
	binPath string
	binDir  string
	binErr  error
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// kgBinary returns the binary under test: the one -kg names, or ./cmd/kg
// built with the race detector, once per run of the package.
func kgBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		if *kgFlag != "" {
			binPath, binErr = filepath.Abs(*kgFlag)
			return
		}
		if binDir, binErr = os.MkdirTemp("", "kg-reliability-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "kg")
		out, err := exec.Command("go", "build", "-race", "-o", binPath, "github.com/kg-memory/kg/cmd/kg").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build -race ./cmd/kg: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// childEnv is the environment of a child kg: no KG_ setting from the
// machine, and a temporary HOME, so that no real memory is ever touched.
// The race detector's one-second pause at exit (GORACE atexit_sleep_ms)
// is turned off unless GORACE says otherwise: each stop of a server would
// wait it out.
func childEnv(t testing.TB) []string {
	var env []string
	gorace := false
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KG_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
		gorace = gorace || strings.HasPrefix(kv, "GORACE=")
	}
	if !gorace {
		env = append(env, "GORACE=atexit_sleep_ms=0")
	}
	return append(env, "HOME="+t.TempDir())
}

// server is one kg server run as a child process.
type server struct {
	t       testing.TB
	backend string
	root    string
	addr    string // host:port it listens on
	cmd     *exec.Cmd
	log     *logSink
	exited  chan struct{} // closed once the process is gone and its log drained
}

// serveArgs are the arguments of `kg serve` on backend and root, on a free
// port, logging JSON, followed by flags.
func serveArgs(backend, root string, flags ...string) []string {
	return append([]string{"serve", "--port", "0", "--log-format", "json", "--storage", backend, "--storage-root", root}, flags...)
}

// startServer runs `kg serve` on backend and root with flags and returns
// once it listens.
func startServer(t testing.TB, backend, root string, flags ...string) *server {
	t.Helper()
	return startServerCmd(t, backend, root, exec.Command(kgBinary(t), serveArgs(backend, root, flags...)...))
}

// startServerCmd runs cmd, a kg server logging JSON (perhaps behind a
// shell that execs it), with env added to its environment, and returns
// once it listens; it fails the test if the server exits first.
func startServerCmd(t testing.TB, backend, root string, cmd *exec.Cmd, env ...string) *server {
	t.Helper()
	s := &server{t: t, backend: backend, root: root, cmd: cmd, log: newLogSink(), exited: make(chan struct{})}
	cmd.Env = append(childEnv(t), env...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start kg: %v", err)
	}
	addr := make(chan string, 1)
	go func() {
		defer close(s.exited)
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			if a := s.log.add(sc.Text()); a != "" {
				select {
				case addr <- a:
				default:
				}
			}
		}
		_ = cmd.Wait()
	}()
	t.Cleanup(func() {
		select {
		case <-s.exited:
		default:
			_ = cmd.Process.Kill()
			<-s.exited
		}
	})
	select {
	case s.addr = <-addr:
	case <-s.exited:
		t.Fatalf("kg (%s) exited before listening: %v\n%s", backend, cmd.ProcessState, s.log.text())
	case <-time.After(2 * time.Minute): // a guard against a hang, not a measurement
		t.Fatalf("kg (%s) did not listen within 2 minutes\n%s", backend, s.log.text())
	}
	return s
}

// pid is the server's process id.
func (s *server) pid() int { return s.cmd.Process.Pid }

// kill sends SIGKILL and waits until the process is gone. It fails the
// test if the process had already ended by itself.
func (s *server) kill() {
	s.t.Helper()
	select {
	case <-s.exited:
		s.t.Fatalf("kg (%s) ended by itself before the kill: %v\n%s", s.backend, s.cmd.ProcessState, s.log.text())
	default:
	}
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		s.t.Fatalf("kill kg: %v", err)
	}
	<-s.exited
	if ws, ok := s.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		s.t.Fatalf("kg (%s) did not die of the kill: %v\n%s", s.backend, s.cmd.ProcessState, s.log.text())
	}
}

// stop sends SIGTERM, waits until the process is gone, and fails the test
// unless it exited with status 0.
func (s *server) stop() {
	s.t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		s.t.Fatalf("stop kg: %v", err)
	}
	<-s.exited
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		s.t.Fatalf("kg (%s) exited %d on SIGTERM, want 0 (%v)\n%s", s.backend, code, s.cmd.ProcessState, s.log.text())
	}
}

// ---- the log ----

// logSink keeps what a server logs, within bounds: a soak logs a line per
// request. It counts the records by message and level, keeps the first
// and the last lines, every warning and error (up to a cap), and every
// line that is not a log record (a Go panic, the race detector).
type logSink struct {
	mu     sync.Mutex
	head   []string
	tail   []string // a ring of the last tailLines lines
	next   int
	msgs   map[string]int
	levels map[string]int
	alerts []string // WARN and ERROR records
	raw    []string // lines that are not JSON records
	sched  sched    // the runtime's scheduler traces, when asked for
}

const (
	headLines  = 200
	tailLines  = 400
	keepAlerts = 500
	keepRaw    = 2000
)

func newLogSink() *logSink { return &logSink{msgs: map[string]int{}, levels: map[string]int{}} }

// add records one line and returns the address when it is the line that
// says the server listens.
func (l *logSink) add(line string) (addr string) {
	var rec struct{ Level, Msg, Addr string }
	isRecord := strings.HasPrefix(line, "{") && json.Unmarshal([]byte(line), &rec) == nil && rec.Msg != ""
	l.mu.Lock()
	defer l.mu.Unlock()
	if !isRecord && l.sched.schedLine(line) {
		return ""
	}
	if len(l.head) < headLines {
		l.head = append(l.head, line)
	} else if len(l.tail) < tailLines {
		l.tail = append(l.tail, line)
	} else {
		l.tail[l.next] = line
		l.next = (l.next + 1) % tailLines
	}
	if !isRecord {
		if len(l.raw) < keepRaw {
			l.raw = append(l.raw, line)
		}
		return ""
	}
	l.msgs[rec.Msg]++
	l.levels[rec.Level]++
	if (rec.Level == "WARN" || rec.Level == "ERROR") && len(l.alerts) < keepAlerts {
		l.alerts = append(l.alerts, line)
	}
	if rec.Msg == "listening" {
		return rec.Addr
	}
	return ""
}

// count returns how many records had the message msg.
func (l *logSink) count(msg string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.msgs[msg]
}

// level returns how many records had the level (INFO, WARN, ERROR...).
func (l *logSink) level(level string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.levels[level]
}

// warnings returns the WARN and ERROR records kept.
func (l *logSink) warnings() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.alerts...)
}

// rawLines returns the lines that were not log records.
func (l *logSink) rawLines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.raw...)
}

// text is the log as kept, for a failure message.
func (l *logSink) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, line := range l.head {
		b.WriteString(line + "\n")
	}
	if len(l.tail) > 0 {
		b.WriteString("[…]\n")
		for i := range l.tail {
			b.WriteString(l.tail[(l.next+i)%len(l.tail)] + "\n")
		}
	}
	if len(l.alerts) > 0 {
		b.WriteString("[warnings and errors]\n" + strings.Join(l.alerts, "\n") + "\n")
	}
	return b.String()
}

// waitLog waits until the log holds n records with message msg. A guard
// fails the test if it never does, instead of hanging it.
func (s *server) waitLog(msg string, n int) {
	s.t.Helper()
	guard := time.Now().Add(2 * time.Minute)
	for s.log.count(msg) < n {
		select {
		case <-s.exited:
			s.t.Fatalf("kg (%s) exited while waiting for %q in its log: %v\n%s", s.backend, msg, s.cmd.ProcessState, s.log.text())
		default:
		}
		if time.Now().After(guard) {
			s.t.Fatalf("the log of kg (%s) never held %q %d times\n%s", s.backend, msg, n, s.log.text())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ---- REST ----

// health is the body of GET /health.
type health struct {
	Status       string   `json:"status"`
	Storage      string   `json:"storage"`
	LoadedGraphs int      `json:"loaded_graphs"`
	Problems     []string `json:"problems"`
}

var httpClient = &http.Client{Timeout: time.Minute}

// get fetches path from the server and decodes its JSON body into v; it
// returns the status.
func (s *server) get(path string, v any) (int, error) {
	resp, err := httpClient.Get("http://" + s.addr + path)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return resp.StatusCode, fmt.Errorf("GET %s: %s: %w", path, raw, err)
	}
	return resp.StatusCode, nil
}

// health returns GET /health.
func (s *server) health() health {
	s.t.Helper()
	var h health
	if code, err := s.get("/health", &h); err != nil || code != http.StatusOK {
		s.t.Fatalf("GET /health: %d %v", code, err)
	}
	return h
}

// exported is the part of an export document (docs/decisions/0020) the
// suites compare.
type exported struct {
	Format string `json:"format"`
	Nodes  []struct {
		ID      string   `json:"id"`
		Gist    string   `json:"gist"`
		Notes   []string `json:"notes"`
		Touches []string `json:"touches"`
		Tier    string   `json:"tier"`
		Version uint64   `json:"version"`
	} `json:"nodes"`
	Edges []struct {
		From    string   `json:"from"`
		To      string   `json:"to"`
		Rel     string   `json:"rel"`
		Notes   []string `json:"notes"`
		Version uint64   `json:"version"`
	} `json:"edges"`
	Progress map[string]json.RawMessage `json:"progress"`
}

// exportQuery names a graph in a query string: the user graph for "",
// else the project.
func exportQuery(project string) string {
	if project == "" {
		return "level=user"
	}
	return "level=project&project_path=" + url.QueryEscape(project)
}

// export returns GET /api/export of the user graph (project "") or a
// project's graph.
func (s *server) export(project string) exported {
	s.t.Helper()
	var doc exported
	if code, err := s.get("/api/export?"+exportQuery(project), &doc); err != nil || code != http.StatusOK || doc.Format != "kg-graph" {
		s.t.Fatalf("GET /api/export?%s: %d %v", exportQuery(project), code, err)
	}
	return doc
}

// ---- MCP ----

// dialMCP connects mcp-go's Streamable HTTP client to the server.
func dialMCP(ctx context.Context, addr, name string) (*client.Client, error) {
	tr, err := transport.NewStreamableHTTP("http://"+addr+"/", transport.WithHTTPTimeout(time.Minute))
	if err != nil {
		return nil, err
	}
	c := client.NewClient(tr)
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcpgo.Implementation{Name: name, Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	return c, nil
}

// result is a tool result as the suites read it.
type result struct {
	text    string
	isError bool
}

// sessionOf is the session id a kg_read's text ends with ("Session:
// <id>"); "" for none.
func sessionOf(text string) string {
	_, id, ok := strings.Cut(text, "\nSession: ")
	if !ok || strings.Contains(id, "\n") {
		return ""
	}
	return id
}

// readNode is the first node of a kg_read by id as its text shows it
// (docs/design/mcp.md#read-by-id).
type readNode struct {
	gist    string
	notes   []string
	version int
}

func (n readNode) String() string {
	return fmt.Sprintf("gist %q notes %q version %d", n.gist, n.notes, n.version)
}

// nodeOf reads the gist, the notes and the version of the first node of a
// read by id's text: "gist: …", "notes:" with a "  - …" line each, then
// "version: N, created …".
func nodeOf(text string) readNode {
	var n readNode
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case strings.HasPrefix(line, "gist: ") && n.gist == "":
			n.gist = strings.TrimPrefix(line, "gist: ")
		case line == "notes:" && n.notes == nil:
			n.notes = []string{}
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "  - ") {
				i++
				n.notes = append(n.notes, strings.TrimPrefix(lines[i], "  - "))
			}
		case strings.HasPrefix(line, "version: "):
			v, _, _ := strings.Cut(strings.TrimPrefix(line, "version: "), ",")
			n.version, _ = strconv.Atoi(v)
			return n
		}
	}
	return n
}

// callTool calls a tool; err is a transport or JSON-RPC error, a tool
// error is result.isError.
func callTool(ctx context.Context, c *client.Client, name string, args map[string]any) (result, error) {
	req := mcpgo.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return result{}, err
	}
	r := result{isError: res.IsError}
	for _, c := range res.Content {
		if tc, ok := c.(mcpgo.TextContent); ok {
			r.text += tc.Text
		}
	}
	if res.StructuredContent != nil {
		return r, fmt.Errorf("%s: the result carries structuredContent, which Claude Code and Codex hand the model in place of the text", name)
	}
	return r, nil
}

// projectDir makes a folder for a project and returns its canonical path,
// the project's key.
func projectDir(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// ---- the files ----

// checkFiles checks, with no server running, that every file kg keeps in
// root parses. json: each .json and .prev is one JSON value, and each
// .journal holds whole records with good checksums, followed at most by
// a torn record (one that never got its newline). bolt: kg.db opens and
// bbolt's consistency check (what `bbolt check` runs) finds nothing. It
// also fails on a damaged file set aside (.corrupt-*, quarantine/): where
// no fault was injected, none may appear. It returns how many files it
// checked.
func checkFiles(t testing.TB, backend, root string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if strings.Contains(name, ".corrupt-") || (d.IsDir() && name == "quarantine") {
			t.Errorf("%s: a damaged file was set aside where no fault was injected", p)
			return nil
		}
		if d.IsDir() {
			return nil
		}
		switch ext := filepath.Ext(name); {
		case backend == "json" && (ext == ".json" || ext == ".prev"):
			n++
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if !json.Valid(b) {
				t.Errorf("%s does not parse as JSON (%d bytes)", p, len(b))
			}
		case backend == "json" && ext == ".journal":
			n++
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := checkJournal(b); err != nil {
				t.Errorf("%s: %v", p, err)
			}
		case backend == "bolt" && name == "kg.db":
			n++
			if err := checkBolt(p); err != nil {
				t.Errorf("%s: %v", p, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", root, err)
	}
	return n
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checkJournal checks a json journal (docs/decisions/0011): every line is
// {"batch":<payload>,"crc32c":"<8 hex>"} with the CRC-32C of its payload;
// only a last piece without a newline may be torn.
func checkJournal(b []byte) error {
	const head, tail = `{"batch":`, `,"crc32c":"`
	for off := 0; off < len(b); {
		end := bytes.IndexByte(b[off:], '\n')
		if end < 0 {
			return nil // a torn tail: never acknowledged, dropped at the next load
		}
		line := b[off : off+end]
		trailer := len(tail) + 8 + 2
		ok := len(line) >= len(head)+trailer && bytes.HasPrefix(line, []byte(head)) && bytes.HasSuffix(line, []byte(`"}`)) &&
			bytes.HasPrefix(line[len(line)-trailer:], []byte(tail))
		if ok {
			var sum [4]byte
			_, err := hex.Decode(sum[:], line[len(line)-10:len(line)-2])
			payload := line[len(head) : len(line)-trailer]
			ok = err == nil && crc32.Checksum(payload, castagnoli) == binary.BigEndian.Uint32(sum[:]) && json.Valid(payload)
		}
		if !ok {
			return fmt.Errorf("bad record at byte %d: %.80q", off, line)
		}
		off += end + 1
	}
	return nil
}

// checkBolt opens a bolt file read-only and runs bbolt's consistency
// check on it.
func checkBolt(path string) error {
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: 5 * time.Second})
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	defer db.Close()
	var errs []error
	err = db.View(func(tx *bbolt.Tx) error {
		for e := range tx.Check() {
			errs = append(errs, e)
		}
		return nil
	})
	return errors.Join(append(errs, err)...)
}
