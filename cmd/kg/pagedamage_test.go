package main

import (
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/kg-memory/kg/adapters/storage/bolt"
)

// The built server on a kg.db with one damaged page, for a page of every
// part of the file (each graph, the list of projects, the sessions, the
// free list, the root bucket, both meta pages): it never crashes; it either
// refuses to start with one line and exit 1 (only the free list and the
// root bucket, which everything is found through), or serves: /health names
// what is damaged, every graph the page does not belong to reads and takes a
// write, and the damaged one says why it is unavailable.
func TestServerOnADamagedPageOfEachPart(t *testing.T) {
	t.Parallel()
	pristine := t.TempDir()
	file := boltRoot(t, pristine)
	owners, _, err := bolt.PageOwners(file)
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]int{"meta page 0": 0, "meta page 1": 1, "the free list": int(freelistPageOf(t, file))}
	for pg, o := range owners {
		if _, ok := pages[o]; o != "" && !ok {
			pages[o] = pg
		}
	}
	for _, what := range slices.Sorted(func(yield func(string) bool) {
		for w := range pages {
			if !yield(w) {
				return
			}
		}
	}) {
		t.Run(what, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			copyDir(t, pristine, root)
			zeroPageAt(t, filepath.Join(root, bolt.FileName), pages[what])
			args := []string{"--port", "0", "--storage", "bolt", "--storage-root", root}
			if what == "the free list" || what == "the page that lists kg's buckets" {
				code, _, stderr := runKG(t, nil, append([]string{"serve", "--log-level", "error"}, args...)...)
				lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
				if code != 1 || len(lines) != 1 || !strings.Contains(stderr, "cannot be opened") {
					t.Errorf("exit %d, want 1 with one line:\n%s", code, stderr)
				}
				return
			}
			p := start(t, args...)
			h := getHealth(t, p.Addr)
			graphs := map[string]string{"the user graph": "", "the project graph " + damagedProject: damagedProject, "the project graph " + soundProject: soundProject}
			for name, project := range graphs {
				level, section := "user", "user"
				q := "/api/graph/read?project_path=" + soundProject // a graph read serves the graph it can
				if project != "" {
					level, section, q = "project", "project", "/api/graph/read?project_path="+project
				}
				read := restJSON(t, p.Addr, "GET", q, nil, 200)[section]
				if name == what || (project != "" && what == "the list of project graphs") {
					if why, _ := field(read, "unavailable").(string); !strings.Contains(why, "damaged") {
						t.Errorf("%s: %v, want why it is unavailable", name, read)
					}
					if h["status"] != "degraded" {
						t.Errorf("health = %v, want degraded", h)
					}
					continue
				}
				if field(read, "unavailable") != nil || len(ids(field(read, "nodes"))) == 0 {
					t.Errorf("%s, which the page is not part of: %v", name, read)
					continue
				}
				body := map[string]any{"level": level, "id": "after-the-damage", "gist": "still writable"}
				if project != "" {
					body["project_path"] = project
				}
				restJSON(t, p.Addr, "POST", "/api/nodes", body, 200)
			}
			if code := p.stop(syscall.SIGTERM); code != 0 {
				t.Errorf("exit %d\n%s", code, p.log())
			}
			if log := p.log(); strings.Contains(log, "goroutine ") || strings.Contains(log, "fatal error") {
				t.Errorf("a crash in the log:\n%s", log)
			}
		})
	}
}
