//go:build linux

package reliability

// File-system faults the kernel produces, under the built server, on both
// backends (docs/design/storage.md#failed-saves): a full disk (a small tmpfs
// root, filled), a read-only root (a read-only bind mount over it), and a file
// larger than the process may write (`ulimit -f`, raised again with prlimit).
// For each: a write is refused as unavailable naming the graph and the cause,
// nothing refused is served or stored, reads keep working, the server keeps
// serving, and once the fault clears writes succeed again and everything
// acknowledged is stored. Mounting needs privileges a machine may not grant:
// those tests skip, saying why.
//
// The faults of the injectable file-system layer (json; EIO on fsync among
// them) are in cmd/kg/faults_test.go.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/mark3labs/mcp-go/client"
)

// bigNode is the arguments of the i-th large node of a session: a 1,000-char
// gist and two 4,000-char notes (the limits of
// docs/design/model.md#identifiers-and-limits), all distinct, so that every
// write needs new room on disk.
func bigNode(sid, level string, i int) (id string, args map[string]any) {
	id = fmt.Sprintf("big-%02d", i)
	pad := func(prefix string, n int) string {
		return prefix + strings.Repeat(string(rune('a'+i%26)), n-len(prefix))
	}
	return id, map[string]any{"session_id": sid, "level": level, "id": id, "gist": pad(id+" gist ", 1000),
		"notes": []any{pad(id+" note one ", 4000), pad(id+" note two ", 4000)}}
}

// faultRun is a server under a fault, driven by one MCP client on one
// session.
type faultRun struct {
	t       *testing.T
	srv     *server
	c       *client.Client
	sid     string
	project string
	acked   map[string]string // id → gist of the big nodes acknowledged, per level "user"/"project"
}

func newFaultRun(t *testing.T, srv *server) *faultRun {
	t.Helper()
	c, err := dialMCP(t.Context(), srv.addr, "kg-fault-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	f := &faultRun{t: t, srv: srv, c: c, project: projectDir(t, "faulty"), acked: map[string]string{}}
	r := f.call("kg_read", map[string]any{"cwd": f.project})
	if r.isError {
		t.Fatalf("start a session: %s", r.text)
	}
	f.sid = sessionOf(r.text)
	return f
}

func (f *faultRun) call(tool string, args map[string]any) result {
	f.t.Helper()
	r, err := callTool(f.t.Context(), f.c, tool, args)
	if err != nil {
		f.t.Fatalf("%s: transport error (did the server die?): %v\n%s", tool, err, f.srv.log.text())
	}
	return r
}

// graphName is how a refused write names the graph of level.
func (f *faultRun) graphName(level string) string {
	if level == "user" {
		return "the user graph"
	}
	return "the project graph (" + f.project + ")"
}

// writeUntilRefused writes big nodes at level from index from on until
// one is refused, and checks the refusal names the graph and cause. It
// returns the id refused and the index after it.
func (f *faultRun) writeUntilRefused(level string, from int, cause string) (refused string, next int) {
	f.t.Helper()
	for i := from; i < from+200; i++ {
		id, args := bigNode(f.sid, level, i)
		r := f.call("kg_put_node", args)
		if !r.isError {
			f.acked[level+"/"+id] = args["gist"].(string)
			continue
		}
		for _, want := range []string{"Error: " + f.graphName(level) + " could not be saved (", cause, "nothing was changed, retry later"} {
			if !strings.Contains(r.text, want) {
				f.t.Errorf("refused write of %s: %q, want it to contain %q", id, r.text, want)
			}
		}
		return id, i + 1
	}
	f.t.Fatalf("200 large nodes written at level %s and none refused: the fault did not apply", level)
	return "", 0
}

// restRefused writes the big node i at level through REST during the
// fault and checks it is refused as unavailable (503) naming the cause.
func (f *faultRun) restRefused(level string, i int, cause string) string {
	f.t.Helper()
	id, args := bigNode(f.sid, level, i)
	body, err := json.Marshal(args)
	if err != nil {
		f.t.Fatal(err)
	}
	resp, err := httpClient.Post("http://"+f.srv.addr+"/api/nodes", "application/json", bytes.NewReader(body))
	if err != nil {
		f.t.Fatalf("POST /api/nodes: %v", err)
	}
	defer resp.Body.Close()
	var e struct{ Detail, Kind string }
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil || resp.StatusCode != http.StatusServiceUnavailable ||
		e.Kind != "unavailable" || !strings.Contains(e.Detail, f.graphName(level)+" could not be saved") || !strings.Contains(e.Detail, cause) {
		f.t.Errorf("POST /api/nodes during the fault: %s %+v %v; want 503, kind unavailable, naming %s and %q", resp.Status, e, err, f.graphName(level), cause)
	}
	return level + "/" + id
}

// readsServe checks, during or after a fault, that every acknowledged big
// node reads back whole and that the refused ones are not there.
func (f *faultRun) readsServe(refused ...string) {
	f.t.Helper()
	for key, gist := range f.acked {
		level, id, _ := strings.Cut(key, "/")
		r := f.call("kg_read", map[string]any{"session_id": f.sid, "level": level, "id": id})
		if got := nodeOf(r.text).gist; r.isError || got != gist {
			f.t.Errorf("%s node %s reads %.60q (%s), want what was acknowledged", level, id, got, r.text)
		}
	}
	for _, key := range refused {
		level, id, _ := strings.Cut(key, "/")
		if r := f.call("kg_read", map[string]any{"session_id": f.sid, "level": level, "id": id}); !r.isError || !strings.Contains(r.text, "not found") {
			f.t.Errorf("refused %s node %s is served: %.100s", level, id, r.text)
		}
	}
	if r := f.call("kg_read", map[string]any{"session_id": f.sid}); r.isError {
		f.t.Errorf("full read: %s", r.text)
	}
}

// storedAfterRestart stops the server, checks the files, starts it again
// on the same root and checks that it serves exactly what was
// acknowledged: every acknowledged big node, none refused.
func (f *faultRun) storedAfterRestart(backend, root string, refused ...string) {
	f.t.Helper()
	f.srv.stop()
	checkFiles(f.t, backend, root)
	srv := startServer(f.t, backend, root)
	defer srv.stop()
	got := map[string]string{}
	for _, level := range []string{"user", "project"} {
		project := ""
		if level == "project" {
			project = f.project
		}
		for _, n := range srv.export(project).Nodes {
			if strings.HasPrefix(n.ID, "big-") {
				got[level+"/"+n.ID] = n.Gist
			}
		}
	}
	for key, gist := range f.acked {
		if got[key] != gist {
			f.t.Errorf("after a restart, %s is %.60q, want what was acknowledged", key, got[key])
		}
	}
	for _, key := range refused {
		if _, ok := got[key]; ok {
			f.t.Errorf("after a restart, the refused %s is stored", key)
		}
	}
	if len(got) != len(f.acked) {
		f.t.Errorf("after a restart, %d big nodes stored, want the %d acknowledged", len(got), len(f.acked))
	}
}

// mountTmpfs mounts a tmpfs of size (mount's syntax: 16m) at a new folder,
// or skips the test saying why the machine refused.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("this machine does not let the test mount a tmpfs (%v: %s); the fault is produced through the file-system layer (cmd/kg TestFileFaultsUnderTheServer) only", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	return dir
}

