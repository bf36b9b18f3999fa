package main

// kg doctor's advice works when followed (issue 15): each case damages a
// root as real use does, runs kg doctor, checks what the finding says,
// does exactly what its fix says (runs the command it gives, or starts kg
// when it says so), and checks the root is then healthy: kg doctor finds
// nothing to warn of, and a server starts and serves every write that
// could be read.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/kg-memory/kg/adapters/storage/bolt"
	"github.com/kg-memory/kg/cmd/kg/internal/doctor"
)

// doctorRun runs kg doctor --json on root and returns its exit status and
// findings, failing the test if anything but the findings is printed.
func doctorRun(t *testing.T, root string) (int, []doctor.Finding) {
	t.Helper()
	code, out, stderr := runKG(t, nil, "doctor", "--json", "--storage-root", root)
	var got struct{ Findings []doctor.Finding }
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("kg doctor: exit %d, %v:\n%s%s", code, err, out, stderr)
	}
	if stderr != "" {
		t.Errorf("kg doctor printed more than its findings (log lines?):\n%s", stderr)
	}
	for _, f := range got.Findings {
		if f.Level != doctor.LevelOK && f.Fix == "" {
			t.Errorf("finding without a fix: %+v", f)
		}
		for _, leak := range []string{"msg=", "level=", "storage: ", "bolt: ", "(not kept", "changes nothing"} {
			if strings.Contains(f.Problem, leak) {
				t.Errorf("finding %+v holds an internal log line (%q)", f, leak)
			}
		}
	}
	return code, got.Findings
}

// findingOf returns the finding on subject of level containing problem.
func findingOf(t *testing.T, fs []doctor.Finding, level, subject string, problem ...string) doctor.Finding {
	t.Helper()
	for _, f := range fs {
		if f.Level != level || f.Subject != subject {
			continue
		}
		ok := true
		for _, p := range problem {
			ok = ok && strings.Contains(f.Problem, p)
		}
		if ok {
			return f
		}
	}
	t.Fatalf("no %s finding on %s saying %q; findings:\n%s", level, subject, problem, showFindings(fs))
	return doctor.Finding{}
}

func showFindings(fs []doctor.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s %s: %s\n      fix: %s\n", f.Level, f.Subject, f.Problem, f.Fix)
	}
	return b.String()
}

// healthy fails the test unless kg doctor exits 0 with nothing worse than
// information.
func healthy(t *testing.T, root string) []doctor.Finding {
	t.Helper()
	code, fs := doctorRun(t, root)
	for _, f := range fs {
		if f.Level == doctor.LevelWarn || f.Level == doctor.LevelError {
			t.Errorf("after following the advice, kg doctor still finds:\n%s", showFindings(fs))
			break
		}
	}
	if code != 0 {
		t.Errorf("after following the advice, kg doctor exits %d", code)
	}
	return fs
}

var fixCommand = regexp.MustCompile("`([^`]+)`")

// follow runs the command a fix gives (its first `code span`): a kg
// command as kg, on root unless it names one, anything else through sh.
// It returns the command's output.
func follow(t *testing.T, root, fix string) string {
	t.Helper()
	m := fixCommand.FindStringSubmatch(fix)
	if m == nil {
		t.Fatalf("the fix gives no command to run: %s", fix)
	}
	cmdline := m[1]
	if rest, ok := strings.CutPrefix(cmdline, "kg "); ok {
		args := strings.Fields(rest)
		if !strings.Contains(rest, "--storage-root") {
			args = append(args, "--storage-root", root)
		}
		code, out, stderr := runKG(t, nil, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", cmdline, code, out, stderr)
		}
		return out
	}
	cmd := exec.Command("sh", "-c", cmdline)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", cmdline, err, out.String())
	}
	return out.String()
}

// serverNodes starts kg on root and returns the ids of the nodes the user
// graph and each project serve (by path), then stops it.
func serverNodes(t *testing.T, root, storage string, projects ...string) map[string][]string {
	t.Helper()
	p := start(t, "--port", "0", "--storage", storage, "--storage-root", root)
	defer func() {
		if code := p.stop(syscall.SIGTERM); code != 0 {
			t.Errorf("the server exits %d\n%s", code, p.log())
		}
	}()
	if h := getHealth(t, p.Addr); h["status"] != "ok" {
		t.Errorf("health after following the advice: %v", h)
	}
	out := map[string][]string{}
	read := func(name, q string) {
		r := restJSON(t, p.Addr, "GET", "/api/graph/read"+q, nil, 200)
		g := r["user"]
		if q != "" {
			g = r["project"]
		}
		out[name] = ids(field(g, "nodes"))
	}
	read("user", "")
	for _, pr := range projects {
		read(pr, "?project_path="+pr)
	}
	return out
}

