package main

// File-system faults under the whole server ("a failed save loses nothing
// acknowledged and leaves no ghost", docs/design/storage.md#failed-saves): the
// server as `kg serve` wires it (initServer), on the json backend opened
// through a file-system layer that fails on demand, driven by mcp-go's client.
// For each fault — a full disk, a read-only file system, EIO on fsync, EFBIG —
// a write is refused as unavailable naming the graph and the cause, reads keep
// serving the state before it, a maintenance tick's checkpoint that fails keeps
// the journal, and once the fault clears writes and checkpoints succeed and
// everything acknowledged is stored.
//
// The faults the kernel produces (a full tmpfs, a read-only mount, `ulimit
// -f`) are produced for both backends by e2e/reliability; bolt has no
// file-system layer, so EIO on fsync is produced for json only.

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kg-memory/kg/adapters/storage/jsonfile"
	"github.com/kg-memory/kg/cmd/kg/internal/store"
	"github.com/kg-memory/kg/domain"
)

// faultFS is the real file system, failing with errno every operation
// that fails says should fail; nil fails nothing. Reads never fail: a
// disk that is full, read-only or failing its fsyncs still reads.
type faultFS struct {
	jsonfile.OS
	mu    sync.Mutex
	errno syscall.Errno
	fails func(op, name string) bool
	hit   int // operations failed so far
}

func (f *faultFS) set(errno syscall.Errno, fails func(op, name string) bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errno, f.fails = errno, fails
}

func (f *faultFS) fault(op, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fails == nil || !f.fails(op, name) {
		return nil
	}
	f.hit++
	return &fs.PathError{Op: op, Path: name, Err: f.errno}
}

func (f *faultFS) Create(name string) (jsonfile.File, error) {
	if err := f.fault("create", name); err != nil {
		return nil, err
	}
	w, err := f.OS.Create(name)
	if err != nil {
		return nil, err
	}
	return faultFile{w, f, name}, nil
}

func (f *faultFS) Append(name string) (jsonfile.File, error) {
	if err := f.fault("append", name); err != nil {
		return nil, err
	}
	w, err := f.OS.Append(name)
	if err != nil {
		return nil, err
	}
	return faultFile{w, f, name}, nil
}

func (f *faultFS) Rename(o, n string) error {
	if err := f.fault("rename", n); err != nil {
		return err
	}
	return f.OS.Rename(o, n)
}

func (f *faultFS) Link(o, n string) error {
	if err := f.fault("link", n); err != nil {
		return err
	}
	return f.OS.Link(o, n)
}

func (f *faultFS) Remove(name string) error {
	if err := f.fault("remove", name); err != nil {
		return err
	}
	return f.OS.Remove(name)
}

func (f *faultFS) Mkdir(name string, perm fs.FileMode) error {
	if err := f.fault("mkdir", name); err != nil {
		return err
	}
	return f.OS.Mkdir(name, perm)
}

func (f *faultFS) SyncDir(name string) error {
	if err := f.fault("fsyncdir", name); err != nil {
		return err
	}
	return f.OS.SyncDir(name)
}

type faultFile struct {
	jsonfile.File
	fs   *faultFS
	name string
}

func (w faultFile) Write(p []byte) (int, error) {
	if err := w.fs.fault("write", w.name); err != nil {
		return 0, err
	}
	return w.File.Write(p)
}

func (w faultFile) Sync() error {
	if err := w.fs.fault("fsync", w.name); err != nil {
		return err
	}
	return w.File.Sync()
}

func (w faultFile) Truncate(size int64) error {
	if err := w.fs.fault("truncate", w.name); err != nil {
		return err
	}
	return w.File.Truncate(size)
}

// inProcess is a server built as `kg serve` builds it, on storage opened
// by the test.
type inProcess struct {
	Addr string
	logs *lockedBuffer
	stop func() error
}

// startOn runs the server of cfg's flags on st, with a maintenance loop,
// until stop; stop shuts it down as runServer does and returns the app's
// Close error.
func startOn(t *testing.T, st store.Storage, logs *lockedBuffer, log *slog.Logger, args ...string) *inProcess {
	t.Helper()
	cfg, err := parseWith(args, func(string) string { return "" }, fakeHome)
	if err != nil {
		t.Fatal(err)
	}
	srv, cleanup, err := initServer(context.Background(), cfg, st, log)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv.Handler, ReadHeaderTimeout: readHeaderTimeout}
	go func() { _ = hs.Serve(ln) }()
	maintCtx, stopMaint := context.WithCancel(context.Background())
	maintDone := make(chan struct{})
	go func() {
		defer close(maintDone)
		srv.Service.Run(maintCtx)
	}()
	p := &inProcess{Addr: ln.Addr().String(), logs: logs}
	stopped := false
	p.stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = hs.Shutdown(ctx)
		stopMaint()
		<-maintDone
		err := srv.Service.Close(ctx)
		cleanup()
		return err
	}
	t.Cleanup(func() { _ = p.stop() })
	return p
}