// fill writes a file in dir until the file system is full.
func fill(t *testing.T, dir string) string {
	t.Helper()
	name := filepath.Join(dir, "filler")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for size := len(chunk); size > 0; {
		if _, err := f.Write(chunk[:size]); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			size /= 2 // fill what is left, down to the last byte
		}
	}
	return name
}

// A full disk: a server on a small tmpfs, filled up; writes are refused
// with "no space left on device" until room is made.
func TestFullDisk(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"json", "bolt"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			disk := mountTmpfs(t, "16m")
			root := filepath.Join(disk, "root")
			srv := startServer(t, backend, root, "--maintenance-interval", "1")
			f := newFaultRun(t, srv)
			for i := range 3 {
				_, args := bigNode(f.sid, "user", i)
				id := args["id"].(string)
				if r := f.call("kg_put_node", args); r.isError {
					t.Fatalf("before the fault: %s", r.text)
				}
				f.acked["user/"+id] = args["gist"].(string)
			}
			filler := fill(t, disk)
			const cause = "no space left on device"
			refusedUser, next := f.writeUntilRefused("user", 3, cause)
			refusedProject, next := f.writeUntilRefused("project", next, cause)
			refused := []string{"user/" + refusedUser, "project/" + refusedProject, f.restRefused("user", next, cause)}
			f.readsServe(refused...)
			// Degraded, naming the cause, while saves fail.
			if h := srv.health(); h.Storage != backend || h.Status != "degraded" || !strings.Contains(strings.Join(h.Problems, "\n"), cause) {
				t.Errorf("/health during the fault: %+v; want degraded naming %q", h, cause)
			}

			if err := os.Remove(filler); err != nil {
				t.Fatal(err)
			}
			for i := 100; i < 103; i++ {
				_, args := bigNode(f.sid, "project", i)
				if r := f.call("kg_put_node", args); r.isError {
					t.Fatalf("after room was made: %s", r.text)
				}
				f.acked["project/"+args["id"].(string)] = args["gist"].(string)
			}
			for _, level := range []string{"user"} {
				_, args := bigNode(f.sid, level, 200)
				if r := f.call("kg_put_node", args); r.isError {
					t.Fatalf("after room was made: %s", r.text)
				}
				f.acked[level+"/"+args["id"].(string)] = args["gist"].(string)
			}
			// Back to ok once saves succeed (the sessions' save and the
			// checkpoints run on the one-second tick).
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
				h := srv.health()
				if h.Status == "ok" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("/health after room was made and saves succeed: %+v", h)
				}
			}
			f.readsServe(refused...)
			f.storedAfterRestart(backend, root, refused...)
		})
	}
}