// putNodes writes user nodes through a server's REST API, one request (one
// journal record, one transaction) each.
func putNodes(t *testing.T, addr, project string, ids ...string) {
	t.Helper()
	for _, id := range ids {
		body := map[string]any{"level": "user", "id": id, "gist": "written as " + id}
		if project != "" {
			body["level"], body["project_path"] = "project", project
		}
		restJSON(t, addr, "POST", "/api/nodes", body, 200)
	}
}

func sameIDsOf(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	got, want = slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%s serves %v, want %v", what, got, want)
	}
}

// A damaged journal line followed by good ones: kg doctor names the line
// and its bytes and says to delete that line (sed, keeping a copy), not
// the journal, nor to restore a .prev; done, every other write is served.
func TestDoctorAdviceDamagedJournal(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	p := start(t, "--port", "0", "--storage-root", root, "--maintenance-interval", "86400")
	putNodes(t, p.Addr, "", "first", "second", "third", "fourth")
	p.stop(syscall.SIGKILL) // the journal keeps the records: no checkpoint ran
	journal := filepath.Join(root, "user.journal")
	raw, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n"))
	if len(lines) < 3 {
		t.Fatalf("the journal holds %d records, want 3 at least:\n%s", len(lines), raw)
	}
	start := len(lines[0])
	// The first write went into user.json whole; each later one is a
	// record. A changed byte in the second record: its checksum fails.
	lost := ""
	for _, id := range []string{"second", "third", "fourth"} {
		if bytes.Contains(lines[1], []byte(`"`+id+`"`)) {
			lost = id
		}
	}
	if lost == "" {
		t.Fatalf("no node of the second record:\n%s", lines[1])
	}
	damaged := bytes.Replace(lines[1], []byte("written as "+lost), []byte("written as "+strings.ToUpper(lost)), 1)
	raw = append(append(append(append([]byte{}, lines[0]...), damaged...), bytes.Join(lines[2:], nil)...), '\n')
	if err := os.WriteFile(journal, raw, 0o600); err != nil {
		t.Fatal(err)
	}

	code, fs := doctorRun(t, root)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	f := findingOf(t, fs, doctor.LevelError, "user.journal", "line 2", fmt.Sprintf("bytes %d–%d", start, start+len(lines[1])-1),
		fmt.Sprintf("%d whole record(s) follow", len(lines)-2))
	if !strings.Contains(f.Fix, "sed -i.bak 2d") || strings.Contains(f.Fix, ".prev") {
		t.Errorf("the fix does not say to delete line 2: %s", f.Fix)
	}
	follow(t, root, f.Fix)
	healthy(t, root)
	if _, err := os.Stat(journal + ".bak"); err != nil {
		t.Errorf("no copy of the damaged journal kept: %v", err)
	}
	var want []string
	for _, id := range []string{"first", "second", "third", "fourth"} {
		if id != lost {
			want = append(want, id)
		}
	}
	sameIDsOf(t, "the user graph", serverNodes(t, root, "json")["user"], want...)
}

// A user.json that does not load and no user.prev: kg doctor says exactly
// that (not that user.prev "does not load"), and to set the file aside;
// done, the graph starts again from its journal.
func TestDoctorAdviceDamagedFileWithoutPrev(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "user.json"), `{"nodes": [`)
	code, fs := doctorRun(t, root)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	f := findingOf(t, fs, doctor.LevelError, "user.json", "damaged", "there is no user.prev to fall back on")
	if strings.Contains(f.Problem, "does not load") {
		t.Errorf("a missing user.prev is called one that does not load: %s", f.Problem)
	}
	follow(t, root, f.Fix)
	fs = healthy(t, root)
	findingOf(t, fs, doctor.LevelInfo, filepath.Base(matchOne(t, root, "user.corrupt-*")), "damaged file kept aside")
	sameIDsOf(t, "the user graph", serverNodes(t, root, "json")["user"])
}

// A damaged user.json beside a good user.prev: a warning that the server
// loads the .prev; following it (start kg) leaves the damaged file kept
// aside and a healthy root.
func TestDoctorAdviceDamagedFileWithPrev(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "user.prev"), `{"nodes": {"kept": {"id": "kept", "gist": "in the previous version"}}, "edges": {}}`)
	writeFile(t, filepath.Join(root, "user.json"), `{"nodes": {"kept": `)
	code, fs := doctorRun(t, root)
	if code != 0 {
		t.Errorf("exit %d, want 0: the server recovers by itself", code)
	}
	f := findingOf(t, fs, doctor.LevelWarn, "user.json", "damaged", "user.prev, the version before its last save, loads")
	if !strings.HasPrefix(f.Fix, "nothing to do but start kg") {
		t.Fatalf("fix: %s", f.Fix)
	}
	sameIDsOf(t, "the user graph", serverNodes(t, root, "json")["user"], "kept")
	healthy(t, root)
}

