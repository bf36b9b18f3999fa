package app

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kg-memory/kg/adapters/filehash"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/stale"
)

// withFiles restarts e's service with the real file hasher.
func (e *env) withFiles() *env {
	e.t.Helper()
	e.files = filehash.OS{}
	e.restart()
	return e
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// projectNode returns node id of the project graph of root as the web page
// reads it (nothing promoted).
func (e *env) projectNode(root, id string) *domain.Node {
	e.t.Helper()
	res, err := e.svc.ReadGraphs(e.ctx, Scope{ProjectPath: root})
	if err != nil || res.Project == nil {
		e.t.Fatalf("ReadGraphs(%s): %v", root, err)
	}
	for _, n := range res.Project.Nodes {
		if n.ID == id {
			return n
		}
	}
	e.t.Fatalf("node %q not in project %s", id, root)
	return nil
}

func (e *env) putTouches(sid, id, gist string, touches ...string) {
	e.t.Helper()
	if _, err := e.svc.PutNode(e.ctx, project(sid), domain.NodeInput{ID: id, Gist: gist, Touches: touches}); err != nil {
		e.t.Fatalf("PutNode %s: %v", id, err)
	}
}

func staleOf(n *domain.Node) string { return stale.Mark(n.Stale) }

// A real git repository: files recorded at write time with git's blob ids;
// a change, a delete and a rename mark their nodes in every read; nothing
// outside the project, no URL, no file over 1 MiB is ever stale; a new write
// clears the mark; the check takes no seq and the marks are found again after
// a restart.
func TestStalenessInAGitRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	base := t.TempDir()
	root := filepath.Join(base, "repo")
	writeFile(t, filepath.Join(root, "src/auth/refresh.py"), "def refresh():\n    return token\n")
	writeFile(t, filepath.Join(root, "src/util.py"), "def helper(): pass\n")
	writeFile(t, filepath.Join(root, "src/rename.py"), "x = 1\n")
	writeFile(t, filepath.Join(root, "docs/old.md"), "# old\n")
	writeFile(t, filepath.Join(root, "big.bin"), strings.Repeat("b", stale.MaxHashedFileBytes+1))
	writeFile(t, filepath.Join(base, "outside.txt"), "not the project's\n")
	if err := os.Symlink(filepath.Join(base, "outside.txt"), filepath.Join(root, "linked.txt")); err != nil {
		t.Fatal(err)
	}
	git(t, root, "init", "-q")
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "one")

	e := newEnv(t).withFiles()
	sid := e.session(root)
	e.putTouches(sid, "auth-token-refresh", "refresh tokens slide", "src/auth/refresh.py", "https://example.com/src/auth/refresh.py",
		"../outside.txt", filepath.Join(base, "outside.txt"), "big.bin", "linked.txt", "no/such/file.py")
	e.putTouches(sid, "util-helpers", "helpers live in util", filepath.Join(root, "src/util.py"))
	e.putTouches(sid, "rename-me", "the module to rename", "src/rename.py")
	e.put(project(sid), "old-docs", "the old docs say so")
	e.edge(project(sid), "old-docs", "docs/old.md", "describes")

	n := e.projectNode(root, "auth-token-refresh")
	want := "git:" + git(t, root, "rev-parse", "HEAD:src/auth/refresh.py")
	if len(n.Files) != 1 || n.Files[0] != (domain.FileStamp{Path: "src/auth/refresh.py", Hash: want}) {
		t.Fatalf("auth-token-refresh recorded %+v; want only src/auth/refresh.py at %s (no URL, nothing outside, nothing over 1 MiB, nothing missing)", n.Files, want)
	}
	if d := e.projectNode(root, "old-docs"); len(d.Files) != 1 || d.Files[0].Path != "docs/old.md" {
		t.Fatalf("the edge's file end was not recorded on old-docs: %+v", d.Files)
	}
	e.svc.maint.Tick(e.ctx)
	if ids := e.staleIDs(root); len(ids) != 0 {
		t.Fatalf("nothing changed, yet stale: %v", ids)
	}

	// A change, a delete and a rename, committed; the outside file changes too.
	writeFile(t, filepath.Join(root, "src/auth/refresh.py"), "def refresh():\n    return rotate(token)\n")
	if err := os.Remove(filepath.Join(root, "docs/old.md")); err != nil {
		t.Fatal(err)
	}
	git(t, root, "mv", "src/rename.py", "src/renamed.py")
	git(t, root, "commit", "-q", "-am", "two")
	writeFile(t, filepath.Join(base, "outside.txt"), "changed, but not the project's\n")
	writeFile(t, filepath.Join(root, "big.bin"), strings.Repeat("c", stale.MaxHashedFileBytes+1))

	seq, v := e.graphSeq(root), e.projectNode(root, "auth-token-refresh").Version
	e.syncCount(sid) // the writes above, reported
	e.svc.maint.Tick(e.ctx)
	wantMarks := map[string]string{
		"auth-token-refresh": "[stale: src/auth/refresh.py changed]",
		"old-docs":           "[stale: docs/old.md vanished]",
		"rename-me":          "[stale: src/rename.py vanished]",
	}
	for id, mark := range wantMarks {
		if got := staleOf(e.projectNode(root, id)); got != mark {
			t.Errorf("%s: mark %q, want %q", id, got, mark)
		}
	}
	if got := staleOf(e.projectNode(root, "util-helpers")); got != "" {
		t.Errorf("util-helpers is unchanged, marked %q", got)
	}
	if e.graphSeq(root) != seq || e.projectNode(root, "auth-token-refresh").Version != v {
		t.Errorf("the check took a seq or a version: seq %d→%d", seq, e.graphSeq(root))
	}
	if got := e.syncCount(sid); got != 0 {
		t.Errorf("kg_sync reports %d changes after the check, want none", got)
	}

	// Every read marks it: the full read, read by id, search, the preload.
	full, err := e.svc.Read(e.ctx, ReadRequest{SessionID: sid})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, an := range full.Full.Project.View.Active {
		if an.ID == "auth-token-refresh" {
			found = staleOf(an) == wantMarks[an.ID]
		}
	}
	if !found {
		t.Error("the full read does not mark auth-token-refresh")
	}
	if rd := e.readByID(sid, "old-docs"); staleOf(rd[0].Node) != wantMarks["old-docs"] {
		t.Errorf("read by id: %q", staleOf(rd[0].Node))
	}
	sr, err := e.svc.Search(e.ctx, SearchRequest{Query: "module rename", SessionID: sid})
	if err != nil || len(sr.Hits) == 0 || sr.Hits[0].Node.ID != "rename-me" || staleOf(sr.Hits[0].Node) != wantMarks["rename-me"] {
		t.Errorf("search: %+v, %v", sr.Hits, err)
	}
	if pre := e.preload(root); !strings.Contains(pre.Text, "  auth-token-refresh [stale: src/auth/refresh.py changed]: refresh tokens slide\n") {
		t.Errorf("the preload does not mark it:\n%s", pre.Text)
	}

	// A new write clears the mark at once and records the file as it is.
	e.putTouches(sid, "auth-token-refresh", "refresh tokens rotate", "src/auth/refresh.py")
	n = e.projectNode(root, "auth-token-refresh")
	if n.Stale != nil || n.Files[0].Hash != "git:"+git(t, root, "rev-parse", "HEAD:src/auth/refresh.py") {
		t.Errorf("after a new write: stale %v, recorded %+v", n.Stale, n.Files)
	}
	// So does writing the edge that names a vanished file again, once the
	// file is back.
	writeFile(t, filepath.Join(root, "docs/old.md"), "# back\n")
	e.edge(project(sid), "old-docs", "docs/old.md", "describes")
	if got := staleOf(e.projectNode(root, "old-docs")); got != "" {
		t.Errorf("old-docs after its edge was written again: %q", got)
	}

	// The marks are not stored: after a restart the check finds them again.
	e.restart()
	if got := staleOf(e.projectNode(root, "rename-me")); got != "" {
		t.Errorf("a mark came back from storage: %q", got)
	}
	e.svc.maint.Tick(e.ctx)
	if got := staleOf(e.projectNode(root, "rename-me")); got != wantMarks["rename-me"] {
		t.Errorf("after a restart and a tick: %q, want %q", got, wantMarks["rename-me"])
	}
	if ids := e.staleIDs(root); strings.Join(ids, ",") != "rename-me" {
		t.Errorf("stale after the restart: %v, want rename-me only", ids)
	}

	// A root that is gone: unverifiable, so nothing is stale.
	if err := os.Rename(root, root+"-moved"); err != nil {
		t.Fatal(err)
	}
	e.svc.maint.Tick(e.ctx)
	if ids := e.staleIDs(root); len(ids) != 0 {
		t.Errorf("the root is gone, yet stale: %v", ids)
	}
	// Nothing was archived or deleted by any of it.
	for id := range wantMarks {
		if n := e.projectNode(root, id); n.Tier != domain.Active {
			t.Errorf("%s is %s", id, n.Tier)
		}
	}
}