// bindReadOnly makes dir read-only by bind-mounting it over itself, or
// skips the test saying why the machine refused. Files a process opened
// before stay writable through what it opened (the kernel checks the
// mount at open): so does a filesystem remounted read-only by hand, where
// the remount is refused while files are open for writing.
func bindReadOnly(t *testing.T, dir string) (undo func()) {
	t.Helper()
	if out, err := exec.Command("mount", "--bind", dir, dir).CombinedOutput(); err != nil {
		t.Skipf("this machine does not let the test bind-mount a folder (%v: %s); the fault is produced through the file-system layer (cmd/kg TestFileFaultsUnderTheServer) only", err, strings.TrimSpace(string(out)))
	}
	mounted := true
	undo = func() {
		if mounted {
			mounted = false
			if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
				_ = exec.Command("umount", "-l", dir).Run()
				t.Errorf("umount %s: %v: %s", dir, err, out)
			}
		}
	}
	t.Cleanup(undo)
	if out, err := exec.Command("mount", "-o", "remount,bind,ro", dir).CombinedOutput(); err != nil {
		undo()
		t.Skipf("this machine does not let the test make a bind mount read-only (%v: %s)", err, strings.TrimSpace(string(out)))
	}
	return undo
}

// A read-only root. At start, the server refuses with one line naming the
// root and the cause. While it runs, json refuses every write naming the
// cause — it opens a journal for each append (it holds no file open per
// graph, docs/design/storage.md#unloading), and a new project's folder and a
// checkpoint's tmp cannot be made either (the journal keeps the writes
// acknowledged before) — while every bolt write goes on (bbolt writes
// through the one file it opened). Once the mount is gone, everything
// succeeds again, and every acknowledged write is stored.
func TestReadOnlyRoot(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"json", "bolt"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(t.TempDir(), "root")
			srv := startServer(t, backend, root, "--maintenance-interval", "1")
			f := newFaultRun(t, srv)
			stored := map[string]string{}
			put := func(level, id, gist string) result {
				return f.call("kg_put_node", map[string]any{"session_id": f.sid, "level": level, "id": id, "gist": gist})
			}
			// Two writes per graph: the first writes a json file whole, the
			// second opens its journal.
			for _, n := range []struct{ level, id string }{{"user", "u1"}, {"project", "p1"}, {"user", "u2"}, {"project", "p2"}} {
				if r := put(n.level, n.id, n.id+" before"); r.isError {
					t.Fatalf("before the fault: %s", r.text)
				}
				stored[n.level+"/"+n.id] = n.id + " before"
			}
			// A session for another project, whose graph has no folder yet.
			// (Its record is the sessions journal's first append, which
			// opens that journal.)
			other := projectDir(t, "elsewhere")
			c2, err := dialMCP(t.Context(), srv.addr, "kg-fault-test")
			if err != nil {
				t.Fatal(err)
			}
			defer c2.Close()
			r, err := callTool(t.Context(), c2, "kg_read", map[string]any{"cwd": other})
			if err != nil || r.isError {
				t.Fatalf("a session for another project: %v %s", err, r.text)
			}
			sid2 := sessionOf(r.text)

			undo := bindReadOnly(t, root)
			const cause = "read-only file system"

			// json refuses the writes of loaded graphs; bolt's open file
			// takes them.
			for _, n := range []struct{ level, id string }{{"user", "u3"}, {"project", "p3"}} {
				r := put(n.level, n.id, n.id+" during")
				switch {
				case backend == "json" && (!r.isError || !strings.Contains(r.text, "could not be saved (") || !strings.Contains(r.text, cause)):
					t.Errorf("json: a write to a loaded %s graph on a read-only root: %.300s; want it refused naming %q", n.level, r.text, cause)
				case backend == "bolt" && r.isError:
					t.Errorf("bolt: a write to a %s graph through the open kg.db: %s", n.level, r.text)
				case !r.isError:
					stored[n.level+"/"+n.id] = n.id + " during"
				}
			}
			// A new project needs a folder: json refuses it, bolt does not.
			r, err = callTool(t.Context(), c2, "kg_put_node", map[string]any{"session_id": sid2, "level": "project", "id": "e1", "gist": "e1 during"})
			switch {
			case err != nil:
				t.Fatal(err)
			case backend == "json" && (!r.isError || !strings.Contains(r.text, "Error: the project graph ("+other+") could not be saved (") || !strings.Contains(r.text, cause)):
				t.Errorf("json: the first write of a new project on a read-only root: %.300s; want it refused naming the graph and %q", r.text, cause)
			case backend == "bolt" && r.isError:
				t.Errorf("bolt: the first write of a new project, through the open kg.db: %s", r.text)
			}
			if backend == "json" {
				msg := "checkpoint failed; the journals keep every write, will retry next tick"
				srv.waitLog(msg, srv.log.count(msg)+1)
				if b, err := os.ReadFile(filepath.Join(root, "user.journal")); err != nil || !strings.Contains(string(b), "u2 before") {
					t.Errorf("user.journal after a failed checkpoint: %v; want it to keep u2", err)
				}
			}
			undo()

			if backend == "bolt" && !r.isError {
				stored["elsewhere/e1"] = "e1 during"
			}
			r, err = callTool(t.Context(), c2, "kg_put_node", map[string]any{"session_id": sid2, "level": "project", "id": "e2", "gist": "e2 after"})
			if err != nil || r.isError {
				t.Errorf("a new project's write once the root is writable: %v %s", err, r.text)
			}
			stored["elsewhere/e2"] = "e2 after"
			if r := put("user", "u4", "u4 after"); r.isError {
				t.Errorf("a write once the root is writable: %s", r.text)
			}
			stored["user/u4"] = "u4 after"
			srv.stop()
			checkFiles(t, backend, root)

			// At start, a read-only root is refused in one line.
			undo = bindReadOnly(t, root)
			cmd := exec.Command(kgBinary(t), serveArgs(backend, root)...)
			cmd.Env = childEnv(t)
			out, err := cmd.CombinedOutput()
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			if code := cmd.ProcessState.ExitCode(); err == nil || code != 1 || len(lines) != 1 ||
				strings.Count(lines[0], root) != 1 || !strings.Contains(lines[0], cause) {
				t.Errorf("kg serve on a read-only root: exit %d, output:\n%s\nwant exit 1 and one line naming %s once, and %q", code, out, root, cause)
			}

			undo()

			// Everything acknowledged is stored, nothing refused.
			srv = startServer(t, backend, root)
			got := map[string]string{}
			for graph, project := range map[string]string{"user": "", "project": f.project, "elsewhere": other} {
				for _, n := range srv.export(project).Nodes {
					got[graph+"/"+n.ID] = n.Gist
				}
			}
			srv.stop()
			if !maps.Equal(got, stored) {
				t.Errorf("stored after the fault: %v\nwant %v", got, stored)
			}
		})
	}
}

