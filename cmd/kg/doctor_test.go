package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/kg-memory/kg/cmd/kg/internal/doctor"
)

// snapshotDir reads every file under dir.
func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == ".lock" {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// doctorFindings runs kg doctor --json and returns its exit status and
// findings by subject.
func doctorFindings(t *testing.T, root string) (int, map[string][]doctor.Finding) {
	t.Helper()
	code, out, stderr := runKG(t, nil, "doctor", "--json", "--storage-root", root)
	var got struct{ Findings []doctor.Finding }
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("exit %d, %v:\n%s%s", code, err, out, stderr)
	}
	by := map[string][]doctor.Finding{}
	for _, f := range got.Findings {
		by[f.Subject] = append(by[f.Subject], f)
		if f.Level != doctor.LevelOK && f.Fix == "" {
			t.Errorf("finding without a fix: %+v", f)
		}
	}
	return code, by
}

func wantFinding(t *testing.T, by map[string][]doctor.Finding, subject, level, problem string) {
	t.Helper()
	for _, f := range by[subject] {
		if f.Level == level && strings.Contains(f.Problem, problem) {
			return
		}
	}
	t.Errorf("no %s finding on %s containing %q; findings: %+v", level, subject, problem, by[subject])
}

// A root with what a crash and damage leave behind: each is found, with
// its fix, nothing is changed, and only what the server cannot recover
// from makes kg doctor exit 1.
func TestDoctor(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	oldUserGraph(t, root, 2)                                     // schema 1, as the replaced server wrote it
	writeFile(t, filepath.Join(root, "user.tmp"), `{"nodes": {`) // a save cut short
	writeFile(t, filepath.Join(root, "sessions.json"), `{}`)
	gone := filepath.Join(t.TempDir(), "deleted-project")
	good := `{"nodes": {}, "edges": {}, "_meta": {"schema": 2, "seq": 1, "project_path": "` + gone + `"}}`
	writeFile(t, filepath.Join(root, "projects", "deleted-project", "graph.json"), good)
	writeFile(t, filepath.Join(root, "projects", "deleted-project", "graph.corrupt-1716400000"), `{"nod`)
	writeFile(t, filepath.Join(root, "projects", "damaged", "graph.json"), `{"nodes": [`)
	writeFile(t, filepath.Join(root, "projects", "damaged", "graph.prev"), `{"nodes": {}, "_meta": {"project_path": "/srv/damaged"}}`)
	before := snapshotDir(t, root)

	code, by := doctorFindings(t, root)
	if code != 0 {
		t.Errorf("exit %d with warnings only, want 0", code)
	}
	wantFinding(t, by, ".backend", doctor.LevelInfo, "missing; the files say json")
	wantFinding(t, by, ".lock", doctor.LevelOK, "no server runs")
	wantFinding(t, by, "user.json", doctor.LevelInfo, "schema 1, as the replaced server wrote it")
	wantFinding(t, by, "user.tmp", doctor.LevelWarn, "a temporary file left by a save that did not finish")
	wantFinding(t, by, "projects/deleted-project/graph.corrupt-1716400000", doctor.LevelInfo, "a damaged file kept aside")
	wantFinding(t, by, "project "+gone, doctor.LevelInfo, "the folder no longer exists")
	wantFinding(t, by, "sessions.json", doctor.LevelOK, "0 session(s)")
	wantFinding(t, by, "projects/damaged/graph.json", doctor.LevelWarn, "projects/damaged/graph.prev, the version before its last save, loads")

	// Damage the user graph with a good .prev: a warning; without one, an
	// error and exit 1.
	writeFile(t, filepath.Join(root, "user.prev"), `{"nodes": {}, "edges": {}}`)
	writeFile(t, filepath.Join(root, "user.json"), `{"nodes": [}`)
	code, by = doctorFindings(t, root)
	wantFinding(t, by, "user.json", doctor.LevelWarn, "user.prev, the version before its last save, loads")
	if code != 0 {
		t.Errorf("exit %d for a damaged file with a good .prev, want 0", code)
	}
	if err := os.Remove(filepath.Join(root, "user.prev")); err != nil {
		t.Fatal(err)
	}
	delete(before, filepath.Join(root, "user.json"))
	code, by = doctorFindings(t, root)
	wantFinding(t, by, "user.json", doctor.LevelError, "there is no user.prev to fall back on")
	if code != 1 {
		t.Errorf("exit %d for a graph that does not load, want 1", code)
	}
	after := snapshotDir(t, root)
	delete(after, filepath.Join(root, "user.json"))
	for p, b := range before {
		if after[p] != b {
			t.Errorf("kg doctor changed %s", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("kg doctor made %s", p)
		}
	}
}

// With a server running, kg doctor names it and checks the files beside
// it; on bolt it leaves the file to the server.
func TestDoctorBesideAServer(t *testing.T) {
	t.Parallel()
	for _, storage := range []string{"json", "bolt"} {
		t.Run(storage, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			p := start(t, "--port", "0", "--storage-root", root, "--storage", storage)
			code, by := doctorFindings(t, root)
			if code != 0 {
				t.Errorf("exit %d", code)
			}
			wantFinding(t, by, ".lock", doctor.LevelOK, "held by the server of pid "+strconv.Itoa(p.cmd.Process.Pid))
			if storage == "bolt" {
				wantFinding(t, by, "kg.db", doctor.LevelInfo, "not opened: the server holds it")
			}
			if code := p.stop(syscall.SIGTERM); code != 0 {
				t.Errorf("server exit %d", code)
			}
			if storage == "bolt" {
				code, by = doctorFindings(t, root)
				wantFinding(t, by, "kg.db", doctor.LevelOK, "every page reads")
				wantFinding(t, by, "kg.db user", doctor.LevelOK, "empty")
				if code != 0 {
					t.Errorf("stopped: exit %d", code)
				}
			}
		})
	}
}