// A folder that is no git work tree records SHA-256 and marks a change.
func TestStalenessInAPlainFolder(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "notes.txt"), "abc")
	e := newEnv(t).withFiles()
	sid := e.session(root)
	e.putTouches(sid, "plain", "a plain folder", "notes.txt")
	if n := e.projectNode(root, "plain"); len(n.Files) != 1 ||
		n.Files[0].Hash != "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf("recorded %+v; want the file's SHA-256 (the temporary folder is no git work tree)", n.Files)
	}
	writeFile(t, filepath.Join(root, "notes.txt"), "abd")
	e.svc.maint.Tick(e.ctx)
	if got := staleOf(e.projectNode(root, "plain")); got != "[stale: notes.txt changed]" {
		t.Errorf("mark %q", got)
	}
	// The user graph names no project's files: nothing is recorded there.
	r, err := e.svc.PutNode(e.ctx, user(sid), domain.NodeInput{ID: "u", Gist: "user level", Touches: []string{filepath.Join(root, "notes.txt")}})
	if err != nil || r.Node.Files != nil {
		t.Errorf("user graph node recorded %+v (%v)", r.Node.Files, err)
	}
}

// The tick reads at most StaleFilesPerTick files, in turn across graphs and
// files, so that every file is read within ⌈files / bound⌉ ticks.
func TestStalenessTickIsBoundedAndReadsEveryFileInTurn(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.StaleFilesPerTick = 3 })
	e.withFiles()
	roots := []string{t.TempDir(), t.TempDir()}
	total := 0
	for gi, root := range roots {
		sid := e.session(root)
		for i := range 2 + gi*3 { // 2 files in one graph, 5 in the other
			p := fmt.Sprintf("f%d.txt", i)
			writeFile(t, filepath.Join(root, p), "v1")
			e.putTouches(sid, fmt.Sprintf("n%d", i), "node "+p, p)
			total++
		}
	}
	for _, root := range roots {
		for i := range 5 {
			if p := filepath.Join(root, fmt.Sprintf("f%d.txt", i)); fileExists(p) {
				writeFile(t, p, "v2")
			}
		}
	}
	read, ticks := 0, 0
	for ; ticks < 10; ticks++ {
		n := e.svc.maint.CheckStaleFiles(e.ctx)
		if n > 3 {
			t.Fatalf("tick %d read %d files, bound 3", ticks, n)
		}
		read += n
		stale := len(e.staleIDs(roots[0])) + len(e.staleIDs(roots[1]))
		if stale == total {
			break
		}
	}
	if ticks+1 != (total+2)/3 {
		t.Errorf("every file read after %d ticks, want ⌈%d/3⌉ = %d (read %d)", ticks+1, total, (total+2)/3, read)
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// staleIDs lists the marked nodes of root's graph.
func (e *env) staleIDs(root string) []string {
	e.t.Helper()
	res, err := e.svc.ReadGraphs(e.ctx, Scope{ProjectPath: root})
	if err != nil {
		e.t.Fatal(err)
	}
	var ids []string
	for _, n := range res.Project.Nodes {
		if len(n.Stale) > 0 {
			ids = append(ids, n.ID)
		}
	}
	return ids
}

func (e *env) graphSeq(root string) uint64 {
	e.t.Helper()
	res, err := e.svc.ReadGraphs(e.ctx, Scope{ProjectPath: root})
	if err != nil {
		e.t.Fatal(err)
	}
	return res.Project.Seq
}

// syncCount is how many changes kg_sync reports to session sid.
func (e *env) syncCount(sid string) int {
	e.t.Helper()
	r, err := e.svc.Sync(e.ctx, sid)
	if err != nil {
		e.t.Fatal(err)
	}
	n := 0
	if r.Project != nil {
		n += len(r.Project.Items)
	}
	return n + len(r.User.Items)
}