// setFileLimit sets the soft file-size limit of process pid (prlimit(2)):
// what `ulimit -S -f` set for it before it started, and what a person
// raises to clear the fault.
func setFileLimit(pid int, bytes uint64) error {
	lim := syscall.Rlimit{Cur: bytes, Max: ^uint64(0)}
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), uintptr(syscall.RLIMIT_FSIZE),
		uintptr(unsafe.Pointer(&lim)), 0, 0, 0); e != 0 {
		return e
	}
	return nil
}

// A file larger than the process may write: the server runs under `ulimit
// -S -f`; the save that would pass the limit fails with EFBIG (Go ignores
// SIGXFSZ), is refused, and once the limit is raised (prlimit) writes
// succeed again. (cmd/kg TestEFBIGSaveFailsServerKeepsServing holds the
// json server's message and its files under the same fault.)
func TestFileTooLarge(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("no bash to set a file-size limit: %v", err)
	}
	const limitKiB = 256
	for _, backend := range []string{"json", "bolt"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(t.TempDir(), "root")
			script := `ulimit -S -f ` + strconv.Itoa(limitKiB) + ` || exit 97; exec "$0" "$@"`
			cmd := exec.Command(bash, append([]string{"-c", script, kgBinary(t)}, serveArgs(backend, root, "--maintenance-interval", "1")...)...)
			srv := startServerCmd(t, backend, root, cmd)
			f := newFaultRun(t, srv)
			const cause = "file too large"
			refusedUser, next := f.writeUntilRefused("user", 0, cause)
			refused := []string{"user/" + refusedUser, f.restRefused("user", next, cause)}
			next++
			f.readsServe(refused...)

			if err := setFileLimit(srv.pid(), ^uint64(0)); err != nil {
				t.Fatalf("raise the file-size limit: %v", err)
			}
			for i := next; i < next+3; i++ {
				_, args := bigNode(f.sid, "user", i)
				if r := f.call("kg_put_node", args); r.isError {
					t.Fatalf("after the limit was raised: %s", r.text)
				}
				f.acked["user/"+args["id"].(string)] = args["gist"].(string)
			}
			f.readsServe(refused...)
			f.storedAfterRestart(backend, root, refused...)
		})
	}
}
