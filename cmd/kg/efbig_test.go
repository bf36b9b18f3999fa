package main

// A json server run under `ulimit -f`: a save that outgrows the limit fails
// with EFBIG (Go ignores SIGXFSZ, so the write fails rather than the process
// dying), the write is refused as unavailable, nothing acknowledged is lost,
// nothing refused appears, and the server keeps serving
// (docs/design/storage.md#failed-saves).

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/kg-memory/kg/adapters/storage/jsonfile"
	"github.com/kg-memory/kg/domain"
)

// efbigLimitKiB is the child's file-size limit in 1 KiB blocks (bash's
// `ulimit -f` unit). Each node below is about 9 KB of JSON, so a handful
// are acknowledged before the user graph outgrows it.
const efbigLimitKiB = 64

// efbigMaxNodes bounds the writes: the limit is reached long before.
const efbigMaxNodes = 40

// startUnderFileLimit runs `kg serve --log-format json args...` through
// bash with `ulimit -f kib` and returns once it logs its address, as start
// does. bash execs kg, so the process is kg itself.
func startUnderFileLimit(t *testing.T, kib int, args ...string) *proc {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("no bash to set a file-size limit: %v", err)
	}
	script := `ulimit -f ` + strconv.Itoa(kib) + ` || exit 97; exec "$0" serve --log-format json "$@"`
	return startCmd(t, exec.Command(bash, append([]string{"-c", script, kgBin(t)}, args...)...))
}

