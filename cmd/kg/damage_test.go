package main

// A damaged kg.db, in a real child process (docs/decisions/0007): a file
// kg cannot open stops the start with one line and exit status 1; a
// damaged data page starts the server degraded, serving every graph but
// the one the page belongs to, through requests and maintenance ticks.

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/kg-memory/kg/adapters/rootdir"
	"github.com/kg-memory/kg/adapters/storage/bolt"
	"github.com/kg-memory/kg/domain"
)

const (
	damagedProject = "/work/damaged"
	soundProject   = "/work/sound"
)

// boltRoot writes a bolt root as a server would leave it: a user graph, a
// project large enough that its nodes fill pages of their own, and a small
// one. It returns the path of kg.db.
func boltRoot(t *testing.T, root string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, rootdir.BackendName), []byte("bolt\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := bolt.Open(ctx, root, bolt.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	write := func(key domain.GraphKey, n int) {
		d := domain.GraphData{Schema: 2, Seq: uint64(n), ProjectPath: key.Project}
		for i := range n {
			d.Nodes = append(d.Nodes, domain.Node{ID: fmt.Sprintf("n-%d", i), Gist: "a node kept in a bolt file",
				Version: domain.Version{V: 1, TS: 1_716_400_000_000_000, Seq: uint64(i + 1)}})
		}
		g, _ := domain.Restore(key, d, domain.RestoreOptions{})
		if err := s.Commit(ctx, key, g, g.Everything()); err != nil {
			t.Fatal(err)
		}
	}
	write(domain.UserGraph, 5)
	write(domain.ProjectGraph(damagedProject), 300)
	write(domain.ProjectGraph(soundProject), 3)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, bolt.FileName)
}

// zeroPage overwrites with zeros the page holding the root of the bucket
// at path, as a bad sector or a stray write could.
func zeroPage(t *testing.T, file string, path ...string) {
	t.Helper()
	db, err := bbolt.Open(file, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var pg int64
	_ = db.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(path[0]))
		for _, p := range path[1:] {
			b = b.Bucket([]byte(p))
		}
		pg = int64(b.Root())
		return nil
	})
	_ = db.Close()
	if pg == 0 {
		t.Fatalf("bucket %v has no page of its own", path)
	}
	f, err := os.OpenFile(file, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(make([]byte, os.Getpagesize()), pg*int64(os.Getpagesize())); err != nil {
		t.Fatal(err)
	}
}

// A kg.db that cannot be opened stops `kg serve` with exit status 1 and one
// line that says what is wrong and what to do: no Go panic, no stack.
func TestUnopenableBoltFileStopsTheStart(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		damage func(t *testing.T, file string)
		want   string
	}{
		{"empty", func(t *testing.T, file string) {
			if err := os.Truncate(file, 0); err != nil {
				t.Fatal(err)
			}
		}, "is empty (0 bytes)"},
		{"truncated to half its pages", func(t *testing.T, file string) {
			// Half its pages, not half its length: the file is longer than
			// its pages by bbolt's step of growth (docs/design/storage.md#bolt-mapping).
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			// The high-water mark of the first meta page: after its 16-byte
			// header, 32 bytes of magic, version, page size, flags and root,
			// and the free list's page.
			hwm := binary.LittleEndian.Uint64(raw[16+40:])
			if err := os.Truncate(file, int64(hwm)*int64(os.Getpagesize())/2); err != nil {
				t.Fatal(err)
			}
		}, "is truncated"},
		{"meta pages damaged", func(t *testing.T, file string) {
			f, err := os.OpenFile(file, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteAt(make([]byte, 2*os.Getpagesize()), 0); err != nil {
				t.Fatal(err)
			}
		}, "both of its meta pages are damaged"},
		{"a symbolic link", func(t *testing.T, file string) {
			elsewhere := filepath.Join(t.TempDir(), "kg.db")
			if err := os.Rename(file, elsewhere); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(elsewhere, file); err != nil {
				t.Fatal(err)
			}
		}, "is a symbolic link"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			c.damage(t, boltRoot(t, root))
			code, _, stderr := runKG(t, nil, "serve", "--port", "0", "--storage", "bolt", "--storage-root", root, "--log-level", "error")
			if code != 1 {
				t.Errorf("exit status %d, want 1", code)
			}
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "kg serve: ") || !strings.Contains(lines[0], c.want) {
				t.Errorf("stderr is not one line saying %q:\n%s", c.want, stderr)
			}
		})
	}
}

