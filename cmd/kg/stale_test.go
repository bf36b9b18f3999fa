package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kg-memory/kg/adapters/filehash"
	"github.com/kg-memory/kg/cmd/kg/internal/doctor"
)

// kg doctor --stale reads the files the nodes recorded and reports each
// node whose files changed or vanished, with its files; it writes nothing
// to the storage root (docs/decisions/0049-read-only-commands-and-doctor-advice.md).
func TestDoctorListsStaleNodes(t *testing.T) {
	t.Parallel()
	proj := t.TempDir()
	writeFile(t, filepath.Join(proj, "src/a.py"), "v1")
	writeFile(t, filepath.Join(proj, "src/b.py"), "same")
	stamp := func(content string) string { return filehash.Sum("sha256", []byte(content)) }
	doc := fmt.Sprintf(`{"format":"kg-graph","version":1,"level":"project","project_path":%q,"exported_ts":1716400000,"progress":{},"edges":[],"nodes":[
	 {"id":"changed-one","gist":"about a","tier":"active","version":1,"touches":["src/a.py"],"files":{"src/a.py":%q}},
	 {"id":"gone-one","gist":"about gone","tier":"active","version":1,"touches":["src/gone.py","src/b.py"],"files":{"src/gone.py":%q,"src/b.py":%q}},
	 {"id":"fresh-one","gist":"about b","tier":"active","version":1,"touches":["src/b.py"],"files":{"src/b.py":%q}},
	 {"id":"old-one","gist":"written before stamps","tier":"active","version":1,"touches":["src/a.py"]}]}`,
		proj, stamp("v0"), stamp("x"), stamp("same"), stamp("same"))
	file := filepath.Join(t.TempDir(), "doc.json")
	writeFile(t, file, doc)
	root := t.TempDir()
	if code, out, stderr := runKG(t, nil, "import", file, "--storage-root", root); code != 0 {
		t.Fatalf("import: exit %d %s%s", code, out, stderr)
	}
	before := treeOf(t, root)
	code, out, stderr := runKG(t, nil, "doctor", "--stale", "--json", "--storage-root", root)
	if code != 0 {
		t.Fatalf("doctor: exit %d %s%s", code, out, stderr)
	}
	var got struct{ Findings []doctor.Finding }
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var stale []string
	for _, f := range got.Findings {
		if strings.Contains(f.Problem, "possibly stale") {
			if f.Level != doctor.LevelWarn || !strings.Contains(f.Fix, "write it again") {
				t.Errorf("finding %+v", f)
			}
			stale = append(stale, f.Problem)
		}
	}
	want := []string{"node changed-one is possibly stale: src/a.py changed", "node gone-one is possibly stale: src/gone.py vanished"}
	if strings.Join(stale, "|") != strings.Join(want, "|") {
		t.Errorf("stale findings %q, want %q", stale, want)
	}
	if after := treeOf(t, root); after != before {
		t.Errorf("doctor --stale changed the storage root:\nbefore %s\nafter  %s", before, after)
	}
	if _, out, _ := runKG(t, nil, "doctor", "--storage-root", root); strings.Contains(out, "possibly stale") {
		t.Errorf("doctor without --stale: %s", out)
	}
}

// treeOf lists every file under dir with its size and time of change.
func treeOf(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %d\n", p, fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