// mcpClient connects mcp-go's Streamable HTTP client to a child server and
// wraps it in a kgServer, so that call, ok, fails and session apply. Only
// those methods may be used on it: the child is stopped through its proc.
func mcpClient(t *testing.T, addr string) *kgServer {
	t.Helper()
	tr, err := transport.NewStreamableHTTP("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcpgo.Implementation{Name: "kg-efbig-test", Version: "1"}
	if _, err := c.Initialize(context.Background(), init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return &kgServer{t: t, storage: "json", client: c, stopped: true}
}

// efbigNode is the arguments of the i-th large node: a 1,000-char gist and
// two notes of 4,000 chars, all distinct per node.
func efbigNode(sid string, i int) (id string, args map[string]any) {
	id = fmt.Sprintf("efbig-%02d", i)
	pad := func(prefix string, n int) string {
		return prefix + strings.Repeat(string(rune('a'+i%26)), n-len(prefix))
	}
	gist := pad(fmt.Sprintf("efbig gist %02d ", i), 1000)
	notes := []any{pad(fmt.Sprintf("note one of %02d ", i), 4000), pad(fmt.Sprintf("note two of %02d ", i), 4000)}
	return id, map[string]any{"session_id": sid, "level": "user", "id": id, "gist": gist, "notes": notes}
}

func TestEFBIGSaveFailsServerKeepsServing(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the kg binary several times; skipped under -short")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("no bash to set a file-size limit: %v", err)
	}
	out, err := exec.Command(bash, "-c", "ulimit -f "+strconv.Itoa(efbigLimitKiB)+" && ulimit -f").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != strconv.Itoa(efbigLimitKiB) {
		t.Skipf("`ulimit -f %d` is not available here: %v %q", efbigLimitKiB, err, out)
	}

	root := filepath.Join(t.TempDir(), "root")
	args := []string{"--port", "0", "--storage-root", root, "--storage", "json", "--maintenance-interval", "86400"}
	p := startUnderFileLimit(t, efbigLimitKiB, args...)
	s := mcpClient(t, p.Addr)
	sid := s.session(projectDir(t, "efbig-project"))

	// Write large nodes until one is refused. A transport error means the
	// child died (SIGXFSZ not ignored) or broke: say which, precisely.
	var acked []string
	var failedID, failedText string
	for i := 0; i < efbigMaxNodes && failedID == ""; i++ {
		id, a := efbigNode(sid, i)
		req := mcpgo.CallToolRequest{}
		req.Params.Name = "kg_put_node"
		req.Params.Arguments = a
		res, err := s.client.CallTool(context.Background(), req)
		if err != nil {
			select {
			case <-p.done:
				_ = p.cmd.Wait()
				t.Fatalf("kg_put_node %s: %v; the child died: %v (signaled: %v)\n%s", id, err,
					p.cmd.ProcessState, p.cmd.ProcessState.Sys().(syscall.WaitStatus).Signaled(), p.log())
			case <-time.After(10 * time.Second):
				t.Fatalf("kg_put_node %s: JSON-RPC/transport error and the child still runs: %v\n%s", id, err, p.log())
			}
		}
		var text string
		for _, c := range res.Content {
			if tc, ok := c.(mcpgo.TextContent); ok {
				text += tc.Text
			}
		}
		if !res.IsError {
			if want := `Node "` + id + `" saved to user graph (v`; !strings.HasPrefix(text, want) {
				t.Fatalf("kg_put_node %s: %q, want it to start with %q", id, text, want)
			}
			acked = append(acked, id)
			continue
		}
		failedID, failedText = id, text
	}
	if failedID == "" {
		t.Fatalf("%d nodes of ~9 KB were all saved under ulimit -f %d: the limit did not apply", len(acked), efbigLimitKiB)
	}
	if len(acked) < 2 {
		t.Fatalf("only %d node(s) acknowledged before the failure; the test proves little: %q", len(acked), failedText)
	}
	t.Logf("%d nodes acknowledged; %s refused: %s", len(acked), failedID, failedText)
	for _, want := range []string{"Error: ", "user graph could not be saved", "file too large", "retry later"} {
		if !strings.Contains(failedText, want) {
			t.Errorf("the refused write's message lacks %q: %q", want, failedText)
		}
	}
	if strings.Contains(failedText, "\n") {
		t.Errorf("the refused write's message is not one line: %q", failedText)
	}
	// The child logs the failure before it answers, but the log reaches
	// p.log() through a pipe and a reader goroutine: wait for it.
	waitLog(t, p, `"msg":"graph save failed; batch rolled back"`, 1)

	// Still serving: health, a full read, and a search that sees exactly the
	// acknowledged nodes (the refused one was rolled back in memory). These
	// calls stamp nothing, so the shutdown has nothing new to save.
	select {
	case <-p.done:
		_ = p.cmd.Wait()
		t.Fatalf("the child exited after the failed save: %v\n%s", p.cmd.ProcessState, p.log())
	default:
	}
	if h := getHealth(t, p.Addr); h["storage"] != "json" {
		t.Errorf("/health after the failed save = %v", h)
	} else {
		t.Logf("/health after the failed save: status %v", h["status"])
	}
	full := s.ok("kg_read", map[string]any{"session_id": sid})
	if got := ids(field(full.structured, "user", "active")); !slices.Equal(got, acked) {
		t.Errorf("full read after the failed save lists %v active, want the acknowledged %v", got, acked)
	}
	for _, id := range acked {
		mustContain(t, full.text, id+": efbig gist ")
	}
	mustNotContain(t, full.text, failedID)
	found := s.ok("kg_search", map[string]any{"session_id": sid, "query": "efbig", "level": "user", "limit": 100})
	if got := sortedIDs(field(found.structured, "hits")); !slices.Equal(got, acked) {
		t.Errorf("search after the failed save found %v, want the acknowledged %v\n%s", got, acked, found.text)
	}

	if code := p.stop(syscall.SIGTERM); code != 0 {
		t.Fatalf("exit status %d after SIGTERM, want 0\n%s", code, p.log())
	}

	// On disk: the graph file parses, and with its journal holds exactly
	// the acknowledged nodes. (The limit may keep the shutdown from
	// writing user.json whole: the journal then keeps the last writes.)
	readJSONFile(t, filepath.Join(root, "user.json"))
	st, err := jsonfile.Open(root, jsonfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := st.Load(context.Background(), domain.UserGraph)
	if err != nil {
		t.Fatalf("load the stored user graph: %v", err)
	}
	var onDisk []string
	for _, n := range stored.Nodes {
		onDisk = append(onDisk, n.ID)
	}
	slices.Sort(onDisk)
	if !slices.Equal(onDisk, acked) {
		t.Errorf("user.json and user.journal hold %v, want the acknowledged %v", onDisk, acked)
	}
	if _, err := os.Stat(filepath.Join(root, "user.tmp")); err == nil {
		t.Logf("note: user.tmp (the partial write) is left in the root")
	}

	// Restarted without the limit, on the same root and session.
	q := start(t, args...)
	r := mcpClient(t, q.Addr)
	for i, id := range acked {
		got := r.ok("kg_read", map[string]any{"session_id": sid, "id": id, "level": "user"})
		_, a := efbigNode(sid, i)
		n, _ := field(got.structured, "nodes", 0).(map[string]any)
		if n["id"] != id || n["gist"] != a["gist"] || !slices.Equal(strs(n["notes"]), []string{a["notes"].([]any)[0].(string), a["notes"].([]any)[1].(string)}) {
			t.Errorf("after restart, %s reads back as %v", id, got.structured)
		}
	}
	r.fails("kg_read", map[string]any{"session_id": sid, "id": failedID, "level": "user"}, "not found")
	if code := q.stop(syscall.SIGTERM); code != 0 {
		t.Fatalf("restarted server's exit status %d, want 0\n%s", code, q.log())
	}
}

// sortedIDs returns the id field of each object of a decoded JSON list,
// sorted.
func sortedIDs(v any) []string {
	out := ids(v)
	slices.Sort(out)
	return out
}