// An alias whose move is still to come is no damage: an information that
// says what will happen, and no .prev advice where there is no .prev.
func TestDoctorAdviceAlias(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	project := filepath.Join(t.TempDir(), "new-name")
	if err := os.Mkdir(project, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "projects", "old-name", "graph.json"),
		`{"nodes": {"a": {"id": "a", "gist": "moved with its folder"}}, "edges": {}, "_meta": {"schema": 2, "seq": 1, "project_path": "`+project+`"}}`)
	writeFile(t, filepath.Join(root, "aliases.json"), `{"old-name": "new-name"}`)
	code, fs := doctorRun(t, root)
	if code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	f := findingOf(t, fs, doctor.LevelInfo, "projects/old-name", "aliases.json moves it to projects/new-name")
	for _, g := range fs {
		if strings.Contains(g.Problem, "damaged") || strings.Contains(g.Fix, ".prev") {
			t.Errorf("a benign alias is reported as damage: %+v", g)
		}
	}
	if f.Fix != "nothing to do" {
		t.Errorf("fix: %s", f.Fix)
	}
	sameIDsOf(t, "the project", serverNodes(t, root, "json", project)[project], "a")
	healthy(t, root)
	if _, err := os.Stat(filepath.Join(root, "projects", "new-name", "graph.json")); err != nil {
		t.Errorf("the alias did not move the folder: %v", err)
	}
}

// A project an older kg stored for a mere visit: kg doctor says it holds
// nothing and gives `kg project rm`; run, the root is healthy and the
// folder name free.
func TestDoctorAdviceEmptyProject(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "projects", "typo", "graph.json"),
		`{"_meta": {"progress": {}, "project_path": "/home/dev/typo", "schema": 2, "seq": 0, "tombstones": {}, "versions": {}}, "edges": {}, "nodes": {}}`)
	_, fs := doctorRun(t, root)
	f := findingOf(t, fs, doctor.LevelInfo, "project /home/dev/typo", "holds nothing")
	out := follow(t, root, f.Fix)
	if !strings.Contains(out, "removed /home/dev/typo: it held no memory") {
		t.Errorf("kg project rm: %s", out)
	}
	for _, g := range healthy(t, root) {
		if strings.Contains(g.Subject, "typo") {
			t.Errorf("still found: %+v", g)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "projects", "typo")); !os.IsNotExist(err) {
		t.Errorf("the folder is still there: %v", err)
	}
}

// A temporary file a crash left: delete it, as kg doctor says.
func TestDoctorAdviceStrayTemporaryFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	oldUserGraph(t, root, 2)
	writeFile(t, filepath.Join(root, "user.tmp"), `{"nodes": {`)
	_, fs := doctorRun(t, root)
	follow(t, root, findingOf(t, fs, doctor.LevelWarn, "user.tmp", "a temporary file left by a save").Fix)
	healthy(t, root)
}

// bolt: a damaged page of one project. kg doctor names the project and
// advises the salvage; `kg migrate --to json` copies every other graph,
// names the one it could not, and the root is then healthy and serves them.
// (kg doctor used to advise the same migrate, which then failed and copied
// nothing.)
func TestDoctorAdviceDamagedBoltPage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		damage  string // the part of the file whose page is zeroed; "" for the free list
		problem []string
	}{
		{"a page of a project", "the project graph /work/damaged", []string{"the project graph /work/damaged", "is damaged"}},
		{"the free list", "", []string{"kg serve refuses this file", "free list"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			file := boltRoot(t, root)
			p := start(t, "--port", "0", "--storage", "bolt", "--storage-root", root)
			putNodes(t, p.Addr, "", "u-after")
			putNodes(t, p.Addr, soundProject, "s-after")
			if code := p.stop(syscall.SIGTERM); code != 0 {
				t.Fatalf("exit %d\n%s", code, p.log())
			}
			if c.damage == "" {
				zeroPageAt(t, file, int(freelistPageOf(t, file)))
			} else {
				owners, _, err := bolt.PageOwners(file)
				if err != nil {
					t.Fatal(err)
				}
				for pg, o := range owners {
					if o == c.damage {
						zeroPageAt(t, file, pg)
						break
					}
				}
			}
			code, fs := doctorRun(t, root)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			f := findingOf(t, fs, doctor.LevelError, "kg.db", c.problem...)
			out := follow(t, root, f.Fix)
			t.Logf("%s", out)
			if c.damage != "" && !strings.Contains(out, "not copied, damaged in the bolt data") || !strings.Contains(out, "copied bolt → json") {
				t.Errorf("the salvage does not say what it copied and what not:\n%s", out)
			}
			healthy(t, root)
			got := serverNodes(t, root, "json", soundProject, damagedProject)
			sameIDsOf(t, "the user graph", got["user"], "n-0", "n-1", "n-2", "n-3", "n-4", "u-after")
			sameIDsOf(t, "the sound project", got[soundProject], "n-0", "n-1", "n-2", "s-after")
			if c.damage == "" && len(got[damagedProject]) != 300 {
				t.Errorf("the project of 300 nodes serves %d after the salvage of a file whose free list alone was damaged", len(got[damagedProject]))
			}
		})
	}
}