// waitFor waits until the log holds msg n times; a guard fails the test
// instead of hanging it.
func (p *inProcess) waitFor(t *testing.T, msg string, n int) {
	t.Helper()
	guard := time.Now().Add(time.Minute)
	for strings.Count(p.logs.String(), msg) < n {
		if time.Now().After(guard) {
			t.Fatalf("the log never held %q %d times:\n%s", msg, n, p.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// fileFaults are the faults of the table: the error, the operations it
// fails, the words of the cause in a refused write's message, and what the
// message may tell of the refused change (one of outcomes).
var fileFaults = []struct {
	name     string
	errno    syscall.Errno
	ops      []string
	cause    string
	outcomes []string
}{
	// A full disk fails writes and whatever needs a new block.
	{"full disk", syscall.ENOSPC, []string{"write", "create", "mkdir", "link"}, "no space left on device", []string{nothingChanged}},
	// A read-only file system fails everything that would change it.
	{"read-only", syscall.EROFS, []string{"create", "append", "write", "fsync", "fsyncdir", "rename", "link", "remove", "mkdir", "truncate"}, "read-only file system", []string{nothingChanged}},
	// A failing disk reports the loss of written data at fsync. A journal
	// record was written when it fails, and its cut and the voiding of it
	// cannot be made durable either: that writer hears the change may come
	// back after a restart
	// (docs/decisions/0075-a-refused-journal-record-is-voided-on-disk.md);
	// a save that fails before its record (the change log's append) changed
	// nothing.
	{"EIO on fsync", syscall.EIO, []string{"fsync", "fsyncdir"}, "input/output error",
		[]string{nothingChanged, "may be back after a restart"}},
	// A file-size limit fails the write that would pass it.
	{"file too large", syscall.EFBIG, []string{"write"}, "file too large", []string{nothingChanged}},
}

// nothingChanged is what a refused write's message says when the refused
// change is nowhere on disk.
const nothingChanged = "nothing was changed, retry later"

func TestFileFaultsUnderTheServer(t *testing.T) {
	t.Parallel()
	for _, ff := range fileFaults {
		t.Run(ff.name, func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(t.TempDir(), "root")
			if err := store.MakeRoot(root); err != nil {
				t.Fatal(err)
			}
			logs := &lockedBuffer{}
			log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			ffs := &faultFS{}
			js, err := jsonfile.Open(root, jsonfile.Options{FS: ffs, Logger: log})
			if err != nil {
				t.Fatal(err)
			}
			p := startOn(t, store.Storage{Graphs: js, Sessions: js}, logs, log, "--port", "0", "--storage-root", root,
				"--storage", "json", "--maintenance-interval", "1")
			c := mcpClient(t, p.Addr)
			project := projectDir(t, "faulty")
			sid := c.session(project)
			put := func(level, id, gist string) toolResult {
				return c.call("kg_put_node", map[string]any{"session_id": sid, "level": level, "id": id, "gist": gist})
			}
			gistOf := func(level, id string) string {
				r := c.call("kg_read", map[string]any{"session_id": sid, "level": level, "id": id})
				if r.isError {
					return ""
				}
				_, g, _ := strings.Cut(r.text, "\ngist: ")
				g, _, _ = strings.Cut(g, "\n")
				return g
			}

			// The first saves write the files whole; the next ones go to the
			// journals. Checkpoints (whole writes through a tmp) fail from
			// before those, so the journals still hold them when the fault
			// comes.
			c.putNode(sid, "user", "a", "a, version one", nil)
			c.putNode(sid, "project", "p", "p, version one", nil)
			tmpOnly := func(op, name string) bool { return strings.HasSuffix(name, ".tmp") && slices.Contains(ff.ops, op) }
			ffs.set(ff.errno, tmpOnly)
			c.putNode(sid, "user", "b", "b, journaled", nil)
			c.putNode(sid, "project", "q", "q, journaled", nil)
			// Every fault of the table fails a checkpoint's tmp (its create,
			// write or fsync); the tick logs it, and the journal keeps b.
			p.waitFor(t, "checkpoint failed; the journals keep every write", 1)
			userJSON, _ := os.ReadFile(filepath.Join(root, "user.json"))
			journal, _ := os.ReadFile(filepath.Join(root, "user.journal"))
			if strings.Contains(string(userJSON), "b, journaled") || !strings.Contains(string(journal), "b, journaled") {
				t.Errorf("after a failed checkpoint: user.json %s; user.journal %s; want b in the journal only", userJSON, journal)
			}
			ticks := strings.Count(logs.String(), "maintenance tick done")

			// The whole fault: writes are refused, naming the graph and why.
			ffs.set(ff.errno, func(op, _ string) bool { return slices.Contains(ff.ops, op) })
			refused := []struct {
				r     toolResult
				graph string
			}{
				{put("user", "a", "a, version two, refused"), "user graph"},
				{put("user", "ghost", "never stored"), "user graph"},
				{put("project", "ghost", "never stored"), "project graph (" + project + ")"},
				{c.call("kg_put_edge", map[string]any{"session_id": sid, "level": "project", "from": "p", "to": "q", "rel": "ghost"}), "project graph (" + project + ")"},
				{c.call("kg_delete_node", map[string]any{"session_id": sid, "level": "project", "id": "p"}), "project graph (" + project + ")"},
			}
			for i, w := range refused {
				want := []string{"Error: the " + w.graph + " could not be saved (", ff.cause}
				for _, s := range want {
					if !w.r.isError || !strings.Contains(w.r.text, s) {
						t.Errorf("refused write %d: %q, want an error with %q", i, w.r.text, s)
					}
				}
				if !slices.ContainsFunc(ff.outcomes, func(o string) bool { return strings.Contains(w.r.text, o) }) {
					t.Errorf("refused write %d: %q, want it to say one of %q", i, w.r.text, ff.outcomes)
				}
			}
			// Reads serve the state before the refused writes.
			for _, n := range []struct{ level, id, want string }{
				{"user", "a", "a, version one"}, {"user", "b", "b, journaled"}, {"user", "ghost", ""},
				{"project", "p", "p, version one"}, {"project", "q", "q, journaled"}, {"project", "ghost", ""},
			} {
				if got := gistOf(n.level, n.id); got != n.want {
					t.Errorf("during the fault, %s node %s reads %q, want %q", n.level, n.id, got, n.want)
				}
			}
			full := c.ok("kg_read", map[string]any{"session_id": sid})
			mustNotContain(t, full.text, "ghost", "refused")
			r := c.ok("kg_read", map[string]any{"session_id": sid, "level": "project", "id": "p"})
			if strings.Contains(r.text, "EDGES OUT:") {
				t.Errorf("the refused edge is served:\n%s", r.text)
			}
			c.ok("kg_search", map[string]any{"session_id": sid, "query": "journaled"})
			p.waitFor(t, "maintenance tick done", ticks+2) // ticks under the fault do no harm

			// The fault clears: writes and checkpoints succeed again.
			hit := ffs.hit
			ffs.set(0, nil)
			if hit == 0 {
				t.Fatal("the fault never struck; the test proves nothing")
			}
			c.putNode(sid, "user", "a", "a, version three", nil)
			c.putNode(sid, "project", "r", "r, after the fault", nil)
			cleared := strings.Count(logs.String(), "maintenance tick done")
			p.waitFor(t, "maintenance tick done", cleared+2)
			if fi, err := os.Stat(filepath.Join(root, "user.journal")); err != nil || fi.Size() != 0 {
				t.Errorf("user.journal after a tick without the fault: %v %v; want it folded and empty", fi, err)
			}
			if err := p.stop(); err != nil {
				t.Errorf("shutdown: %v", err)
			}

			// What is stored is everything acknowledged, and nothing refused.
			st, err := jsonfile.Open(root, jsonfile.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for key, want := range map[domain.GraphKey]map[string]string{
				domain.UserGraph:             {"a": "a, version three", "b": "b, journaled"},
				domain.ProjectGraph(project): {"p": "p, version one", "q": "q, journaled", "r": "r, after the fault"},
			} {
				d, err := st.Load(context.Background(), key)
				if err != nil {
					t.Fatalf("load %s: %v", key, err)
				}
				got := map[string]string{}
				for _, n := range d.Nodes {
					got[n.ID] = n.Gist
				}
				if !maps.Equal(got, want) {
					t.Errorf("stored %s graph: %v, want %v", key.Level, got, want)
				}
				if len(d.Edges) != 0 {
					t.Errorf("stored %s graph has edges %v, want none", key.Level, d.Edges)
				}
			}
			if _, err := os.Stat(filepath.Join(root, "user.tmp")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("user.tmp left behind: %v", err)
			}
		})
	}
}