// The case: a damaged data page used to pass /health, fail the
// first read with a recovered panic and kill the process at the next
// maintenance tick. Now the server starts degraded, names the damaged
// graph, serves every other graph, lets a session start on the damaged
// project, and lives through the ticks.
func TestDamagedBoltPageServesTheRest(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	file := boltRoot(t, root)
	zeroPage(t, file, "projects", damagedProject, "nodes")

	p := start(t, "--port", "0", "--storage", "bolt", "--storage-root", root, "--maintenance-interval", "1", "--log-level", "debug")
	h := getHealth(t, p.Addr)
	if h["status"] != "degraded" || !strings.Contains(fmt.Sprint(h["problems"]), damagedProject) {
		t.Errorf("health = %v, want degraded naming %s", h, damagedProject)
	}

	sound := callTool(t, p.Addr, "kg_read", map[string]any{"cwd": soundProject})
	if !strings.Contains(sound, "=== PROJECT GRAPH ("+filepath.Base(soundProject)+") — 3 active, ") {
		t.Errorf("the sound project does not show 3 active nodes:\n%s", sound)
	}
	callTool(t, p.Addr, "kg_put_node", map[string]any{"session_id": sessionOf(sound), "level": "project", "id": "new", "gist": "written"})

	damaged := callTool(t, p.Addr, "kg_read", map[string]any{"cwd": damagedProject})
	_, why, _ := strings.Cut(damaged, "=== PROJECT GRAPH ("+filepath.Base(damagedProject)+") — unavailable: ")
	if why, _, _ = strings.Cut(why, "\n"); !strings.Contains(why, damagedProject) || !strings.Contains(why, "damaged") {
		t.Errorf("the damaged project's section does not say why it is unavailable:\n%s", damaged)
	}
	if sessionOf(damaged) == "" || !strings.HasPrefix(damaged, "=== USER GRAPH — ") {
		t.Errorf("no session or user graph for the damaged project:\n%s", damaged)
	}

	// Two ticks after the calls above: the old server died at the first.
	waitLog(t, p, `"msg":"maintenance tick done"`, strings.Count(p.log(), `"msg":"maintenance tick done"`)+2)
	if h := getHealth(t, p.Addr); h["status"] != "degraded" {
		t.Errorf("health after the ticks = %v", h)
	}
	if log := p.log(); strings.Contains(log, "panic") && strings.Contains(log, "goroutine ") {
		t.Errorf("a stack trace in the log:\n%s", log)
	}
	if code := p.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("exit status %d\n%s", code, p.log())
	}
}

// waitLog waits until the child's log holds line at least n times. It
// polls the log the reader goroutine collects; a child that never writes
// it fails the test at the guard instead of hanging it.
func waitLog(t *testing.T, p *proc, line string, n int) {
	t.Helper()
	guard := time.Now().Add(time.Minute)
	for strings.Count(p.log(), line) < n {
		if time.Now().After(guard) {
			t.Fatalf("the log never held %q %d times:\n%s", line, n, p.log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// With user.json unloadable and no user.prev, a session still starts: the
// full read serves the project graph and says in one line why the user
// graph is missing, tools aimed at the user graph say it is unavailable,
// and /health is degraded.
func TestUnloadableUserGraphStillStartsSessions(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "user.json"), []byte(`{"nodes": {"a": {"id": `), 0o600); err != nil {
		t.Fatal(err)
	}
	p := start(t, "--port", "0", "--storage", "json", "--storage-root", root)
	if h := getHealth(t, p.Addr); h["status"] != "degraded" || !strings.Contains(fmt.Sprint(h["problems"]), "user graph") {
		t.Errorf("health = %v, want degraded naming the user graph", h)
	}
	c := mcpClient(t, p.Addr)
	r := c.ok("kg_read", map[string]any{"cwd": soundProject})
	sid := sessionOf(r.text)
	if sid == "" {
		t.Fatalf("no session:\n%s", r.text)
	}
	if !strings.Contains(r.text, "=== USER GRAPH — unavailable: the user graph could not be loaded") || !strings.Contains(r.text, "=== PROJECT GRAPH (sound) — 0 active") {
		t.Errorf("text:\n%s", r.text)
	}
	c.ok("kg_put_node", map[string]any{"session_id": sid, "level": "project", "id": "p", "gist": "the project graph works"})
	c.fails("kg_put_node", map[string]any{"session_id": sid, "level": "user", "id": "u", "gist": "g"}, "user graph")

	// A search, a sync and the REST graph read span both graphs: they serve
	// the project's and say why the user graph is missing, through MCP and
	// REST alike.
	userWhy := func(what string, v any) {
		t.Helper()
		if why := fmt.Sprint(v); !strings.Contains(why, "the user graph could not be loaded") {
			t.Errorf("%s: %q, want why the user graph is unavailable", what, why)
		}
	}
	r = c.ok("kg_search", map[string]any{"session_id": sid, "query": "project"})
	if !strings.Contains(r.text, "[project sound] p (active") || !strings.Contains(r.text, "\nNot searched: the user graph could not be loaded") {
		t.Errorf("kg_search text:\n%s", r.text)
	}
	c.fails("kg_search", map[string]any{"session_id": sid, "query": "project", "level": "user"}, "user graph")
	r = c.ok("kg_sync", map[string]any{"session_id": sid})
	if !strings.HasPrefix(r.text, "USER GRAPH — unavailable: the user graph could not be loaded") {
		t.Errorf("kg_sync text:\n%s", r.text)
	}

	found := restJSON(t, p.Addr, "GET", "/api/search?q=project&session_id="+sid, nil, http.StatusOK)
	if hits, _ := found["hits"].([]any); len(hits) != 1 || field(hits[0], "id") != "p" {
		t.Errorf("GET /api/search hits = %v, want p", found["hits"])
	}
	userWhy("GET /api/search unavailable", found["unavailable"])
	synced := restJSON(t, p.Addr, "POST", "/api/sync", map[string]any{"session_id": sid}, http.StatusOK)
	userWhy("POST /api/sync user", field(synced, "user", "unavailable"))
	read := restJSON(t, p.Addr, "GET", "/api/graph/read?session_id="+sid, nil, http.StatusOK)
	userWhy("GET /api/graph/read user", field(read, "user", "unavailable"))
	if nodes, _ := field(read, "project", "nodes").([]any); len(nodes) != 1 || field(read, "project", "unavailable") != nil {
		t.Errorf("GET /api/graph/read project = %v, want its node p", read["project"])
	}
	userWhy("GET /api/graph/read of the user graph alone", restJSON(t, p.Addr, "GET", "/api/graph/read", nil, http.StatusServiceUnavailable)["detail"])

	if code := p.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("exit status %d\n%s", code, p.log())
	}
}