// freelistPageOf returns the free-list page the newer meta page of file
// names.
func freelistPageOf(t *testing.T, file string) uint64 {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ps := os.Getpagesize()
	var best, txid uint64
	for _, off := range []int{0, ps} {
		m := raw[off+16:]
		le := func(b []byte) uint64 {
			var v uint64
			for i := 7; i >= 0; i-- {
				v = v<<8 | uint64(b[i])
			}
			return v
		}
		if tx := le(m[48:]); tx >= txid {
			best, txid = le(m[32:]), tx
		}
	}
	return best
}

// matchOne returns the one file of root matching pattern.
func matchOne(t *testing.T, root, pattern string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(root, pattern))
	if len(m) != 1 {
		t.Fatalf("%s in %s: %v, want one", pattern, root, m)
	}
	return m[0]
}

// A torn last journal record (a kill in the middle of an append) and
// damaged sessions, json and bolt: nothing to do but start kg, says kg
// doctor; done, the root is healthy and the graphs whole.
func TestDoctorAdviceStartKG(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name           string
		storage        string
		damage         func(t *testing.T, root string)
		level, subject string
		problem        string
		want           []string // user nodes served afterwards
	}{
		{"a torn last journal record", "json", func(t *testing.T, root string) {
			journal := filepath.Join(root, "user.journal")
			raw, err := os.ReadFile(journal)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(journal, raw[:len(raw)-20], 0o600); err != nil {
				t.Fatal(err)
			}
		}, doctor.LevelInfo, "user.journal", "is cut short", []string{"first", "second"}},
		{"a damaged sessions.json", "json", func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, "sessions.json"), `{"3fa29c0d1e7b4a55": {"start_ts": `)
			_ = os.Remove(filepath.Join(root, "sessions.prev"))
		}, doctor.LevelWarn, "sessions.json", "damaged", []string{"first", "second", "third"}},
		{"damaged sessions pages", "bolt", func(t *testing.T, root string) {
			file := filepath.Join(root, bolt.FileName)
			owners, _, err := bolt.PageOwners(file)
			if err != nil {
				t.Fatal(err)
			}
			for pg, o := range owners {
				if o == "the sessions" {
					zeroPageAt(t, file, pg)
					return
				}
			}
			t.Skip("the sessions are inline: they have no page of their own")
		}, doctor.LevelWarn, "kg.db sessions", "damaged", []string{"first", "second", "third"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			p := start(t, "--port", "0", "--storage", c.storage, "--storage-root", root, "--maintenance-interval", "86400")
			putNodes(t, p.Addr, "", "first", "second", "third")
			for i := range 60 { // sessions enough to fill a page of their own
				restJSON(t, p.Addr, "POST", fmt.Sprintf("/api/sessions/register?project_path=/work/s%d", i), nil, 200)
			}
			if c.storage == "json" {
				p.stop(syscall.SIGKILL) // the journal keeps its records
			} else if code := p.stop(syscall.SIGTERM); code != 0 {
				t.Fatalf("exit %d", code)
			}
			c.damage(t, root)
			_, fs := doctorRun(t, root)
			f := findingOf(t, fs, c.level, c.subject, c.problem)
			if !strings.HasPrefix(f.Fix, "nothing to do") {
				t.Fatalf("fix: %s", f.Fix)
			}
			sameIDsOf(t, "the user graph", serverNodes(t, root, c.storage)["user"], c.want...)
			for _, g := range healthy(t, root) {
				if g.Subject == c.subject && strings.Contains(g.Problem, c.problem) {
					t.Errorf("still found after a start: %+v", g)
				}
			}
		})
	}
}

// Links where kg keeps its own files (.lock, .backend): kg doctor says to
// remove them; removed, the root is healthy.
func TestDoctorAdviceLinksInTheRoot(t *testing.T) {
	t.Parallel()
	for _, name := range []string{".lock", ".backend"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			oldUserGraph(t, root, 1)
			if err := os.Symlink(filepath.Join(t.TempDir(), "elsewhere"), filepath.Join(root, name)); err != nil {
				t.Fatal(err)
			}
			_, fs := doctorRun(t, root)
			follow(t, root, findingOf(t, fs, doctor.LevelError, name, "symbolic link").Fix)
			healthy(t, root)
		})
	}
}
